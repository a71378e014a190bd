/**
 * The deploy ledger: one record per apply, kept by the state backend. It answers "who deployed what,
 * from which commit", for `rollback` and the call report. A record never holds a secret: values
 * filled from `${env:…}` are kept as their references.
 */
import { canonicalJson, hashValue, sha256 } from '../util/hash.js';
import { sealVerifies, type LedgerSealKey } from './seal.js';

/** Where the change came from, as far as the CI environment or `git` tells. */
export interface DeploySource {
  /** The full commit id of the work tree (or the CI's commit). */
  commit?: string | undefined;
  branch?: string | undefined;
  /** The pull/merge request number, when the CI names it. */
  pullRequest?: number | undefined;
  /** A link to the CI job that ran the apply, when known. */
  ciJobUrl?: string | undefined;
  /** The work tree held changes `commit` does not (edited, staged or new files); absent when unknown. */
  uncommitted?: boolean | undefined;
  /** Set on a rollback: the id of the history record whose configuration was restored. */
  rollbackOf?: string | undefined;
  /** Set on a heal (`voxform drift --heal`): the ids of the records whose configurations were put back. */
  healOf?: string[] | undefined;
  /** Set on a promotion (`voxform promote`): the environment's workspace and the record whose configuration it was given. */
  promotedFrom?: PromotionSource | undefined;
}

/** The source record of a promotion, in another workspace of the same ledger. */
export interface PromotionSource {
  /** The source's workspace (`staging@local`). */
  workspace: string;
  /** The id of the source workspace's record whose configuration was promoted. */
  record: string;
}

/** One agent as an apply left it. */
export interface AgentVersion {
  /** The live agent's id. */
  id: string;
  /** The display name voxform manages, when it does. */
  name?: string | undefined;
  /** The fields the manifest owns, as applied, each `${env:NAME}` value written back as the reference. */
  config: Record<string, unknown>;
  /** Knowledge files attached, by local name, when the manifest manages them. */
  knowledge?: string[] | undefined;
  /** `configurationHash` of the agent's whole live configuration after the apply (env paths masked). */
  configHash: string;
  /** The `maskPaths` the hash was taken with (config paths filled from `${env:…}`). */
  maskedPaths: string[];
  /** Characters of the live prompt: the report cuts a call's prompt (plus `extra_prompt`) back to it before hashing. */
  promptLength?: number | undefined;
  /** Paths of secrets the manifest wrote literally: recorded redacted, so a rollback refuses the agent. */
  unrecordedSecrets?: string[] | undefined;
  /**
   * Set when this deploy wrote the agent (its update accepted, wholly or in part): it changed the
   * agent though its config and hash may read as the record before's, where only a value filled
   * from `${env:…}` changed (recorded as its reference, never the value). Absent in older records.
   */
  written?: true | undefined;
}

export interface HistoryRecord {
  /** Unique, and sorts in the order records were appended (src/history/ledger-order.ts): `20261123T120501123Z-3f9a2c`. */
  id: string;
  /** The workspace (`ENV@SERVICE`) the apply ran against. */
  workspace: string;
  /** ISO 8601: when the apply ended, by the clock of the machine that ran it (display; the id orders). */
  at: string;
  /** `user@host` of the run. */
  by: string;
  /** The command as typed, without secrets. */
  command: string;
  /** How the apply ended: `applied`, `failed` (some changes failed or were skipped), `interrupted`, `nothing_to_do`. */
  outcome: string;
  source: DeploySource;
  summary: DeploySummary;
  /** Every agent of the workspace's manifests, by local name, as the apply left it. */
  agents: Record<string, AgentVersion>;
  /** The workspace's record before this one (`LedgerLink`); absent in records older than it. */
  previous?: LedgerLink | undefined;
  /** `hmac-sha256:` of the rest under the run's API key (src/history/seal.ts); absent in records older than it. */
  seal?: string | undefined;
}

/**
 * The id of the workspace's newest record (test run) when this one was appended, null for its first.
 * Sealed with the rest: a record removed from between two others leaves the newer one naming an id the
 * ledger no longer holds, and promotion refuses to read such a ledger (src/promote/sealed-evidence.ts).
 */
