/**
 * The account the emulator serves, in memory, and its optional data file.
 *
 * Persistence is a group commit: a request that changed something awaits `commit()` before it is
 * answered, so a 2xx means the change is on disk; changes made while a write is in flight share the
 * next one. A data file shared with other processes (`--local`) is written by the batches of
 * `SharedDataFile` instead.
 */
import { VoxformError } from '../errors.js';
import type { Agent, Campaign, ChatMessage } from '../schema/types.gen.js';
import { isPlainObject } from '../util/json-object.js';
import { nowSeconds } from './ids.js';
import { SharedDataFile } from './shared-file.js';
import { readKeptJson, writeKeptFile, type KeptJsonLimits } from '../project-files/kept-files.js';
import { MAX_EMULATOR_DATA_JSON_VALUES, MAX_KEPT_FILE_BYTES, MAX_KEPT_JSON_DEPTH } from '../project-files/limits.js';
import { formatSize } from '../util/size.js';
import { dataFileProblem } from './data-file-check.js';

import type {
  CallRecord,
  EmulatorStateSnapshot,
  KnowledgeFile,
  PendingUpload,
  Session,
  StoredCredential,
  StoredKey,
  StoredPhone,
  UploadedObject,
} from './types.js';

const EMULATOR_DATA_JSON_LIMITS: KeptJsonLimits = { maxBytes: MAX_KEPT_FILE_BYTES, maxValues: MAX_EMULATOR_DATA_JSON_VALUES, maxDepth: MAX_KEPT_JSON_DEPTH };
const DATA_FORMAT = 'voxform-emulator-data';
/**
 * 2: a config shared by call records is written once, in `shared_configs` (version 1: all inline).
 * 3: an ended session's transcript is its call record's `chat`, written there only (an empty list).
 */
const DATA_VERSION = 3;
const READABLE_VERSIONS = [1, 2, 3];
/**
 * What a shared file (`--local`) keeps of the sessions the emulator served (a test run's chats, above
 * all): the newest, while their transcripts (counted a kilobyte more each, the rest of a record) stay
 * within this many characters; older ended ones go, record and session. The file is rewritten whole
 * at every batch of changes, so this bounds what a write costs and how large the file grows, however
 * many runs came before. It holds `voxform test`'s default 8 conversations at once at their largest
 * (a 1 MiB request and the reply that echoes it), so a record is there to be read back when one ends.
 */
const SHARED_FILE_TRANSCRIPTS_KEPT = 16 * 1024 * 1024;
const RECORD_WITHOUT_TRANSCRIPT = 1024;
/** For `voxform emulator --data`; `--local` says what to do with its own file instead (cli/connection.ts). */
const DATA_FILE_INVALID_HINT = 'Point --data at a new file, or delete this one to start again from the seed.';

interface PersistedData extends EmulatorStateSnapshot {
  format: typeof DATA_FORMAT;
  version: number;
  saved_at: string;
  /** The seed's raw private key (already in the clear there), to print again; other keys are kept as hashes. */
  seed_private_key: string | null;
  /** `EmulatorStore.configSetAt` (absent in version 1 files). */
  agent_config_set_at?: Record<string, number>;
  /** Configs shared by several call records (absent in version 1 files). */
  shared_configs?: Array<Record<string, unknown>>;
}

