/**
 * The differ: desired state + live state + what voxform last applied → a Plan. Pure: no I/O, no
 * clock (the caller stamps the plan), so it is tested table-driven with exact expectations.
 */
import type { Agent, Phone } from '../schema/types.gen.js';
import { flaggedPaths, schemaNode, stripToShape } from '../schema/introspect.js';
import type {
  DesiredAgent,
  DesiredCampaign,
  DesiredCredential,
  DesiredKnowledgeFile,
  DesiredPhone,
  DesiredState,
} from '../manifest/types.js';
import { hashApplied, type WorkspaceState } from '../state/types.js';
import { canonicalJson } from '../util/hash.js';
import { flattenLeaves, getAtPath, isAtOrUnder, splitPath } from './paths.js';
import {
  UNKNOWN_AFTER_APPLY,
  type ChangeReason,
  type FieldChange,
  type Plan,
  type ResourceChange,
  type ResourceKind,
} from './types.js';

/** What the service said when it was read: agents by id (or why one could not be read), and the phones. */
export interface LiveState {
  agents: Map<string, Agent>;
  phones: Phone[];
}

/** A resource the plan cannot be made for (an agent id the service does not know, …). */
export interface PlanProblem {
  address: string;
  message: string;
  file: string;
  line: number;
  col: number;
}

export interface DiffInput {
  desired: DesiredState;
  live: LiveState;
  state: WorkspaceState;
  /** The fingerprint key (`fingerprintKey` of src/util/hash.ts; a secret): the key of the state's hashes and of live fingerprints. */
  salt: string;
  baseUrl: string;
  /** Manifest files as shown to the user (relative). */
  files: string[];
  targets?: string[];
}

const KIND_ORDER: ResourceKind[] = ['credential', 'knowledge', 'agent', 'phone', 'campaign'];

let schemaSecretPatterns: string[] | undefined;
/** Schema-marked secrets of an agent (`config.tools[].header`, webhook headers, app credentials). */
function agentSchemaSecrets(): string[] {
  schemaSecretPatterns ??= flaggedPaths('AgentConfigUpdate', 'sensitive').map((p) => `config.${p}`);
  return schemaSecretPatterns;
}

/** Every sensitive path pattern of an agent's fields: the schema's, and those filled from `${env:…}`. */
export function agentSensitivePatterns(agent: DesiredAgent): string[] {
  return [...agentSchemaSecrets(), ...agent.sensitivePaths.map((p) => `config.${p}`)];
}

/**
 * The live fingerprint of a resource. Keyed with the fingerprint key: live values can hold secrets
 * (webhook headers), and a saved plan must not carry a hash of a short secret that could be tested
 * against guesses offline.
 */
function fingerprint(input: DiffInput, live: unknown): string {
  return hashApplied(input.salt, [input.desired.manifestHash, live]);
}

function equal(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** A desired value against the live one; `null` (clear) matches a field that is unset. */
function sameValue(desired: unknown, live: unknown): boolean {
  if (desired === null) return live === undefined || live === null;
  return equal(desired, live);
}

function change(
  base: Pick<ResourceChange, 'address' | 'kind' | 'id' | 'before' | 'after' | 'sensitivePaths' | 'dependsOn' | 'liveFingerprint'> & {
    fieldChanges: FieldChange[];
    create?: boolean;
    reason?: ChangeReason | undefined;
  },
): ResourceChange {
  const action = base.create ? 'create' : base.fieldChanges.length > 0 ? 'update' : 'no-op';
  const reason = action === 'no-op' ? undefined : (base.reason ?? (base.fieldChanges.some((f) => f.drift) ? 'drift' : undefined));
  return {
    address: base.address,
    kind: base.kind,
    action,
    id: base.id,
    before: base.before,
    after: base.after,
    fieldChanges: base.fieldChanges.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    sensitivePaths: base.sensitivePaths,
    reason,
    dependsOn: base.dependsOn,
    liveFingerprint: base.liveFingerprint,
  };
}

/** The managed field values of an agent: `name` and every leaf the manifest sets under `config`. */
export function desiredAgentFields(agent: DesiredAgent): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  if (agent.name !== undefined) fields.set('name', agent.name);
  for (const [path, value] of flattenLeaves(agent.config, 'config')) fields.set(path, value);
  for (const ignored of agent.ignore) for (const path of [...fields.keys()]) if (isAtOrUnder(path, ignored)) fields.delete(path);
  return fields;
}