export type LedgerLink = string | null;

/**
 * What an apply did: its plan's counts and how many changes applied, failed, were skipped. Written
 * out, not taken from the plan's types: later versions read records, and a plan's new field is no record's.
 */
export interface DeploySummary {
  create: number;
  update: number;
  unchanged: number;
  drifted: number;
  applied: number;
  /** Changes some of whose requests reached the service before the run stopped; absent in records older than this field. */
  partlyApplied?: number | undefined;
  failed: number;
  skipped: number;
  /** Changes the run stopped before (interrupted, or the lock lost); absent in records older than this field. */
  notApplied?: number | undefined;
}

/**
 * What the ledger's readers need of an agent's version without its configuration: who it is, its
 * live hash, its knowledge files and prompt length, and `restorableKey` of its name and configuration,
 * taken once as it is read. A whole configuration is read again, by the record's id, only where it is used.
 */
export interface AgentSummary {
  id: string;
  name?: string | undefined;
  configHash: string;
  maskedPaths: string[];
  knowledge?: string[] | undefined;
  promptLength?: number | undefined;
  restorableKey: string;
  /** `configFieldKeys` of its configuration: the report names the fields a version changed by them. */
  fieldKeys: Record<string, string>;
  written?: true | undefined;
}

/** A record without its agents' configurations (`AgentSummary`): what `history`, `rollback` and `report` walk the ledger with. */
export interface RecordSummary extends Omit<HistoryRecord, 'agents' | 'seal'> {
  agents: Record<string, AgentSummary>;
  /** Whether the record's seal verifies under the query's `sealKey`; absent when none was given. */
  sealed?: boolean | undefined;
}

/** A record, whole or as its summary: what reading the ledger's order, agents and versions needs. */
export interface LedgerRecord extends Omit<HistoryRecord, 'agents' | 'seal'> {
  agents: Record<string, AgentVersion | AgentSummary>;
}

/**
 * The summary of a record: its header, and each agent without its configuration. `same` gives one
 * copy of equal strings (`sameStrings`): the records of a ledger repeat most ids, names and hashes.
 * Only the fields voxform knows are copied: a record read back may hold any other, as large as its
 * own budget allows, and a summary is kept for every record of the ledger.
 */
export function summarizeRecord(record: HistoryRecord, same: (text: string) => string = (text) => text, sealKey?: LedgerSealKey): RecordSummary {
  const { id, workspace, at, by, command, outcome, source, summary, agents, previous } = record;
  const summaries: Record<string, AgentSummary> = {};
  for (const [name, version] of Object.entries(agents)) {
    const { knowledge, promptLength } = version;
    const fieldKeys = Object.fromEntries(Object.entries(configFieldKeys(version.config)).map(([field, key]) => [field, same(key)]));
    const displayName = version.name === undefined ? undefined : same(version.name);
    const restorable = same(restorableKeyOfFieldKeys(displayName, fieldKeys));
    summaries[name] = { id: same(version.id), name: displayName, configHash: same(version.configHash), maskedPaths: version.maskedPaths, knowledge, promptLength, restorableKey: restorable, fieldKeys, ...(version.written === true ? { written: true } : {}) };
  }
  const summarized: RecordSummary = { id, workspace, at, by, command, outcome, source: knownSourceFields(source), summary: knownFields(summary, SUMMARY_FIELDS), agents: summaries, ...(previous === undefined ? {} : { previous }) };
  // Checked on the whole record as read: a summary keeps only the fields voxform knows.
  if (sealKey !== undefined) summarized.sealed = sealVerifies(sealKey, record);
  return summarized;
}

const SOURCE_FIELDS = ['commit', 'branch', 'pullRequest', 'ciJobUrl', 'uncommitted', 'rollbackOf', 'healOf'] as const satisfies ReadonlyArray<keyof DeploySource>;
const SUMMARY_FIELDS = ['create', 'update', 'unchanged', 'drifted', 'applied', 'partlyApplied', 'failed', 'skipped', 'notApplied'] as const satisfies ReadonlyArray<keyof DeploySummary>;