interface Waiter {
  version: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class EmulatorStore {
  /** API keys by sha256 of the key. */
  keys = new Map<string, StoredKey>();
  agents = new Map<string, Agent>();
  phones = new Map<string, StoredPhone>();
  campaigns = new Map<string, Campaign>();
  credentials = new Map<string, StoredCredential>();
  pendingUploads = new Map<string, PendingUpload>();
  objects = new Map<string, UploadedObject>();
  files = new Map<string, KnowledgeFile>();
  /** Sessions by call_id. */
  sessions = new Map<string, Session>();
  /** The latest call of each session id (a continued session has several calls). */
  sessionsById = new Map<string, Session>();
  readonly callLog = new CallLog();
  /** When each agent's configuration was last stored (Unix seconds; none from a seed): traffic comes after it. */
  configSetAt = new Map<string, number>();
  seedPrivateKey: string | null = null;
  /** How many times the account was emptied: work that yields between its reads and its writes (traffic) sees whether a reset or a seed came between. */
  clears = 0;

  private dirtyVersion = 0;
  private flushedVersion = 0;
  private waiters: Waiter[] = [];
  private writing: Promise<void> | undefined;

  /** SHARED_FILE_TRANSCRIPTS_KEPT, but for tests. */
  private readonly transcriptsKept: number;

  /** Set when other processes use the same data file. */
  readonly shared: SharedDataFile | undefined;
  /** Called after the account was replaced by the data file's content (indexes over it are stale). */
  onReload: () => void = () => undefined;

  constructor(
    readonly dataFile: string | undefined,
    options: { shared?: boolean; onLockLost?: (error: Error) => void; transcriptsKept?: number } = {},
  ) {
    this.transcriptsKept = options.transcriptsKept ?? SHARED_FILE_TRANSCRIPTS_KEPT;
    if (dataFile && options.shared) {
      this.shared = new SharedDataFile(
        dataFile,
        {
          reload: async () => {
            const loaded = await this.loadDataFile();
            if (loaded) this.onReload();
            return loaded;
          },
          dirty: () => this.flushedVersion < this.dirtyVersion,
          write: () => this.writeShared(),
        },
        options.onLockLost ?? (() => undefined),
      );
    }
  }

  /** Runs a request's work on the account: at once, or for a shared file in a batch of `SharedDataFile`. */
  access<T>(write: boolean, work: () => T | Promise<T>): Promise<T> {
    if (this.shared) return this.shared.run(write, work);
    return Promise.resolve(work());
  }

  /** Empties the account (before a seed or a reset). */
  clear(): void {
    const stores = [this.keys, this.agents, this.phones, this.campaigns, this.credentials, this.pendingUploads, this.objects];
    for (const map of [...stores, this.files, this.sessions, this.sessionsById, this.configSetAt, this.callLog]) map.clear();
    this.seedPrivateKey = null;
    this.clears += 1;
  }

  /** Must follow every change to a stored agent's configuration: traffic comes after now. */
  agentConfigChanged(agent: Agent): void {
    this.configSetAt.set(agent.id, nowSeconds());
  }

  addSession(session: Session): void {
    this.sessions.set(session.call_id, session);
    this.sessionsById.set(session.session_id, session);
  }

  /** A copy of everything (deep, so callers can neither see later changes nor cause them). */
  snapshot(): EmulatorStateSnapshot {
    return structuredClone(this.contents());
  }

  /** Everything stored, as lists (not copied: callers copy or serialize at once). */
  private contents(): EmulatorStateSnapshot {
    return {
      keys: [...this.keys.values()],
      agents: [...this.agents.values()],
      phones: [...this.phones.values()],
      campaigns: [...this.campaigns.values()],
      call_logs: this.callLog.newestFirst(),
      credentials: [...this.credentials.values()],
      knowledge: {
        pending_uploads: [...this.pendingUploads.values()],
        objects: [...this.objects.values()],
        files: [...this.files.values()],
      },
      sessions: [...this.sessions.values()],
    };
  }

  /** Reads the data file; false when it does not exist yet. */
  async loadDataFile(): Promise<boolean> {
    if (!this.dataFile) return false;
    // Under the guards of every project file: a committed `.voxform/local.json` is the pull request's.
    const read = await readKeptJson(this.dataFile, EMULATOR_DATA_JSON_LIMITS);
    if (!read.found) return false;
    if (!read.ok && read.reason === 'not_json') {
      throw new VoxformError('emulator_data_invalid', `The emulator data file ${this.dataFile} is not valid JSON.`, { hint: DATA_FILE_INVALID_HINT });
    }
    if (!read.ok) {
      throw new VoxformError('emulator_data_unreadable', `The emulator data file ${this.dataFile} ${read.problem}. It was not read.`, {
        hint:
          read.reason === 'over_budget'
            ? 'Delete it to start again from the seed, or point --data elsewhere.'
            : 'The data file must be a regular file in its folder: delete it to start again from the seed, or point --data elsewhere.',
      });
    }
    const problem = dataFileProblem(read.value, DATA_FORMAT, READABLE_VERSIONS);
    if (problem !== undefined) {
      throw new VoxformError('emulator_data_invalid', `The emulator data file ${this.dataFile} cannot be used: ${problem}.`, { hint: DATA_FILE_INVALID_HINT });
    }
    this.restoreFrom(read.value as PersistedData);
    return true;
  }

  /** Replaces everything with the data file's content, already checked whole (dataFileProblem: each `$shared_config` names one of `shared_configs`). */
  private restoreFrom(data: PersistedData): void {
    const shared = data.shared_configs ?? [];
    for (const record of data.version >= 2 ? data.call_logs : []) {
      const index = (record.agent_config as { $shared_config?: number } | undefined)?.$shared_config;
      if (index !== undefined) record.agent_config = shared[index];
    }
    this.clear();
    for (const key of data.keys ?? []) this.keys.set(key.hash, key);
    for (const agent of data.agents) this.agents.set(agent.id, agent);
    for (const phone of data.phones ?? []) this.phones.set(phone.id, phone);
    for (const campaign of data.campaigns ?? []) this.campaigns.set(campaign.id, campaign);
    this.callLog.insertMany(data.call_logs);
    for (const credential of data.credentials ?? []) this.credentials.set(credential.provider, credential);
    const knowledge = data.knowledge ?? { pending_uploads: [], objects: [], files: [] };
    for (const upload of knowledge.pending_uploads) this.pendingUploads.set(upload.key, upload);
    for (const object of knowledge.objects) this.objects.set(object.key, object);
    for (const file of knowledge.files) this.files.set(file.id, file);
    for (const session of [...(data.sessions ?? [])].sort((a, b) => a.ts - b.ts)) {
      const record = this.callLog.get(session.call_id);
      if (data.version >= 3 && session.ended && record) session.transcript = transcriptOf(record.chat);
      this.addSession(session);
    }
    this.seedPrivateKey = data.seed_private_key ?? null;
    for (const [agentId, at] of Object.entries(data.agent_config_set_at ?? {})) {
      if (typeof at === 'number' && Number.isFinite(at)) this.configSetAt.set(agentId, at);
    }
  }

  /** Call after a change: resolves once it is on disk; a failed write rejects (the request answers 500). */
  commit(): Promise<void> {
    if (!this.dataFile) return Promise.resolve();
    if (this.shared) {
      if (!this.shared.inBatch) return Promise.reject(new Error('a change to a shared data file was made outside a batch'));
      this.dirtyVersion++;
      return Promise.resolve();
    }
    const version = ++this.dirtyVersion;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ version, resolve, reject }));
    this.writing ??= this.writeLoop();
    return done;
  }

  /** Resolves when every change made so far is on disk. */
  async flush(): Promise<void> {
    if (!this.dataFile || this.shared) return; // a shared file's batches write before they answer
    while (this.writing) await this.writing.catch(() => undefined);
    if (this.flushedVersion < this.dirtyVersion) await this.commit();
  }

  private async writeLoop(): Promise<void> {
    try {
      // Let the requests that arrived in this same turn of the event loop join the first write.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.flushedVersion < this.dirtyVersion) await this.writeOnce();
    } finally {
      // In the same synchronous step as the last check: a commit() just after starts a new loop.
      this.writing = undefined;
    }
  }

  /** Writes the current state; settles the waiters of every change it holds. */
  private async writeOnce(): Promise<void> {
    const version = this.dirtyVersion;
    const text = this.serialize();
    let failure: unknown;
    try {
      await writeKeptFile(this.dataFile as string, text);
    } catch (error) {
      failure = error;
    }
    this.flushedVersion = version;
    const settled = this.waiters.filter((w) => w.version <= version);
    this.waiters = this.waiters.filter((w) => w.version > version);
    for (const waiter of settled) {
      if (failure === undefined) waiter.resolve();
      else waiter.reject(failure);
    }
  }

  /** The write at the end of a shared batch (the batch holds the lock, so writes never overlap). */
  private async writeShared(): Promise<void> {
    const version = this.dirtyVersion;
    this.forgetOldSessions();
    await writeKeptFile(this.dataFile as string, this.serialize());
    this.flushedVersion = version;
  }

  /** Drops the ended sessions, with their call records, past what a shared file keeps (newest first). */
  private forgetOldSessions(): void {
    const sessions = [...this.sessions.values()]; // oldest first: each starts after the ones before
    const forgotten = new Set<string>();
    let kept = 0;
    for (let index = sessions.length - 1; index >= 0; index--) {
      const session = sessions[index] as Session;
      kept += (this.callLog.get(session.call_id)?.chat?.length ?? 0) + RECORD_WITHOUT_TRANSCRIPT;
      if (kept <= this.transcriptsKept || !session.ended) continue;
      forgotten.add(session.call_id);
      this.sessions.delete(session.call_id);
      if (this.sessionsById.get(session.session_id) === session) this.sessionsById.delete(session.session_id);
    }
    if (forgotten.size > 0) this.callLog.delete(forgotten);
  }

  private serialize(): string {
    const data: PersistedData = {
      format: DATA_FORMAT,
      version: DATA_VERSION,
      saved_at: new Date().toISOString(),
      seed_private_key: this.seedPrivateKey,
      ...this.contents(),
      agent_config_set_at: Object.fromEntries(this.configSetAt),
    };
    const { records, configs } = shareConfigs(data.call_logs);
    data.call_logs = records;
    data.shared_configs = configs;
    data.sessions = data.sessions.map((session) => (session.ended && this.callLog.get(session.call_id) ? { ...session, transcript: [] } : session));
    // Refused before anything is written: too long a text throws a RangeError, and a file over the
    // limit would be refused at the next start.
    let text: string | undefined;
    try {
      text = `${JSON.stringify(data, null, 1)}\n`;
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
    }
    if (text === undefined || Buffer.byteLength(text) > MAX_KEPT_FILE_BYTES) {
      throw new VoxformError('emulator_data_too_large', `The emulator's account is too large to save in ${this.dataFile}: the file would be over ${formatSize(MAX_KEPT_FILE_BYTES)}, the most the emulator reads back. Nothing was saved.`, {
        hint: 'Add fewer synthetic calls (--calls), or delete the data file to start again from the seed.',
      });
    }
    return text;
  }

  /** A start time for a new session: now, but strictly after every session so far, so no two share a ts. */
  nextSessionTs(): number {
    const now = nowSeconds();
    const latest = this.callLog.latestTs();
    return latest !== undefined && now <= latest ? Math.round((latest + 0.001) * 1000) / 1000 : now;
  }
}

