/**
 * The deploy ledger's side of apply: what each agent's live configuration is once the plan has
 * run, found as cheaply as is correct — and the record appended. An agent the plan left alone is
 * as the plan read it; an agent whose update applied is as the read-back after its update found it
 * (`read_agent`, part of every agent update's requests); only an agent whose knowledge files were
 * set (after that read-back), or whose change failed or was stopped, is read once more.
 */
import { agentVersion } from '../history/record.js';
import { historyRecord } from '../history/record.js';
import type { AgentVersion, DeploySource, HistoryRecord, HistoryStore } from '../history/types.js';
import type { DesiredAgent, DesiredState } from '../manifest/types.js';
import type { LiveState } from '../plan/read-live.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import type { Agent } from '../schema/types.gen.js';
import type { ApplyClient } from './client.js';
import type { ExecuteResult, RequestDone } from './execute-plan.js';

/** Collects, while the plan runs, the read-backs of agent updates and which agents had files set. */
export class AgentReadBacks {
  private readonly readBacks = new Map<string, Agent>();
  private readonly filesSet = new Set<string>();

  readonly onRequestDone = (done: RequestDone): void => {
    if (done.result && 'agent' in done.result) this.readBacks.set(done.change.address, done.result.agent);
    if (done.request.operation === 'set_agent_files') this.filesSet.add(done.change.address);
  };

  /** The read-back of an applied change, unless something changed the agent after it. */
  current(address: string): Agent | undefined {
    return this.filesSet.has(address) ? undefined : this.readBacks.get(address);
  }
}

export interface HistoryContext {
  history: HistoryStore;
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
  /** Once aborted, no agent is read again: those whose state is unknown are left out of the record. */
  signal?: AbortSignal | undefined;
}

async function liveConfigAfter(agent: DesiredAgent, change: ResourceChange | undefined, context: HistoryContext): Promise<Record<string, unknown> | undefined> {
  const planned = context.live.agents.get(agent.id);
  if (!change || change.action === 'no-op') return planned?.config as Record<string, unknown> | undefined;
  const readBack = context.result.applied.includes(change.address) ? context.readBacks.current(change.address) : undefined;
  if (readBack) return readBack.config as Record<string, unknown>;
  if (context.signal?.aborted) return undefined;
  try {
    return (await context.client.getAgent(agent.id)).config as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Every agent of the manifests as the apply left it, by local name (an agent whose state is unknown left out). */
async function agentVersions(context: HistoryContext): Promise<Record<string, AgentVersion>> {
  const changes = new Map(context.plan.changes.map((change) => [change.address, change]));
  const agents = [...context.desired.agents.values()];
  const configs = await Promise.all(agents.map((agent) => liveConfigAfter(agent, changes.get(agent.address), context)));
  const versions: Record<string, AgentVersion> = {};
  agents.forEach((agent, index) => {
    const config = configs[index];
    if (config) versions[agent.localName] = agentVersion(agent, config);
  });
  return versions;
}

/** Appends the apply's record to the ledger. */
export async function recordHistory(context: HistoryContext): Promise<HistoryRecord> {
  const { result } = context;
  const record = historyRecord({
    workspace: context.workspace,
    at: new Date(),
    by: context.by,
    command: context.command,
    outcome: context.outcome,
    source: context.source,
    plan: context.plan,
    counts: { applied: result.applied.length, failed: result.failed.length, skipped: result.skipped.length },
    agents: await agentVersions(context),
  });
  return context.history.append(record);
}