function knownSourceFields(source: DeploySource): DeploySource {
  const known: DeploySource = knownFields(source, SOURCE_FIELDS);
  if (source.promotedFrom !== undefined) known.promotedFrom = { workspace: source.promotedFrom.workspace, record: source.promotedFrom.record };
  return known;
}

/** The fields of `value` named in `fields`, those it has (a field it lacks stays absent). */
function knownFields<T extends object, K extends keyof T>(value: T, fields: readonly K[]): Pick<T, K> {
  const known = {} as Pick<T, K>;
  for (const field of fields) if (value[field] !== undefined) known[field] = value[field];
  return known;
}

/** A function giving one copy of equal strings, for one walk of a ledger (`summarizeRecord`). */
export function sameStrings(): (text: string) => string {
  const copies = new Map<string, string>();
  return (text) => {
    const copy = copies.get(text);
    if (copy !== undefined) return copy;
    copies.set(text, text);
    return text;
  };
}

/**
 * A key of each top-level field of a configuration: two fields differ exactly when their keys do. A
 * short value's key is its canonical JSON (no longer than a hash, and cheaper to take); a longer
 * one's, its `sha256:` hash, which no JSON text is (a JSON string starts with a quote).
 */
export function configFieldKeys(config: Record<string, unknown>): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const [field, value] of Object.entries(config)) {
    // A field set to undefined is one JSON leaves out, as the whole configuration's hash did.
    if (value === undefined) continue;
    const text = canonicalJson(value);
    keys[field] = text.length <= SHORT_FIELD ? text : sha256(text);
  }
  return keys;
}

/** The longest canonical JSON a field's key is (`configFieldKeys`): as long as a `sha256:` hash. */
const SHORT_FIELD = 71;

/** A stored record that is not a history record (src/history/check-record.ts): skipped, and said why. */
export interface SkippedRecord {
  /** Where it is kept: the file, or the record's id. */
  where: string;
  /** `field: what is wrong`. */
  problem: string;
}

export interface HistoryQuery {
  workspace: string;
  /** Hears each stored record that is skipped because it is damaged or foreign. */
  onSkipped?: ((skipped: SkippedRecord) => void) | undefined;
  /** The key seals are checked under: each summary then says whether its record's verifies (`sealed`). */
  sealKey?: LedgerSealKey | undefined;
}

/** How one conversation test ended against the live agents. */
export interface TestOutcome {
  /** The test file, as reports show it (relative, with `/`). */
  file: string;
  /** The agent's local name. */
  agent: string;
  name: string;
  /** `passed`, `failed`, `skipped` or `error` (src/conversations/types.ts `CheckStatus`). */
  status: string;
  passes: number;
  runs: number;
  /** The pass rate the test asks for (`pass_rate`). */
  passRate: number;
}

/**
 * The evidence of one `voxform test` run against a workspace's live agents: which configurations it
 * talked to (each agent's configuration hash, as an apply records it) and how every test ended.
 * Never a transcript, a reply or a secret: the names of tests and files, counts and hashes.
 */
export interface TestRunRecord {
  /** Unique, and sorts in the order runs were appended, as a history record's. */
  id: string;
  workspace: string;
  /** ISO 8601: when the run ended. */
  at: string;
  by: string;
  /** The run's words as given, with its `--env`, never how the service or state is reached (a secret in a path hidden). */
  command: string;
  /** The checkout the tests were read from. */
  source: DeploySource;
  /** Each agent of the environment's manifests, by local name, tested or not (older runs: those it talked to): its id and its live configuration's hash. */
  agents: Record<string, { id: string; configHash: string }>;
  /**
   * `suiteDigest` of the test files the run read, the whole suite (src/promote/evidence.ts): the
   * `tests` gate takes the run only for a checkout whose suite has the same. Absent in records older than it.
   */
  suiteDigest?: string | undefined;
  summary: { passed: number; failed: number; skipped: number; errors: number };
  tests: TestOutcome[];
  /** The workspace's test run before this one (`LedgerLink`); absent in runs older than it. */
  previous?: LedgerLink | undefined;
  /** `hmac-sha256:` of the rest under the run's API key (src/history/seal.ts); absent in records older than it. */
  seal?: string | undefined;
}

