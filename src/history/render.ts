/**
 * `voxform history` output: text for people, JSON (schemas/history.schema.json) for scripts. A
 * record holds no secret, so nothing here needs redacting; the CLI's output scrub still applies.
 * A history file is data like any other in the project's folder: text from a record is printed
 * through `controlsAsQuestionMarks`, which shows a control character as `?`.
 */
import { shortHash } from '../util/hash.js';
import { addToList } from '../util/map-lists.js';
import { plural } from '../util/plural.js';
import { controlsAsQuestionMarks, toJsonText } from '../util/printable.js';
import { AgentNames, keysOfAgent, versionOfAgent } from './agent-names.js';
import { agentVersionKey, shortCommit, type AgentSummary, type AgentVersion, type DeploySummary, type HistoryRecord, type LedgerRecord, type TestRunRecord } from './types.js';

const HISTORY_JSON_FORMAT_VERSION = '1.1';

/** A record as `voxform history` shows it, with the agents it changed. */
export interface HistoryEntry<R extends LedgerRecord = HistoryRecord> {
  record: R;
  /**
   * The agents whose configuration the record changed: those whose version (agentVersionKey: the hash,
   * or the recorded configuration) differs from the next older record holding them, or that no older
   * record holds. An agent is its id: under whatever key the older record holds it (a renamed key, two
   * swapped keys), and never the agent a key named before its `id:` changed. An agent the deploy wrote
   * (`written`) changed too, though its version may read as before (a value from `${env:…}` is
   * recorded as its reference). A heal's record holds only the agents it put back, each changed on the
   * service from what was edited outside voxform: all of them, though their version is the one
   * recorded before. A record whose apply wrote nothing (`wroteNothing`) changed none.
   */
  agentsChanged: string[];
  /** The keys the record holds an agent under that the record before held it under another (a renamed key, or two swapped keys). */
  keysMoved: KeyMove[];
  /** The workspace's oldest record, which wrote something: every agent it holds counts as changed, there being nothing to compare with. */
  first?: boolean | undefined;
}

/** An agent's key in the record before (`from`) and in this one (`to`). */
interface KeyMove {
  from: string;
  to: string;
}

/**
 * Whether a record's apply wrote nothing to the service: nothing applied, wholly or partly, and no
 * write failed (a failed write's outcome is unknown: it may have reached the service). Such a record
 * (`nothing_to_do`, an apply stopped before its first write) changed no agent, whatever the records
 * before it hold, and also when none does.
 */
function wroteNothing(record: LedgerRecord): boolean {
  const { applied, partlyApplied, failed } = record.summary;
  return applied === 0 && !partlyApplied && failed === 0;
}

/**
 * The keys `record` holds an agent under (by its id) that `before`, the workspace's record before it,
 * held that agent under another key: a renamed key, or two swapped keys. An apply that only moved
 * keys changed no agent, and this is what it did.
 */
function keysMoved(record: LedgerRecord, before: LedgerRecord): KeyMove[] {
  const moves: KeyMove[] = [];
  for (const key of Object.keys(record.agents).sort()) {
    const id = record.agents[key]?.id;
    if (id === undefined || (Object.hasOwn(before.agents, key) && before.agents[key]?.id === id)) continue;
    // By the record's index of keys by id (agent-names.ts): a record of thousands of renamed keys stays linear.
    const earlier = keysOfAgent(before, id);
    if (earlier.length === 1) moves.push({ from: earlier[0] as string, to: key });
  }
  return moves;
}

/** Which records `voxform history` shows: those holding `agent` when given (`names` follows renamed keys), at most `limit`. */
interface EntryFilter {
  agent?: string | undefined;
  limit?: number | undefined;
  names?: AgentNames | undefined;
}

/** A record shown, while the older records are read: the agents it changed so far, and those not found older yet. */
interface ShownEntry<R extends LedgerRecord> {
  record: R;
  changed: string[];
  open: Map<string, AgentVersion | AgentSummary>;
  older: boolean;
  moved: KeyMove[];
}

/**
 * The entries `voxform history` shows, from the workspace's records given one at a time, newest
 * first. What a record changed is found against the records before it in the whole history,
 * whatever the filters: each shown agent's version against the newest older record holding it
 * (by its id: under whatever key that record holds it). `add` says when the entries are complete:
 * as many as asked for, and every shown agent's older version found, so no older record is read.
 */