/** An ended session's transcript from its call record's `chat`; none when the file's text is not a list of messages. */
function transcriptOf(chat: unknown): ChatMessage[] {
  try {
    const messages: unknown = typeof chat === 'string' ? JSON.parse(chat) : undefined;
    return Array.isArray(messages) && messages.every(isPlainObject) ? (messages as unknown as ChatMessage[]) : [];
  } catch {
    return [];
  }
}

/** Call records for the data file: a config several records share is written once, named by index. */
function shareConfigs(records: CallRecord[]): { records: CallRecord[]; configs: Array<Record<string, unknown>> } {
  const uses = new Map<object, number>();
  for (const record of records) if (record.agent_config) uses.set(record.agent_config, (uses.get(record.agent_config) ?? 0) + 1);
  const index = new Map<object, number>();
  const configs: Array<Record<string, unknown>> = [];
  const written = records.map((record) => {
    const config = record.agent_config;
    if (!config || (uses.get(config) ?? 0) < 2) return record;
    let at = index.get(config);
    if (at === undefined) {
      at = configs.push(config) - 1;
      index.set(config, at);
    }
    return { ...record, agent_config: { $shared_config: at } };
  });
  return { records: written, configs };
}

/**
 * The call log: records by call_id, and oldest first in an array (a new call is an append), walked
 * backwards from a binary search so a page costs the same whatever the log's length.
 */
