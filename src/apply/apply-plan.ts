/**
 * Executes a plan: changes in dependency order, independent ones in parallel (bounded), the state
 * file updated after each success, dependents of a failure skipped while everything else goes on.
 */
import type { Agent } from '../schema/types.gen.js';
import type { DesiredAgent, DesiredCampaign, DesiredCredential, DesiredKnowledgeFile, DesiredPhone, DesiredState } from '../manifest/types.js';
import type { StateStore } from '../state/state-file.js';
import type { WorkspaceState } from '../state/types.js';
import { buildAgentUpdate } from '../plan/update-body.js';
import { agentSensitivePatterns, comparableLiveAgent, desiredAgentFields, type LiveState } from '../plan/diff.js';
import { redactValue } from '../plan/redact.js';
import { getAtPath, splitPath } from '../plan/paths.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import { canonicalJson } from '../util/hash.js';
import { hashApplied } from '../state/types.js';
import type { ApplyClient } from './client.js';
import { Semaphore } from '../util/semaphore.js';

/** Notes a change of the state file's workspace, to be written once the change's requests are done. */
type RecordState = (mutate: (workspace: WorkspaceState) => void) => void;

export type ProgressEvent =
  | { type: 'start'; change: ResourceChange }
  | { type: 'done'; change: ResourceChange; ms: number }
  | { type: 'failed'; change: ResourceChange; error: unknown }
  | { type: 'skipped'; change: ResourceChange; because: string };

export interface ApplyResult {
  applied: string[];
  failed: Array<{ address: string; error: unknown }>;
  skipped: Array<{ address: string; because: string }>;
  /** Fields the service dropped or changed on read-back, and other things worth a look. */
  warnings: string[];
}

export interface ApplyOptions {
  plan: Plan;
  desired: DesiredState;
  live: LiveState;
  client: ApplyClient;
  store: StateStore;
  parallelism: number;
  onProgress?: (event: ProgressEvent) => void;
}