export class HistoryEntryCollector<R extends LedgerRecord> {
  private readonly shown: Array<ShownEntry<R>> = [];
  /**
   * The shown agents no older record has held yet, by agent id: a record visits the waiting agents
   * it holds, not every entry shown, so a long ledger (a pull request may plant one) is walked in
   * linear time whatever `--limit`.
   */
  private readonly waiting = new Map<string, Array<{ entry: ShownEntry<R>; name: string }>>();
  /** The newest entry, until the record before it is read: its keys moved are found against that record. */
  private newest: ShownEntry<R> | undefined;
  private readonly limit: number;

  constructor(private readonly filter: EntryFilter = {}) {
    this.limit = filter.limit ?? Number.POSITIVE_INFINITY;
  }

  /** Takes the next older record; true once no older record can add an entry or change one. */
  add(record: R): boolean {
    if (this.newest) {
      this.newest.moved = keysMoved(this.newest.record, record);
      this.newest.older = true;
    }
    for (const id of new Set(Object.values(record.agents).map((version) => version.id))) this.findOlder(record, id);
    const { agent, names = new AgentNames([]) } = this.filter;
    this.newest = undefined;
    if (this.shown.length < this.limit && (agent === undefined || names.versionIn(record, agent))) this.show(record);
    return this.shown.length >= this.limit && this.waiting.size === 0 && this.newest === undefined;
  }

  /** The waiting agents of id `id` that `record` holds: each changed unless its version there is the same. */
  private findOlder(record: R, id: string): void {
    const waiters = this.waiting.get(id);
    if (waiters === undefined) return;
    const still = waiters.filter(({ entry, name }) => {
      const before = versionOfAgent(record, name, id);
      if (before === undefined) return true;
      const now = entry.open.get(name) as AgentVersion | AgentSummary;
      // Written by the deploy, it changed though it may read as before: only a value from `${env:…}` changed.
      if (agentVersionKey(before) !== agentVersionKey(now) || now.written === true) entry.changed.push(name);
      entry.open.delete(name);
      return false;
    });
    if (still.length > 0) this.waiting.set(id, still);
    else this.waiting.delete(id);
  }

  private show(record: R): void {
    const agents = Object.entries(record.agents);
    const entry: ShownEntry<R> = { record, changed: [], open: new Map(), older: false, moved: [] };
    if (wroteNothing(record)) {
      // It changed none, whatever the records before it hold.
    } else if (record.source.healOf !== undefined) {
      entry.changed = agents.map(([name]) => name);
    } else {
      entry.open = new Map(agents);
      for (const [name, version] of agents) addToList(this.waiting, version.id, { entry, name });
    }
    this.shown.push(entry);
    this.newest = entry;
  }

  /**
   * The entries, newest first; an agent no older record holds counts as changed. An entry with such
   * an agent kept the walk going to the ledger's end: no record came after it there, it is the first.
   */
  entries(): Array<HistoryEntry<R>> {
    return this.shown.map((entry) => ({
      record: entry.record,
      agentsChanged: [...entry.changed, ...entry.open.keys()].sort(),
      keysMoved: entry.moved,
      ...(entry.open.size > 0 && !entry.older ? { first: true } : {}),
    }));
  }
}

/**
 * The records `voxform history` shows, from every record of the workspace (newest first): see
 * `HistoryEntryCollector`. Without `names`, renamed keys are followed from the records alone.
 */
export function historyEntries<R extends LedgerRecord>(records: readonly R[], options: EntryFilter = {}): Array<HistoryEntry<R>> {
  const collector = new HistoryEntryCollector<R>({ ...options, names: options.names ?? new AgentNames(records) });
  for (const record of records) if (collector.add(record)) break;
  return collector.entries();
}

/** Where the record's configuration came from, then what the run did beyond a deploy, each after a "; ". */
function sourceLine(record: LedgerRecord): string {
  const { source } = record;
  const origin: string[] = [];
  if (source.commit) origin.push(`commit ${shortCommit(source.commit, source.uncommitted)}`);
  if (source.branch) origin.push(`on ${source.branch}`);
  if (source.pullRequest !== undefined) origin.push(`(PR #${source.pullRequest})`);
  const parts = origin.length > 0 ? [origin.join(' ')] : [];
  if (source.rollbackOf) parts.push(`rollback to ${source.rollbackOf}`);
  if (source.healOf) parts.push(`heal of drift: back to ${source.healOf.join(', ')}`);
  if (source.promotedFrom) parts.push(`promoted from ${source.promotedFrom.workspace} record ${source.promotedFrom.record}`);
  return controlsAsQuestionMarks(parts.length > 0 ? parts.join('; ') : 'no commit known');
}

