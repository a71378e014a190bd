/**
 * Which record `voxform rollback REF` returns to. REF is a record id or a unique prefix of one, a
 * commit (full, or a prefix of at least 7 hex digits), or `previous`: the last configuration that
 * applied completely and differs from the current one in what a rollback restores (see `previousRecord`).
 */
import { VoxformError } from '../errors.js';
import { AgentNames } from './agent-names.js';
import { ledgerOrder } from './ledger-order.js';
import { restorableKeyOf, shortCommit, type LedgerRecord } from './types.js';
import { plural, someOf } from '../util/plural.js';

/** Outcomes after which the recorded configuration is what the service held. */
const COMPLETE = new Set(['applied', 'nothing_to_do']);
const COMMIT_PREFIX = /^[0-9a-f]{7,64}$/i;
const LISTED = 5;

/** The command a refusal's hint names to list the records; the CLI names the one of the run's manifests, environment and service. */
const DEFAULT_HISTORY_COMMAND = 'voxform history';

function refHint(historyCommand: string): string {
  return `List the records with \`${historyCommand}\`; REF is a record id (or a unique prefix of one), a commit (7 or more hex digits) or \`previous\`.`;
}

/** Whether every named agent is in the record, under an earlier name too (without names: whether it has any agent at all). */
function holdsAgents(record: LedgerRecord, agents: readonly string[], names: AgentNames): boolean {
  return agents.length === 0 ? Object.keys(record.agents).length > 0 : agents.every((name) => names.versionIn(record, name) !== undefined);
}

function describe(record: LedgerRecord): string {
  const commit = record.source.commit ? ` (commit ${shortCommit(record.source.commit, record.source.uncommitted)})` : '';
  return `${record.id}${commit}`;
}

function ambiguous(ref: string, matches: readonly LedgerRecord[], what: string): VoxformError {
  return new VoxformError('history_ref_ambiguous', `"${ref}" matches ${what}: ${someOf(matches.map(describe), LISTED)}.`, { hint: 'Give more characters of the id or the commit.' });
}

/**
 * Whether a record holds a whole configuration, not some agents of one: a heal (`drift --heal`)
 * holds only the agents it put back, and those as an earlier record holds them, so the
 * configuration as of a heal is that earlier record's; a rollback of some agents (`--agent`)
 * holds those alone, beside agents that kept a newer configuration; so does a rollback to a record
 * that was not whole itself (an apply that failed or was interrupted holds the agents it wrote).
 * Asked for some agents, a rollback of them is whole enough. `byId`: the workspace's records by id.
 */
class WholeConfigurations {
  /** Each record's answer, and those of the records its rollback chain passed through: a ledger of rollbacks of rollbacks (a planted one) is walked once. */
  private readonly known = new Map<LedgerRecord, boolean>();

  constructor(
    private readonly byId: ReadonlyMap<string, LedgerRecord>,
    private readonly agents: readonly string[],
    private readonly names: AgentNames,
  ) {}

  of(record: LedgerRecord): boolean {
    const chain: LedgerRecord[] = [];
    let current = record;
    let whole = this.known.get(current);
    while (whole === undefined) {
      chain.push(current);
      const restored = this.restoredBy(current);
      if (current.source.healOf !== undefined) whole = false;
      else if (restored === undefined) whole = true;
      else if (!COMPLETE.has(restored.outcome) || !this.holdsAll(current, restored)) whole = false;
      else {
        current = restored;
        whole = this.known.get(current);
      }
    }
    // Every record of the chain is whole just when the chain's end is.
    for (const visited of chain) this.known.set(visited, whole);
    return whole;
  }

  /** The earlier record `record` rolled back to, when it is one whose wholeness counts; only an earlier record is followed: one naming itself or a later one ends the walk. */
  private restoredBy(record: LedgerRecord): LedgerRecord | undefined {
    const restoredId = record.source.rollbackOf;
    if (restoredId === undefined || this.agents.length > 0) return undefined;
    const restored = this.byId.get(restoredId);
    return restored !== undefined && ledgerOrder(restored, record) < 0 ? restored : undefined;
  }

  /** Whether `record` holds every agent of `restored`, each under its names now. */
  private holdsAll(record: LedgerRecord, restored: LedgerRecord): boolean {
    return Object.entries(restored.agents).every(([name, version]) => this.names.namesNow(name, version).every((nameNow) => this.names.versionIn(record, nameNow) !== undefined));
  }
}

/**
 * `previous`, from `records` (newest first): the current configuration is each agent's in the
 * newest record holding it; the answer is the newest complete record after the newest one, holding
 * the agents asked for, in which some of them differs in what a rollback restores (`restorableKey`).
 * Applies with nothing to do repeat the current configuration, and records that differ only in what
 * a rollback leaves as it is (knowledge files) would restore nothing: both are passed over, so
 * `previous` is never a no-op. Only a record that
 * is a whole configuration is returned to (`WholeConfigurations`): a rollback never ends in a mix of
 * agents never deployed together. An agent is the one its name stands for now, followed by its id
 * to its records under an earlier key (`AgentNames`).
 */