/** The live agent as comparable to the manifest: read-only extras stripped (they are never managed). */
export function comparableLiveAgent(agent: Agent): { name: string; config: Record<string, unknown> } {
  const config = stripToShape(schemaNode('AgentConfigUpdate'), agent.config ?? {}) as Record<string, unknown>;
  return { name: agent.name, config };
}

function diffAgent(
  agent: DesiredAgent,
  live: Agent,
  input: DiffInput,
  knowledgeChanges: Map<string, ResourceChange>,
): ResourceChange {
  const comparable = comparableLiveAgent(live);
  const applied = input.state.agents[agent.address]?.applied ?? {};
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  const fieldChanges: FieldChange[] = [];
  const sensitivePaths = agentSensitivePatterns(agent);

  for (const [path, desiredValue] of desiredAgentFields(agent)) {
    const liveValue = getAtPath(comparable, splitPath(path));
    before[path] = liveValue;
    after[path] = desiredValue;
    if (sameValue(desiredValue, liveValue)) continue;
    fieldChanges.push({
      path,
      before: liveValue,
      after: desiredValue,
      sensitive: isSensitiveLeaf(path, sensitivePaths),
      drift: applied[path] !== undefined && applied[path] === hashApplied(input.salt, desiredValue),
    });
  }

  const dependsOn: string[] = [];
  if (agent.knowledge !== undefined) {
    const liveFiles = (getAtPath(live.config, ['knowledge_base', 'files']) as string[] | undefined) ?? [];
    const desiredFiles = agent.knowledge.map((localName) => {
      const fileChange = knowledgeChanges.get(localName);
      if (!fileChange) return UNKNOWN_AFTER_APPLY;
      if (fileChange.action !== 'no-op') {
        dependsOn.push(fileChange.address);
        return `${UNKNOWN_AFTER_APPLY}: ${fileChange.address}`;
      }
      return fileChange.id ?? UNKNOWN_AFTER_APPLY;
    });
    before.knowledge = liveFiles;
    after.knowledge = desiredFiles;
    if (!equal(liveFiles, desiredFiles)) {
      const lastApplied = applied.knowledge;
      fieldChanges.push({
        path: 'knowledge',
        before: liveFiles,
        after: desiredFiles,
        sensitive: false,
        drift: dependsOn.length === 0 && lastApplied !== undefined && lastApplied === hashApplied(input.salt, desiredFiles),
      });
    }
  }

  return change({
    address: agent.address,
    kind: 'agent',
    id: agent.id,
    before,
    after,
    fieldChanges,
    sensitivePaths,
    dependsOn,
    liveFingerprint: fingerprint(input, before),
  });
}

/** A field is reported as secret when a sensitive pattern covers the whole field (not just a part inside it). */
function isSensitiveLeaf(path: string, patterns: string[]): boolean {
  return patterns.some((pattern) => !pattern.includes('[]') && isAtOrUnder(path, pattern));
}

