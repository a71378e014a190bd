/**
 * The deploy ledger's side of apply: each agent's live configuration once the plan ran, and the
 * record appended. An agent left alone is as planned (left out when it does not hold the manifests'
 * values); an updated one as its read-back found it; only one whose files were set after that
 * read-back, or whose change failed or stopped, is read again. After a stop (or when that read
 * fails) an agent whose files were set is as read before them, with the files and messages sent.
 */
import { agentVersion, historyRecord } from '../history/record.js';
import { isPlainObject } from '../util/json-object.js';
import type { AgentVersion, DeploySource, HistoryRecord, HistoryStore } from '../history/types.js';
import type { LedgerSealKey } from '../history/seal.js';
import type { DesiredAgent, DesiredState } from '../manifest/types.js';
import type { LiveState } from '../plan/read-live.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import type { ApplyClient } from './client.js';
import { fieldsNotAsDesired } from './read-back.js';
import type { ExecuteResult, RequestDone } from './execute-plan.js';

/** Collects, while the plan runs, the versions of agents read back and which agents had files set. */
export class AgentReadBacks {
  /** By change address: the version made from the agent's read-back. */
  private readonly versions = new Map<string, AgentVersion | undefined>();
  /** By change address: the agent's config as read back after its update. */
  private readonly readBackConfigs = new Map<string, Record<string, unknown>>();
  /** By change address: the body of its `set_agent_files` as sent (file ids, and messages when given). */
  private readonly filesSent = new Map<string, Record<string, unknown>>();
  private readonly agents: Map<string, DesiredAgent>;

  constructor(desired: DesiredState) {
    this.agents = new Map([...desired.agents.values()].map((agent) => [agent.address, agent]));
  }

  readonly onRequestDone = (done: RequestDone): void => {
    const address = done.change.address;
    if (done.result && 'agent' in done.result) {
      const desired = this.agents.get(address);
      const agent = done.result.agent;
      this.versions.set(address, desired && agent.config ? versionOrNone(desired, agent.config as Record<string, unknown>) : undefined);
      if (isPlainObject(agent.config)) this.readBackConfigs.set(address, agent.config);
    }
    if (done.request.operation === 'set_agent_files') this.filesSent.set(address, done.body ?? {});
  };

  /** The record's version of an applied change's agent, from its read-back, unless something changed the agent after it. */
  currentVersion(address: string): AgentVersion | undefined {
    return this.filesSent.has(address) ? undefined : this.versions.get(address);
  }

  /**
   * The config of an agent whose knowledge files were set, without reading it again: as read before
   * (the read-back after its update, or the plan's read when the change sent no update), with
   * `knowledge_base.files` and `messages` as sent, which is all `set_agent_files` sets
   * (docs/service-api.md). Undefined when no such read is known (an update not read back).
   */
  configWithFilesSent(change: ResourceChange, planned: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    const sent = this.filesSent.get(change.address);
    if (!sent) return undefined;
    const updated = change.requests.some((request) => request.operation === 'update_agent');
    const before = updated ? this.readBackConfigs.get(change.address) : planned;
    if (!before) return undefined;
    const knowledgeBase = isPlainObject(before.knowledge_base) ? before.knowledge_base : {};
    const setNow = sent.messages === undefined ? { files: sent.files } : { files: sent.files, messages: sent.messages };
    return { ...before, knowledge_base: { ...knowledgeBase, ...setNow } };
  }
}

interface HistoryContext {
  history: HistoryStore;
  /** The key the record is sealed under: the run's API key's (src/history/seal.ts). */
  sealKey: LedgerSealKey;
  desired: DesiredState;
  plan: Plan;
  live: LiveState;
  result: ExecuteResult;
  readBacks: AgentReadBacks;
  client: ApplyClient;
  workspace: string;
  outcome: string;
  command: string;
  by: string;
  source: DeploySource;
  /** Once aborted, no agent is read again: those whose state is unknown are left out of the record (see `configWithFilesSent`). */
  signal?: AbortSignal | undefined;
}

/** A failure here must not fail a request that succeeded: without a version the agent is read again. */
function versionOrNone(agent: DesiredAgent, config: Record<string, unknown>): AgentVersion | undefined {
  try {
    return agentVersion(agent, config);
  } catch {
    return undefined;
  }
}