export function previousRecord<R extends LedgerRecord>(records: readonly R[], agents: readonly string[] = [], historyCommand = DEFAULT_HISTORY_COMMAND, agentNames = new AgentNames(records)): R {
  const known = new Set(records.flatMap((record) => Object.keys(record.agents)));
  const unknown = agents.find((name) => !records.some((record) => agentNames.versionIn(record, name) !== undefined));
  if (unknown !== undefined) {
    throw new VoxformError('rollback_agent_not_recorded', `No history record of this workspace holds agent "${unknown}"${agentNames.anotherAgentNote(unknown, records.find((record) => Object.hasOwn(record.agents, unknown))?.agents[unknown]?.id)}.`, {
      hint: known.size > 0 ? `The recorded agents are: ${[...known].sort().join(', ')}.` : 'Nothing is recorded yet: every `voxform apply` adds a record.',
    });
  }
  const relevant = records.filter((record) => (agents.length === 0 ? true : agents.some((name) => agentNames.versionIn(record, name) !== undefined)));
  const names = agents.length > 0 ? agents : [...new Set(relevant.flatMap((record) => Object.entries(record.agents).flatMap(([name, version]) => agentNames.namesNow(name, version))))];
  // Asked for no agent, a record is asked of the names its own agents have now, not of every name:
  // a ledger of thousands of agents (a planted one) would cost their number for each record.
  const asked = new Set(names);
  const namesHeld = (record: R) => (agents.length > 0 ? names : [...new Set(Object.values(record.agents).flatMap((version) => agentNames.namesOf(version.id)))].filter((name) => asked.has(name)));
  const current = new Map<string, string>();
  for (const record of relevant) {
    for (const name of namesHeld(record)) {
      const version = agentNames.versionIn(record, name);
      if (!current.has(name) && version) current.set(name, restorableKeyOf(version));
    }
  }
  const differs = (record: R, name: string) => {
    const version = agentNames.versionIn(record, name);
    return version !== undefined && restorableKeyOf(version) !== current.get(name);
  };
  const byId = new Map<string, LedgerRecord>();
  for (const record of records) if (!byId.has(record.id)) byId.set(record.id, record);
  const whole = new WholeConfigurations(byId, agents, agentNames);
  const found = relevant.slice(1).find((record) => COMPLETE.has(record.outcome) && whole.of(record) && holdsAgents(record, agents, agentNames) && namesHeld(record).some((name) => differs(record, name)));
  if (!found) {
    const whose = agents.length > 0 ? ` of ${agents.join(', ')}` : '';
    throw new VoxformError('history_ref_unknown', `The history holds no earlier configuration${whose} to roll back to (${plural(records.length, 'record')} in this workspace).`, {
      hint: refHint(historyCommand),
    });
  }
  return found;
}

/**
 * The record REF names, from `records` of one workspace, newest first; `historyCommand` is what
 * refusals name to list them; `agentNames` follows renamed keys (by default from the records alone).
 */
export function resolveHistoryRef<R extends LedgerRecord>(records: readonly R[], ref: string, agents: readonly string[] = [], historyCommand = DEFAULT_HISTORY_COMMAND, agentNames = new AgentNames(records)): R {
  const wanted = ref.trim();
  if (wanted === 'previous') return previousRecord(records, agents, historyCommand, agentNames);
  if (wanted === '') throw new VoxformError('history_ref_unknown', 'The reference is empty.', { hint: refHint(historyCommand) });
  const exact = records.find((record) => record.id === wanted);
  if (exact) return exact;
  const byId = records.filter((record) => record.id.startsWith(wanted));
  const lower = wanted.toLowerCase();
  const byCommit = COMMIT_PREFIX.test(wanted) ? records.filter((record) => record.source.commit?.startsWith(lower)) : [];
  if (byId.length > 0 && byCommit.length > 0) throw ambiguous(wanted, [...byId, ...byCommit], 'both record ids and commits');
  if (byId.length > 1) throw ambiguous(wanted, byId, `${byId.length} records`);
  if (byId.length === 1) return byId[0] as R;
  const commits = new Set(byCommit.map((record) => record.source.commit));
  if (commits.size > 1) throw ambiguous(wanted, byCommit, `${commits.size} commits`);
  if (byCommit.length === 0) throw new VoxformError('history_ref_unknown', `No history record of this workspace is "${wanted}" or has a commit starting with it.`, { hint: refHint(historyCommand) });
  return commitRecord(byCommit, historyCommand);
}

/**
 * The record of a commit's configuration, from the records of that one commit (newest first). A
 * rollback's (or a heal's) record carries the commit checked out when it ran, but holds other records'
 * configurations: only the applies of the commit's manifests count. Several of those (an apply, then
 * applies with nothing to do) hold the same configuration: the newest that applied completely, else
 * the newest. An apply made with uncommitted changes holds the commit's manifests and those changes,
 * so one made without them is preferred; when there is none, the newest with them is the nearest.
 */
function commitRecord<R extends LedgerRecord>(byCommit: readonly R[], historyCommand: string): R {
  const deploys = byCommit.filter((record) => record.source.rollbackOf === undefined && record.source.healOf === undefined);
  const newestComplete = (records: readonly R[]) => records.find((record) => COMPLETE.has(record.outcome)) ?? records[0];
  const found = newestComplete(deploys.filter((record) => record.source.uncommitted !== true)) ?? newestComplete(deploys);
  if (found) return found;
  const commit = (byCommit[0] as R).source.commit as string;
  throw new VoxformError('history_ref_unknown', `Commit ${commit.slice(0, 12)} was checked out only during rollbacks: no record holds the configuration of its manifests.`, {
    hint: `Give the id of the record to return to (\`${historyCommand}\` lists them), or apply the commit's manifests.`,
  });
}