function summaryLine(record: LedgerRecord): string {
  const s = record.summary;
  return `plan ${s.create} to create, ${s.update} to update, ${s.unchanged} unchanged; ${applyCounts(s, record.outcome)}`;
}

/**
 * How an apply's changes ended, in apply's own words: `3 applied, 2 partly applied, 0 failed, 0
 * skipped, 2 not applied`. Partly applied shows when there were any; not applied too, and always
 * after an interrupted run. A record older than these counts shows the three it has.
 */
export function applyCounts(counts: Pick<DeploySummary, 'applied' | 'partlyApplied' | 'failed' | 'skipped' | 'notApplied'>, outcome: string): string {
  const partly = counts.partlyApplied ? `, ${counts.partlyApplied} partly applied` : '';
  const stopped = counts.notApplied !== undefined && (counts.notApplied > 0 || outcome === 'interrupted');
  return `${counts.applied} applied${partly}, ${counts.failed} failed, ${counts.skipped} skipped${stopped ? `, ${counts.notApplied} not applied` : ''}`;
}

/**
 * The test runs `voxform history` shows (newest first): those that talked to `agent` when given (under
 * an earlier name too: `names`, from the workspace's records), at most `limit`.
 */
export function testRunEntries(runs: readonly TestRunRecord[], options: { agent?: string | undefined; limit?: number | undefined; names?: AgentNames | undefined } = {}): TestRunRecord[] {
  const { agent, names = new AgentNames(runs) } = options;
  const held = agent === undefined ? runs : runs.filter((run) => names.versionIn(run, agent) !== undefined);
  return held.slice(0, options.limit ?? Number.POSITIVE_INFINITY);
}

/** A test run's tallies: `4 passed, 1 failed` and the skipped and errored when there are any. */
export function testRunTally(run: Pick<TestRunRecord, 'summary'>): string {
  const { passed, failed, skipped, errors } = run.summary;
  return [`${passed} passed`, `${failed} failed`, ...(skipped > 0 ? [`${skipped} skipped`] : []), ...(errors > 0 ? [plural(errors, 'error')] : [])].join(', ');
}

function testRunsText(runs: readonly TestRunRecord[]): string[] {
  if (runs.length === 0) return [];
  const lines = ['Test runs against the live agents, newest first:', ''];
  for (const run of runs) {
    lines.push(controlsAsQuestionMarks(`${run.id}  ${run.at}  ${testRunTally(run)}`));
    lines.push(`  by ${controlsAsQuestionMarks(run.by)}, ${run.source.commit ? `tests of commit ${shortCommit(run.source.commit, run.source.uncommitted)}` : 'no commit known'}`);
    const agents = Object.keys(run.agents).sort().map((name) => `${name} ${shortHash(run.agents[name]?.configHash ?? '')}`);
    lines.push(`  agents: ${controlsAsQuestionMarks(agents.join(', '))}`);
    const failing = run.tests.filter((test) => test.status === 'failed' || test.status === 'error');
    for (const test of failing) lines.push(`  ${test.status}: ${controlsAsQuestionMarks(`${test.file} › ${test.name}`)} (${test.passes}/${test.runs} passed)`);
    lines.push('');
  }
  return lines;
}