/** Where history records are kept: implemented by each state backend. */
export interface HistoryStore {
  /** Appends a record; its id and `previous` are assigned here, then its seal made under `sealKey`. Resolves once the record is stored. */
  append(record: Omit<HistoryRecord, 'id' | 'seal' | 'previous'>, sealKey: LedgerSealKey): Promise<HistoryRecord>;
  /**
   * The summaries of a workspace's records, newest first, each read as the walk reaches it: a reader
   * that has what it needs stops, and the older records are never read. One that does not check is skipped.
   */
  summaries(query: HistoryQuery): AsyncIterable<RecordSummary>;
  /**
   * The summaries of the records of every workspace `picked` keeps, each workspace's newest first,
   * read as the walk reaches them; one that does not check is skipped. Whether or not the state still
   * holds the workspace: `voxform state rm` keeps its ledger, and it stays evidence of secrets
   * (src/state/trusted-secrets.ts).
   */
  summariesOfWorkspaces(picked: (workspace: string) => boolean): AsyncIterable<RecordSummary>;
  /** A record of a workspace, whole, by its id; undefined when the workspace holds none that checks under it. */
  read(query: HistoryQuery, id: string): Promise<HistoryRecord | undefined>;
  /** Appends the evidence of a test run against live agents; its id and `previous` are assigned here, then its seal made under `sealKey`. */
  appendTestRun(run: Omit<TestRunRecord, 'id' | 'seal' | 'previous'>, sealKey: LedgerSealKey): Promise<TestRunRecord>;
  /** Test runs of a workspace, newest first; one that does not check is skipped. */
  listTestRuns(query: HistoryQuery): Promise<TestRunRecord[]>;
}

/** The agent a record holds under a local name: own names only, as `toString` is a legal agent name. */
export function recordedAgent<V>(record: { agents: Record<string, V> }, name: string): V | undefined {
  return Object.hasOwn(record.agents, name) ? record.agents[name] : undefined;
}

/** A deploy's commit as people read it: `3f9a2c1`, or `3f9a2c1 with uncommitted changes` (see `DeploySource.uncommitted`). */
export function shortCommit(commit: string, uncommitted: boolean | null | undefined): string {
  return `${commit.slice(0, 7)}${uncommitted ? ' with uncommitted changes' : ''}`;
}

/** What tells two versions apart: the live hash, and the recorded configuration (a new `${env:…}` alone counts). */
export function agentVersionKey(version: AgentVersion | AgentSummary): string {
  return `${version.configHash} ${restorableKeyOf(version)}`;
}

/** `restorableKey` of a version, whole or summarized (its key taken when it was read). */
export function restorableKeyOf(version: AgentVersion | AgentSummary): string {
  return 'restorableKey' in version ? version.restorableKey : restorableKey(version);
}

/**
 * What tells apart what a rollback restores of two versions: their recorded name and configuration.
 * The live hash is left out: it also covers the knowledge files attached and fields the manifests do
 * not manage, which a rollback leaves as they are.
 */
export function restorableKey(version: Pick<AgentVersion, 'name' | 'config'>): string {
  return restorableKeyOfFieldKeys(version.name, configFieldKeys(version.config));
}

/**
 * `restorableKey` from the configuration's `configFieldKeys`: a summary's is taken from the keys
 * it keeps, so a configuration is hashed once. Never stored: each side is keyed when compared.
 */
function restorableKeyOfFieldKeys(name: string | undefined, fieldKeys: Record<string, string>): string {
  return hashValue({ name: name ?? null, config: fieldKeys });
}

/** Whether two versions record the same name and configuration, as `restorableKey` tells them apart (promotion and rollback ask it). */
export function sameRecordedConfig(a: Pick<AgentVersion, 'name' | 'config'>, b: Pick<AgentVersion, 'name' | 'config'>): boolean {
  return restorableKey(a) === restorableKey(b);
}
