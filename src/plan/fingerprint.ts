/** Live fingerprints: what a change was computed from, hashed, so a saved plan is checked without planning again. */
import type { DesiredAgent, DesiredState } from '../manifest/types.js';
import type { WorkspaceState } from '../state/types.js';
import { hashApplied } from '../state/types.js';
import { comparableLiveAgent, type ComparableAgent } from './agent-fields.js';
import { valueAtPath } from '../util/field-path.js';
import type { LiveState } from './read-live.js';

/** Keyed: live values can hold secrets, and a saved plan must not carry a hash of one testable offline. */
export function fingerprint(key: string, manifestHash: string, live: unknown): string {
  return hashApplied(key, [manifestHash, live]);
}

/**
 * An agent's fingerprint covers each top-level config key the manifest sets, whole: its update body
 * sends those subtrees back, so a change next to a managed field makes the plan stale, not overwritten.
 */
export function agentFingerprinted(agent: DesiredAgent, comparable: ComparableAgent | undefined, liveFiles: unknown): unknown {
  if (!comparable) return null;
  const config: Record<string, unknown> = {};
  for (const key of Object.keys(agent.config)) config[key] = comparable.config[key];
  return { name: comparable.name, config, ...(agent.knowledge !== undefined ? { knowledge: liveFiles } : {}) };
}

/**
 * The live files of an agent (`knowledge_base.files`), as the differ compares them: the ids the list
 * holds. Anything else the service sent there (an object, a number in the list) names no file
 * voxform can attach, so the plan sets the files the manifest names in its place.
 */
export function liveKnowledgeFiles(config: unknown): string[] {
  const files = valueAtPath(config, ['knowledge_base', 'files']);
  return Array.isArray(files) ? files.filter((file): file is string => typeof file === 'string') : [];
}

/** Every resource's fingerprint from the service and the state as they are now. */
export function liveFingerprints(desired: DesiredState, live: LiveState, state: WorkspaceState, key: string): Map<string, string> {
  const out = new Map<string, string>();
  const hash = (value: unknown) => fingerprint(key, desired.manifestHash, value);
  for (const agent of desired.agents.values()) {
    const liveAgent = live.agents.get(agent.id);
    out.set(agent.address, hash(agentFingerprinted(agent, liveAgent && comparableLiveAgent(liveAgent), liveKnowledgeFiles(liveAgent?.config))));
  }
  const phones = new Map(live.phones.map((p) => [p.id, p]));
  for (const phone of desired.phones.values()) {
    const livePhone = phones.get(phone.number);
    out.set(phone.address, hash(livePhone ? { agent_id: livePhone.agent_id } : null));
  }
  for (const campaign of desired.campaigns.values()) out.set(campaign.address, hash(state.campaigns[campaign.address] ?? null));
  for (const file of desired.knowledge.values()) out.set(file.address, hash(state.knowledge[file.address] ?? null));
  for (const credential of desired.credentials.values()) out.set(credential.address, hash(state.credentials[credential.address] ?? null));
  return out;
}