function diffPhone(phone: DesiredPhone, live: Phone | undefined, input: DiffInput, agentChanges: Map<string, ResourceChange>): ResourceChange {
  const before: Record<string, unknown> | null = live ? { agent_id: live.agent_id } : null;
  const after: Record<string, unknown> = {};
  if (phone.agent) after.agent_id = phone.agent.id;
  if (!live && phone.import) {
    after['import.provider'] = phone.import.provider;
    after['import.country'] = phone.import.country;
    after['import.region'] = phone.import.region;
  }
  const fieldChanges: FieldChange[] = [];
  const lastBound = input.state.phones[phone.address]?.agentId;
  if (!live) {
    for (const [path, value] of Object.entries(after)) fieldChanges.push({ path, before: undefined, after: value, sensitive: false, drift: false });
  } else if (phone.agent && live.agent_id !== phone.agent.id) {
    fieldChanges.push({
      path: 'agent_id',
      before: live.agent_id,
      after: phone.agent.id,
      sensitive: false,
      drift: lastBound !== undefined && lastBound === phone.agent.id,
    });
  }
  const dependsOn: string[] = [];
  const agentChange = phone.agent?.localName ? agentChanges.get(phone.agent.localName) : undefined;
  if (agentChange && agentChange.action !== 'no-op' && fieldChanges.length > 0) dependsOn.push(agentChange.address);
  return change({
    address: phone.address,
    kind: 'phone',
    id: phone.number,
    before,
    after,
    fieldChanges,
    create: !live,
    sensitivePaths: [],
    dependsOn,
    liveFingerprint: fingerprint(input, before),
  });
}

function diffCampaign(campaign: DesiredCampaign, input: DiffInput, phoneChanges: Map<string, ResourceChange>): ResourceChange {
  const stateEntry = input.state.campaigns[campaign.address];
  const lastApplied = stateEntry && stateEntry.id === campaign.id ? stateEntry.applied : undefined;
  const after: Record<string, unknown> = {};
  if (campaign.name !== undefined) after.name = campaign.name;
  if (campaign.include_metadata_in_prompt !== undefined) after.include_metadata_in_prompt = campaign.include_metadata_in_prompt;
  if (campaign.caller !== undefined) after.caller = campaign.caller;
  const before = lastApplied ? { ...lastApplied } : null;
  const fieldChanges: FieldChange[] = [];
  for (const [path, value] of Object.entries(after)) {
    const previous = before ? (before as Record<string, unknown>)[path] : undefined;
    if (before && equal(previous, value)) continue;
    fieldChanges.push({ path, before: previous, after: value, sensitive: false, drift: false });
  }
  const dependsOn: string[] = [];
  const callerChange = campaign.caller ? phoneChanges.get(campaign.caller) : undefined;
  if (callerChange && callerChange.action !== 'no-op' && fieldChanges.some((f) => f.path === 'caller')) dependsOn.push(callerChange.address);
  return change({
    address: campaign.address,
    kind: 'campaign',
    id: campaign.id,
    before,
    after,
    fieldChanges,
    reason: before ? undefined : 'live_unknown',
    sensitivePaths: [],
    dependsOn,
    liveFingerprint: fingerprint(input, stateEntry ?? null),
  });
}

function diffKnowledge(file: DesiredKnowledgeFile, input: DiffInput): ResourceChange {
  const stateEntry = input.state.knowledge[file.address];
  const after = { name: file.name, description: file.description, content_hash: file.contentHash, size: file.size };
  const before = stateEntry ? { name: stateEntry.name, description: stateEntry.description, content_hash: stateEntry.contentHash } : null;
  const fieldChanges: FieldChange[] = [];
  for (const path of ['name', 'description', 'content_hash'] as const) {
    const previous = before ? before[path] : undefined;
    if (before && equal(previous, after[path])) continue;
    if (!before && after[path] === undefined) continue;
    fieldChanges.push({ path, before: previous, after: after[path], sensitive: false, drift: false });
  }
  const contentChanged = before !== null && before.content_hash !== file.contentHash;
  return change({
    address: file.address,
    kind: 'knowledge',
    id: stateEntry && fieldChanges.length === 0 ? stateEntry.fileId : undefined,
    before,
    after,
    fieldChanges,
    create: !before,
    reason: contentChanged ? 'content_changed' : undefined,
    sensitivePaths: [],
    dependsOn: [],
    liveFingerprint: fingerprint(input, stateEntry ?? null),
  });
}