export async function applyPlan(options: ApplyOptions): Promise<ApplyResult> {
  const { plan, desired, client, store } = options;
  const result: ApplyResult = { applied: [], failed: [], skipped: [], warnings: [] };
  const slots = new Semaphore(Math.max(1, options.parallelism));
  const uploadedFileIds = new Map<string, string>(); // knowledge local name → new file id
  const outcome = new Map<string, Promise<boolean>>();
  const byAddress = new Map(plan.changes.map((c) => [c.address, c]));
  const emit = options.onProgress ?? (() => undefined);
  const desiredByAddress = indexByAddress(desired);
  /** The desired resource a change is about (every change of a plan comes from these manifests). */
  const resource = <K extends keyof DesiredByKind>(change: ResourceChange, kind: K): DesiredByKind[K] => {
    const found = desiredByAddress.get(change.address);
    if (!found || found.kind !== kind) throw new Error(`the plan names ${change.address}, which the manifests do not define`);
    return found as DesiredByKind[K];
  };

  const run = (change: ResourceChange): Promise<boolean> => {
    const existing = outcome.get(change.address);
    if (existing) return existing;
    const promise = (async () => {
      const deps = change.dependsOn.map((address) => byAddress.get(address)).filter((c): c is ResourceChange => c !== undefined);
      const depResults = await Promise.all(deps.map(run));
      const failedDep = deps.find((_, i) => !depResults[i]);
      if (failedDep) {
        const because = `${failedDep.address} did not apply`;
        result.skipped.push({ address: change.address, because });
        emit({ type: 'skipped', change, because });
        return false;
      }
      if (change.action === 'no-op') {
        await recordUnchanged(change);
        return true;
      }
      // The slot is held for the requests only: the state write that records the change happens
      // outside it, so a slow disk never holds back the service calls of other changes. The
      // change counts as applied once its state is on disk.
      const started = Date.now();
      const writes: Array<Promise<void>> = [];
      try {
        await slots.run(async () => {
          emit({ type: 'start', change });
          await execute(change, (mutate) => writes.push(store.update(mutate)));
        });
        await Promise.all(writes);
      } catch (error) {
        await Promise.allSettled(writes);
        result.failed.push({ address: change.address, error });
        emit({ type: 'failed', change, error });
        return false;
      }
      result.applied.push(change.address);
      emit({ type: 'done', change, ms: Date.now() - started });
      return true;
    })();
    outcome.set(change.address, promise);
    return promise;
  };

  /** Remember what is applied even when nothing had to change, so later drift can be told apart. */
  const recordUnchanged = async (change: ResourceChange) => {
    if (change.kind === 'agent') {
      const agent = resource(change, 'agent');
      const live = options.live.agents.get(agent.id);
      if (!live) return;
      const applied = appliedHashes(agent, store.fingerprintKey);
      // Unchanged, so the attached files are the desired ones: remember them for drift too.
      if (agent.knowledge !== undefined) applied.knowledge = hashApplied(store.fingerprintKey, getAtPath(live.config, ['knowledge_base', 'files']) ?? []);
      await store.update((ws) => (ws.agents[change.address] = { id: agent.id, applied }));
    } else if (change.kind === 'phone') {
      const phone = resource(change, 'phone');
      if (phone.agent) {
        const previous = store.workspace.phones[change.address];
        await store.update((ws) => (ws.phones[change.address] = { agentId: phone.agent?.id, imported: previous?.imported ?? false }));
      }
    }
  };

  /** Makes one change on the service; `record` notes what to keep in the state file (written outside the slot). */
  const execute = async (change: ResourceChange, record: RecordState): Promise<void> => {
    switch (change.kind) {
      case 'credential': {
        const credential = resource(change, 'credential');
        await client.setCredential({ provider: credential.provider, api_key: credential.apiKey });
        record((ws) => (ws.credentials[change.address] = { fingerprint: hashApplied(store.fingerprintKey, credential.fingerprint) }));
        return;
      }
      case 'knowledge': {
        const file = resource(change, 'knowledge');
        const fileId = await client.uploadKnowledgeFile(file.path, { name: file.name, description: file.description });
        uploadedFileIds.set(file.localName, fileId);
        record(
          (ws) => (ws.knowledge[change.address] = { fileId, contentHash: file.contentHash, name: file.name, description: file.description }),
        );
        return;
      }
      case 'agent':
        return applyAgent(change, record);
      case 'phone': {
        const phone = resource(change, 'phone');
        if (change.action === 'create' && phone.import) {
          await client.importPhone({ phone: phone.number, ...phone.import });
          record((ws) => (ws.phones[change.address] = { agentId: undefined, imported: true }));
        }
        if (phone.agent) {
          await client.setPhoneAgent(phone.number, phone.agent.id);
          record((ws) => (ws.phones[change.address] = { agentId: phone.agent?.id, imported: ws.phones[change.address]?.imported ?? false }));
        }
        return;
      }
      case 'campaign': {
        const campaign = resource(change, 'campaign');
        const changed = new Set(change.fieldChanges.map((f) => f.path));
        if (changed.has('name') || changed.has('include_metadata_in_prompt')) {
          const body: { name?: string; include_metadata_in_prompt?: boolean } = {};
          if (campaign.name !== undefined) body.name = campaign.name;
          if (campaign.include_metadata_in_prompt !== undefined) body.include_metadata_in_prompt = campaign.include_metadata_in_prompt;
          await client.editCampaignInfo(campaign.id, body);
        }
        if (changed.has('caller') && campaign.caller !== undefined) await client.setCampaignCaller(campaign.id, campaign.caller);
        record((ws) => (ws.campaigns[change.address] = { id: campaign.id, applied: { ...(change.after ?? {}) } }));
        return;
      }
    }
  };

  const applyAgent = async (change: ResourceChange, record: RecordState): Promise<void> => {
    const agent = resource(change, 'agent');
    let live = options.live.agents.get(agent.id)!;
    const body = buildAgentUpdate(agent, live);
    if (body) {
      await client.updateAgent(agent.id, body);
      live = await client.getAgent(agent.id);
      result.warnings.push(...readBackDifferences(agent, live));
    }
    let knowledgeIds: string[] | undefined;
    if (agent.knowledge !== undefined && change.fieldChanges.some((f) => f.path === 'knowledge')) {
      knowledgeIds = agent.knowledge.map((localName) => {
        const uploaded = uploadedFileIds.get(localName);
        const known = store.workspace.knowledge[`knowledge.${localName}`]?.fileId;
        return (uploaded ?? known) as string;
      });
      const messages = getAtPath(live.config, ['knowledge_base', 'messages']);
      await client.setAgentFiles({ agent_id: agent.id, files: knowledgeIds, ...(Array.isArray(messages) ? { messages: messages as string[] } : {}) });
    }
    record((ws) => {
      const applied = appliedHashes(agent, store.fingerprintKey);
      if (knowledgeIds) applied.knowledge = hashApplied(store.fingerprintKey, knowledgeIds);
      else if (ws.agents[change.address]?.applied.knowledge) applied.knowledge = ws.agents[change.address]!.applied.knowledge!;
      ws.agents[change.address] = { id: agent.id, applied };
    });
  };

  await Promise.all(plan.changes.map(run));
  return result;
}


type DesiredByKind = {
  agent: DesiredAgent;
  phone: DesiredPhone;
  campaign: DesiredCampaign;
  knowledge: DesiredKnowledgeFile;
  credential: DesiredCredential;
};

function indexByAddress(desired: DesiredState): Map<string, DesiredByKind[keyof DesiredByKind]> {
  const all = [desired.agents, desired.phones, desired.campaigns, desired.knowledge, desired.credentials].flatMap((map) => [...map.values()]);
  return new Map(all.map((r) => [r.address, r]));
}

/** Hashes of the desired managed values: what "voxform last applied" means for drift detection. */
function appliedHashes(agent: DesiredAgent, salt: string): Record<string, string> {
  const applied: Record<string, string> = {};
  for (const [path, value] of desiredAgentFields(agent)) applied[path] = hashApplied(salt, value);
  return applied;
}

/** Managed fields whose read-back value is not what was sent: the service dropped or rewrote them. */
export function readBackDifferences(agent: DesiredAgent, live: Agent): string[] {
  const comparable = comparableLiveAgent(live);
  const warnings: string[] = [];
  for (const [path, value] of desiredAgentFields(agent)) {
    const actual = getAtPath(comparable, splitPath(path));
    const same = value === null ? actual === undefined || actual === null : canonicalJson(value) === canonicalJson(actual);
    if (same) continue;
    const patterns = agentSensitivePatterns(agent);
    const sent = JSON.stringify(redactValue(value, path, patterns));
    const kept = actual === undefined ? 'nothing' : JSON.stringify(redactValue(actual, path, patterns));
    const shown = sent === kept ? '' : `: sent ${sent}, the service has ${kept}`;
    warnings.push(`${agent.address}: the service did not keep ${path} as applied${shown}.`);
  }
  return warnings;
}