export class CallLog {
  private ascending: CallRecord[] = [];
  private byCallId = new Map<string, CallRecord>();
  clear(): void {
    this.ascending = [];
    this.byCallId.clear();
  }

  get size(): number {
    return this.ascending.length;
  }

  get(callId: string): CallRecord | undefined {
    return this.byCallId.get(callId);
  }

  latestTs(): number | undefined {
    return this.ascending[this.ascending.length - 1]?.ts;
  }

  insert(record: CallRecord): void {
    const existing = this.byCallId.get(record.call_id);
    if (existing) this.ascending.splice(this.ascending.indexOf(existing), 1);
    this.byCallId.set(record.call_id, record);
    this.ascending.splice(this.firstIndex(record.ts, false), 0, record);
  }

  /** Adds many records in one pass, in the order `insert` one by one would give (a stored call_id is replaced). */
  insertMany(records: readonly CallRecord[]): void {
    for (const record of records) this.byCallId.set(record.call_id, record); // the last one given wins, as with insert
    const given = new Set(records.map((record) => record.call_id));
    const kept = this.ascending.filter((record) => !given.has(record.call_id));
    const incoming = records.filter((record) => this.byCallId.get(record.call_id) === record);
    // The sort is stable: at one ts the stored records come first, then the given ones in their order, where insert puts them.
    this.ascending = [...kept, ...incoming].sort((a, b) => a.ts - b.ts);
  }

  delete(callIds: ReadonlySet<string>): void {
    for (const callId of callIds) this.byCallId.delete(callId);
    this.ascending = this.ascending.filter((record) => !callIds.has(record.call_id));
  }

  newestFirst(): CallRecord[] {
    return [...this.ascending].reverse();
  }

  /** Binary search: the index of the first record with a ts above `ts` (`atLeast`: of `ts` or above); the length when none. */
  private firstIndex(ts: number, atLeast: boolean): number {
    let lo = 0;
    let hi = this.ascending.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = (this.ascending[mid] as CallRecord).ts;
      if (atLeast ? at >= ts : at > ts) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /**
   * Records newest first, lazily: ts strictly below `before` (a cursor), at most `atMost` and at
   * least `atLeast` (a window, both inclusive), the bounds found by binary search.
   */
  *range(bounds: { before?: number | undefined; atMost?: number | undefined; atLeast?: number | undefined }): Generator<CallRecord> {
    let end = this.ascending.length;
    if (bounds.before !== undefined) end = Math.min(end, this.firstIndex(bounds.before, true));
    if (bounds.atMost !== undefined) end = Math.min(end, this.firstIndex(bounds.atMost, false));
    const start = bounds.atLeast === undefined ? 0 : this.firstIndex(bounds.atLeast, true);
    for (let index = end - 1; index >= start; index--) yield this.ascending[index] as CallRecord;
  }
}