function diffCredential(credential: DesiredCredential, input: DiffInput): ResourceChange {
  const stateEntry = input.state.credentials[credential.address];
  const before = stateEntry ? { api_key: stateEntry.fingerprint } : null;
  // Keyed like the state's entry, so the plan never carries a hash of the key that could be tested offline.
  const keyed = hashApplied(input.salt, credential.fingerprint);
  const after = { api_key: keyed };
  const fieldChanges: FieldChange[] =
    stateEntry?.fingerprint === keyed ? [] : [{ path: 'api_key', before: before?.api_key, after: keyed, sensitive: true, drift: false }];
  return change({
    address: credential.address,
    kind: 'credential',
    id: credential.provider,
    before,
    after,
    fieldChanges,
    create: !stateEntry,
    reason: stateEntry ? undefined : 'live_unknown',
    sensitivePaths: ['api_key'],
    dependsOn: [],
    liveFingerprint: fingerprint(input, stateEntry ?? null),
  });
}

/** Every resource of `desired` compared with the service; problems (unknown agent ids, phones without import) collected. */
export function diffStates(input: DiffInput): { changes: ResourceChange[]; problems: PlanProblem[]; warnings: string[] } {
  const { desired, live } = input;
  const problems: PlanProblem[] = [];
  const warnings: string[] = [];
  const changes: ResourceChange[] = [];

  for (const credential of desired.credentials.values()) changes.push(diffCredential(credential, input));

  const knowledgeChanges = new Map<string, ResourceChange>();
  for (const file of desired.knowledge.values()) {
    const c = diffKnowledge(file, input);
    knowledgeChanges.set(file.localName, c);
    changes.push(c);
  }

  const agentChanges = new Map<string, ResourceChange>();
  for (const agent of desired.agents.values()) {
    const liveAgent = live.agents.get(agent.id);
    if (!liveAgent) {
      problems.push({
        address: agent.address,
        message: `${agent.address}: the service has no agent with id "${agent.id}". voxform adopts existing agents (the service cannot create them): create it in the dashboard and put its id here.`,
        ...agent.source,
      });
      continue;
    }
    const c = diffAgent(agent, liveAgent, input, knowledgeChanges);
    agentChanges.set(agent.localName, c);
    changes.push(c);
  }

  const livePhones = new Map(live.phones.map((p) => [p.id, p]));
  const phoneChanges = new Map<string, ResourceChange>();
  for (const phone of desired.phones.values()) {
    const livePhone = livePhones.get(phone.number);
    if (!livePhone && !phone.import) {
      problems.push({
        address: phone.address,
        message: `${phone.address}: the number is not on the account. Add an import: block (provider, country, region, api_key, api_secret) so voxform imports it, or import it in the dashboard.`,
        ...phone.source,
      });
      continue;
    }
    const c = diffPhone(phone, livePhone, input, agentChanges);
    phoneChanges.set(phone.number, c);
    changes.push(c);
  }

  for (const campaign of desired.campaigns.values()) changes.push(diffCampaign(campaign, input, phoneChanges));

  return { changes: orderChanges(changes), problems, warnings };
}

export function orderChanges(changes: ResourceChange[]): ResourceChange[] {
  return [...changes].sort((a, b) => {
    const byKind = KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind);
    return byKind !== 0 ? byKind : a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
  });
}

/** The targeted changes and, transitively, those they depend on (Terraform's -target). */
export function selectTargets(changes: ResourceChange[], targets: readonly string[]): ResourceChange[] {
  if (targets.length === 0) return changes;
  const byAddress = new Map(changes.map((c) => [c.address, c]));
  const keep = new Set<string>();
  const visit = (address: string) => {
    if (keep.has(address)) return;
    keep.add(address);
    for (const dep of byAddress.get(address)?.dependsOn ?? []) visit(dep);
  };
  targets.forEach(visit);
  return changes.filter((c) => keep.has(c.address));
}

export function summarize(changes: readonly ResourceChange[]): Plan['summary'] {
  return {
    create: changes.filter((c) => c.action === 'create').length,
    update: changes.filter((c) => c.action === 'update').length,
    unchanged: changes.filter((c) => c.action === 'no-op').length,
    drifted: changes.filter((c) => c.reason === 'drift').length,
  };
}
