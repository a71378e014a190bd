/**
 * What is live on the service, each entry marked with the manifest address that manages it or as
 * unmanaged: the first question of a team adopting voxform. Phones come from the service's list. The
 * service has no list of agents, so agents are gathered from three sources — the agents the manifests
 * name, the agents the phones answer with, and the agents of the latest calls — and the report says so.
 */
import type { ApiClient } from '../api/index.js';
import { agentNamesOnService } from '../api/agent-if-exists.js';
import type { GlobalCallHistoryRecord } from '../schema/types.gen.js';
import { REDACTED } from '../secrets/redact.js';
import { byCodeUnits } from '../util/compare.js';
import { phoneHolders } from '../plan/shared-resources.js';
import { stateSourceJson, type InventoryState, type StateSourceJson } from './state-records.js';

/** Calls read for agents, newest first: an account's whole call history can be huge. */
const CALLS_READ_FOR_AGENTS = 1000;

export const INVENTORY_FORMAT_VERSION = 1;

type InventoryReader = Pick<ApiClient, 'listPhones' | 'getAgent' | 'iterateCallLogs'>;

/** What the manifests manage: agent ids by local name, and phone numbers. */
export interface ManagedResources {
  agents: ReadonlyMap<string, string>;
  phones: ReadonlySet<string>;
  /**
   * The agents' ids by local name of each other environment of the manifests (all of them without
   * --env): an agent one of them gives is that environment's, not unmanaged.
   */
  otherEnvironments?: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

export interface LivePhone {
  number: string;
  status: string | null;
  agent_id: string | null;
  /** The bound agent's name on the service; null when the phone has no agent, the agent is gone, or it has no name that is text. */
  agent_name: string | null;
  /** Whether the service has the bound agent (it tells a nameless agent from a gone one); null when the phone has no agent. */
  agent_exists: boolean | null;
  /** The address of the manifest entry that manages the number (`phone.+15551230001`), or null. */
  managed_by: string | null;
  /**
   * Another environment of the service whose last apply bound the number to the agent it answers
   * with (the state tells): `managed_by` is its address there. Null when this run's environment did,
   * or none recorded.
   */
  environment: string | null;
}

/** `named`: none of the three sources reached it, and the user asked for its id. */
type AgentSource = 'manifest' | 'phone' | 'call' | 'named';

export interface LiveAgent {
  id: string;
  /** The agent's name on the service; null when the service has no agent of this id. */
  name: string | null;
  /** False when a manifest or a call names an id the service does not have (any more). */
  exists: boolean;
  /** The address of the manifest entry that manages the agent (`agent.front-desk`), or null. */
  managed_by: string | null;
  /** The other environment of the manifests whose agent it is (`managed_by` is its address there); null for this run's own, or an unmanaged one. */
  environment: string | null;
  /** How the agent was found, in this order: a manifest names it, a phone answers with it, a call ran with it; else `named` alone. */
  found_through: AgentSource[];
  /** The numbers that answer with this agent. */
  phones: string[];
}

export interface PhonesReport {
  format_version: number;
  kind: 'phones';
  phones: LivePhone[];
  /** The state read for which environment holds each number. */
  sources: { state: StateSourceJson };
}

export interface AgentsReport {
  format_version: number;
  kind: 'agents';
  agents: LiveAgent[];
  /** Where the agents were looked for: the service cannot list them. */
  sources: { manifest_agents: number; phones: number; calls_read: number; more_calls: boolean };
}

/**
 * Whether a live agent's name is a secret (an apply filled it from `${env:…}`, the deploy ledger
 * says): it is withheld whole, before anything is sorted by it. Told every name read, so that what
 * a name holds of the operator's secrets is scrubbed too.
 */
export type SecretName = (agent: { id: string; name: string }) => boolean;

/** The names on the service of the agents of `ids` it has (null for one without a name), a secret one as `(sensitive)`. */
export async function namesShown(client: InventoryReader, ids: ReadonlySet<string>, secretName: SecretName): Promise<Map<string, string | null>> {
  const names = await agentNamesOnService(client, ids);
  for (const [id, name] of names) if (name !== null && secretName({ id, name })) names.set(id, REDACTED);
  return names;
}

/** Every number of the service's phone list, with its agent's name; `state.workspaces` tell which environment holds each. */
export async function readLivePhones(client: InventoryReader, managed: ManagedResources, state: InventoryState, secretName: SecretName): Promise<PhonesReport> {
  const phones = await client.listPhones();
  const names = await namesShown(client, new Set(phones.flatMap((phone) => (phone.agent_id ? [phone.agent_id] : []))), secretName);
  const { workspaces } = state;
  const own = workspaces[0]?.environment;
  return {
    format_version: INVENTORY_FORMAT_VERSION,
    kind: 'phones',
    phones: phones
      .map((phone) => {
        const address = `phone.${phone.id}`;
        const holders = phone.agent_id ? phoneHolders(address, phone.agent_id, workspaces) : [];
        // The run's own environment first: a number it holds is its own, whoever else bound it alike.
        const environment = holders.length > 0 && holders[0] !== own ? holders[0]! : null;
        // An empty agent id is no agent, as for the names and holders above.
        const agentId = phone.agent_id || null;
        return {
          number: phone.id,
          status: phone.status ?? null,
          agent_id: agentId,
          agent_name: (agentId && names.get(agentId)) || null,
          agent_exists: agentId === null ? null : names.has(agentId),
          managed_by: managed.phones.has(phone.id) || environment !== null ? address : null,
          environment,
        };
      })
      .sort((a, b) => byCodeUnits(a.number, b.number)),
    sources: { state: stateSourceJson(state) },
  };
}

/** 0: managed by this run's manifests; 1: by another environment of theirs; 2: unmanaged. */
function rank(agent: Pick<LiveAgent, 'managed_by' | 'environment'>): number {
  return agent.managed_by === null ? 2 : agent.environment === null ? 0 : 1;
}

/** The agents the manifests, the phones and the latest calls name; `extra` adds ids found otherwise (an id the user named). */
export async function readLiveAgents(client: InventoryReader, managed: ManagedResources, secretName: SecretName, extra: readonly string[] = []): Promise<AgentsReport> {
  const found = new Map<string, { sources: Set<AgentSource>; phones: string[] }>();
  const note = (id: string, source: AgentSource, phone?: string) => {
    const entry = found.get(id) ?? { sources: new Set<AgentSource>(), phones: [] };
    entry.sources.add(source);
    if (phone) entry.phones.push(phone);
    found.set(id, entry);
  };
  for (const id of managed.agents.values()) note(id, 'manifest');
  const phones = await client.listPhones();
  for (const phone of phones) if (phone.agent_id) note(phone.agent_id, 'phone', phone.id);
  const { callsRead, moreCalls } = await eachLatestCall(client, (call) => {
    if (call.agent_id) note(call.agent_id, 'call');
  });
  for (const id of extra) if (!found.has(id)) note(id, 'named');

  const names = await namesShown(client, new Set(found.keys()), secretName);
  const managedBy = new Map([...managed.agents].map(([local, id]) => [id, `agent.${local}`]));
  const otherEnvironment = new Map<string, { environment: string; address: string }>();
  for (const [environment, agents] of managed.otherEnvironments ?? []) {
    for (const [local, id] of agents) if (!managedBy.has(id) && !otherEnvironment.has(id)) otherEnvironment.set(id, { environment, address: `agent.${local}` });
  }
  const order: AgentSource[] = ['manifest', 'phone', 'call', 'named'];
  const agents = [...found].map(([id, entry]) => ({
    id,
    name: names.get(id) ?? null,
    exists: names.has(id),
    managed_by: managedBy.get(id) ?? otherEnvironment.get(id)?.address ?? null,
    environment: otherEnvironment.get(id)?.environment ?? null,
    found_through: order.filter((source) => entry.sources.has(source)),
    phones: [...entry.phones].sort(byCodeUnits),
  }));
  return {
    format_version: INVENTORY_FORMAT_VERSION,
    kind: 'agents',
    // Managed first (this run's, then other environments'), then the rest by name: what the manifests hold, then what they do not.
    agents: agents.sort((a, b) => rank(a) - rank(b) || byCodeUnits(a.environment ?? '', b.environment ?? '') || byCodeUnits(a.managed_by ?? a.name ?? a.id, b.managed_by ?? b.name ?? b.id)),
    sources: { manifest_agents: managed.agents.size, phones: phones.length, calls_read: callsRead, more_calls: moreCalls },
  };
}

/** Hands `visit` the latest calls of the log, at most CALLS_READ_FOR_AGENTS; says how many, and whether the log holds more. */
export async function eachLatestCall(
  client: Pick<ApiClient, 'iterateCallLogs'>,
  visit: (call: GlobalCallHistoryRecord) => void,
): Promise<{ callsRead: number; moreCalls: boolean }> {
  let callsRead = 0;
  for await (const call of client.iterateCallLogs({}, { max: CALLS_READ_FOR_AGENTS + 1 })) {
    if (callsRead === CALLS_READ_FOR_AGENTS) return { callsRead, moreCalls: true };
    callsRead++;
    visit(call);
  }
  return { callsRead, moreCalls: false };
}