/** Entries (newest first, see `historyEntries`) as text, then the test runs; `agent`: the `--agent` they were chosen by. */
export function renderHistoryText(entries: ReadonlyArray<HistoryEntry<LedgerRecord>>, workspace: string, agent?: string, testRuns: readonly TestRunRecord[] = []): string {
  const runs = testRunsText(testRuns).join('\n');
  if (entries.length === 0 && agent !== undefined) return `No record of ${workspace} holds agent "${controlsAsQuestionMarks(agent)}".\n${runs}`;
  if (entries.length === 0) return `No history for ${workspace} yet: every \`voxform apply\` adds a record.\n${runs}`;
  const lines = [`History of ${workspace}, newest first:`, ''];
  for (const { record, agentsChanged: changed, keysMoved: moved, first } of entries) {
    lines.push(controlsAsQuestionMarks(`${record.id}  ${record.at}  ${record.outcome}`));
    lines.push(`  by ${controlsAsQuestionMarks(record.by)}, ${sourceLine(record)}`);
    if (record.source.ciJobUrl) lines.push(`  job ${controlsAsQuestionMarks(record.source.ciJobUrl)}`);
    lines.push(`  ${controlsAsQuestionMarks(summaryLine(record))}`);
    const note = first ? ' (first record: every agent)' : '';
    lines.push(`  agents changed: ${changed.length > 0 ? `${controlsAsQuestionMarks(changed.join(', '))}${note}` : 'none'}`);
    if (moved.length > 0) lines.push(`  keys moved: ${controlsAsQuestionMarks(moved.map(({ from, to }) => `agent.${from} → agent.${to}`).join(', '))}`);
    lines.push('');
  }
  return `${lines.join('\n')}${runs === '' ? '' : `\n${runs}`}`;
}

function agentJson(version: AgentVersion): Record<string, unknown> {
  return {
    id: version.id,
    name: version.name ?? null,
    config: version.config,
    knowledge: version.knowledge ?? null,
    config_hash: version.configHash,
    masked_paths: version.maskedPaths,
    prompt_length: version.promptLength ?? null,
    unrecorded_secrets: version.unrecordedSecrets ?? [],
  };
}

function recordJson({ record, agentsChanged, keysMoved }: HistoryEntry): Record<string, unknown> {
  const { source } = record;
  return {
    id: record.id,
    workspace: record.workspace,
    at: record.at,
    by: record.by,
    command: record.command,
    outcome: record.outcome,
    source: {
      commit: source.commit ?? null,
      branch: source.branch ?? null,
      pull_request: source.pullRequest ?? null,
      ci_job_url: source.ciJobUrl ?? null,
      uncommitted: source.uncommitted ?? null,
      rollback_of: source.rollbackOf ?? null,
      heal_of: source.healOf ?? null,
      promoted_from: source.promotedFrom ? { workspace: source.promotedFrom.workspace, record: source.promotedFrom.record } : null,
    },
    summary: summaryJson(record.summary),
    agents_changed: agentsChanged,
    keys_moved: keysMoved.map(({ from, to }) => ({ from, to })),
    agents: Object.fromEntries(Object.keys(record.agents).sort().map((name) => [name, agentJson(record.agents[name] as AgentVersion)])),
  };
}

/** The summary in the JSON's words; the counts a record older than them lacks are null. */
function summaryJson(s: DeploySummary): Record<string, number | null> {
  return {
    create: s.create,
    update: s.update,
    unchanged: s.unchanged,
    drifted: s.drifted,
    applied: s.applied,
    partly_applied: s.partlyApplied ?? null,
    failed: s.failed,
    skipped: s.skipped,
    not_applied: s.notApplied ?? null,
  };
}

function testRunJson(run: TestRunRecord): Record<string, unknown> {
  return {
    id: run.id,
    at: run.at,
    by: run.by,
    command: run.command,
    commit: run.source.commit ?? null,
    uncommitted: run.source.uncommitted ?? null,
    suite_digest: run.suiteDigest ?? null,
    // Field by field: a committed record's summary may hold anything else its budget allows.
    summary: { passed: run.summary.passed, failed: run.summary.failed, skipped: run.summary.skipped, errors: run.summary.errors },
    agents: Object.fromEntries(Object.keys(run.agents).sort().map((name) => [name, { id: run.agents[name]?.id, config_hash: run.agents[name]?.configHash }])),
    tests: run.tests.map((test) => ({ file: test.file, agent: test.agent, name: test.name, status: test.status, passes: test.passes, runs: test.runs, pass_rate: test.passRate })),
  };
}

/** Entries (newest first, see `historyEntries`) and test runs as the JSON document of schemas/history.schema.json. */
export function renderHistoryJson(entries: readonly HistoryEntry[], workspace: string, testRuns: readonly TestRunRecord[] = []): string {
  const document = {
    format_version: HISTORY_JSON_FORMAT_VERSION,
    workspace,
    records: entries.map(recordJson),
    test_runs: testRuns.map(testRunJson),
  };
  return `${toJsonText(document, 2)}\n`;
}