/**
 * The agent's live configuration where no read-back gives it: as planned when left alone, else read
 * again (after a stop, or when that read fails, an applied change's from what it sent: `configWithFilesSent`). An agent this apply did not change (one `--target` left out of the plan), or whose change did
 * not apply, counts only if the service holds the manifests' values: a record holds what an agent
 * runs, never a manifest's configuration the service does not have.
 */
async function liveConfigAfter(agent: DesiredAgent, change: ResourceChange | undefined, context: HistoryContext, appliedChanges: ReadonlySet<string>): Promise<Record<string, unknown> | undefined> {
  const planned = context.live.agents.get(agent.id);
  // Planned unchanged: the plan found the service holding the manifests' values.
  if (change?.action === 'no-op') return planned?.config as Record<string, unknown> | undefined;
  if (!change) return planned && fieldsNotAsDesired(agent, planned).length === 0 ? (planned.config as Record<string, unknown>) : undefined;
  const applied = appliedChanges.has(change.address);
  // Its writes all landed: without another read, it is what was read before them plus the files sent.
  const known = () => (applied ? context.readBacks.configWithFilesSent(change, planned?.config as Record<string, unknown> | undefined) : undefined);
  if (context.signal?.aborted) return known();
  try {
    const live = await context.client.getAgent(agent.id);
    if (!applied && fieldsNotAsDesired(agent, live).length > 0) return undefined;
    return live.config as Record<string, unknown>;
  } catch {
    return known();
  }
}

/** `appliedChanges`: the result's `applied` as a set, made once: every agent asks it. */
async function versionAfter(agent: DesiredAgent, change: ResourceChange | undefined, context: HistoryContext, appliedChanges: ReadonlySet<string>): Promise<AgentVersion | undefined> {
  const config = await liveConfigAfter(agent, change, context, appliedChanges);
  return config ? agentVersion(agent, config) : undefined;
}

/**
 * Every agent of the manifests as the apply left it, by local name (an agent whose state is unknown,
 * or not the manifests', left out), and the addresses of those left out whose writes reached the
 * service (they could not be read after the apply): until a later record holds them, the history
 * takes their earlier configuration for current.
 */
async function agentVersions(context: HistoryContext): Promise<{ versions: Record<string, AgentVersion>; writtenLeftOut: string[] }> {
  const changes = new Map(context.plan.changes.map((change) => [change.address, change]));
  const applied = new Set(context.result.applied);
  // Stopped before its knowledge files were set: as read back, without the files.
  const partly = new Set(context.result.partlyApplied.map((change) => change.address));
  // None of its writes is known to be accepted: the manifest's configuration is not what it has.
  const stopped = new Set(context.result.stopped);
  const agents = [...context.desired.agents.values()];
  const made = await Promise.all(
    agents.map(async (agent) => {
      const change = changes.get(agent.address);
      if (change && change.action !== 'no-op' && stopped.has(change.address)) return { agent, written: false, version: undefined };
      const written = change !== undefined && change.action !== 'no-op' && (applied.has(change.address) || partly.has(change.address));
      const readBack = written ? context.readBacks.currentVersion(agent.address) : undefined;
      const version = readBack ? (partly.has(agent.address) ? { ...readBack, knowledge: undefined } : readBack) : await versionAfter(agent, change, context, applied);
      // Said, as what it wrote may read as before: a value from `${env:…}` is recorded as its reference.
      return { agent, written, version: version && written ? { ...version, written: true as const } : version };
    }),
  );
  const versions: Record<string, AgentVersion> = {};
  const writtenLeftOut: string[] = [];
  for (const { agent, written, version } of made) {
    if (version) versions[agent.localName] = version;
    else if (written) writtenLeftOut.push(agent.address);
  }
  return { versions, writtenLeftOut };
}

/** Appends the apply's record to the ledger; `writtenLeftOut`: the agents it wrote that the record leaves out (`agentVersions`). */
export async function recordHistory(context: HistoryContext): Promise<{ record: HistoryRecord; writtenLeftOut: string[] }> {
  const { result } = context;
  const { versions, writtenLeftOut } = await agentVersions(context);
  const record = historyRecord({
    workspace: context.workspace,
    at: new Date(),
    by: context.by,
    command: context.command,
    outcome: context.outcome,
    source: context.source,
    planned: context.plan.summary,
    counts: { applied: result.applied.length, partlyApplied: result.partlyApplied.length, failed: result.failed.length, skipped: result.skipped.length, notApplied: result.stopped.length },
    agents: versions,
  });
  return { record: await context.history.append(record, context.sealKey), writtenLeftOut };
}
