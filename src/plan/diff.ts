/**
 * The differ: desired state + live state + what voxform last applied → a Plan. Pure: no I/O, no
 * clock (the caller stamps the plan), so it is tested table-driven with exact expectations.
 */
import type { PlanProblemCode } from '../error-codes.js';
import { MAX_REQUEST_BODY_BYTES } from '../api/http.js';
import { MAX_PLAN_UPDATE_BYTES } from '../project-files/limits.js';
import { planSizes, PlanSizeCounter } from './plan-size.js';
import { formatSize } from '../util/size.js';
import type { Agent, Phone } from '../schema/types.gen.js';
import type {
  DesiredAgent,
  DesiredCampaign,
  DesiredCredential,
  DesiredKnowledgeFile,
  DesiredPhone,
  DesiredState,
} from '../manifest/types.js';
import { followedWorkspace } from '../state/moved-resources.js';
import { hashApplied, type WorkspaceState } from '../state/types.js';
import { fingerprintKeyId, hashedWithAnotherKey } from '../util/hash.js';
import { comparableLiveAgent, desiredAgentFields, type ComparableAgent } from './agent-fields.js';
import { isUnchanged } from './compare.js';
import { agentFingerprinted, fingerprint, liveKnowledgeFiles } from './fingerprint.js';
import { byCodeUnits } from '../util/compare.js';
import { formatDotted, parseDotted, setAtPath, valueAtPath } from '../util/field-path.js';
import { isPlainObject, type JsonObject } from '../util/json-object.js';
import { agentSensitivePatterns, entrySecretPaths, secretPatternSet } from '../secrets/schema-paths.js';
import type { LiveState } from './read-live.js';
import { agentIdSource } from '../manifest/desired-state.js';
import type { TrustedSecrets } from '../secrets/trusted.js';
import { RecordedFileCheck, recordedFileIds } from './recorded-files.js';
import {
  agentFilesRequest,
  campaignRequests,
  credentialRequests,
  knowledgeRequests,
  phoneRequests,
  RequestList,
  withSecretFills,
} from './requests.js';
import { agentUpdateBody } from './update-body.js';
import { shownWrittenField } from './written-field.js';
import {
  UNKNOWN_AFTER_APPLY,
  type ChangeReason,
  type FieldChange,
  type Plan,
  type PlannedRequest,
  type ResourceChange,
  type ResourceKind,
} from './types.js';

export { comparableLiveAgent } from './agent-fields.js';

/** A resource the plan cannot be made for (an agent id the service does not know, …), at its place in the manifests. */
export interface PlanProblem {
  code: PlanProblemCode;
  address: string;
  message: string;
  file: string;
  line: number;
  col: number;
  /** Of an agent the service does not have: the state records voxform applied it there, so it was deleted on the service since. */
  gone?: boolean;
}

interface DiffInput {
  desired: DesiredState;
  live: LiveState;
  state: WorkspaceState;
  /**
   * The renamed resources (new address → the address the state kept each under), when found already
   * (`SharedView.moves`): `state` then holds their entries moved. Without it the differ finds them.
   */
  moves?: ReadonlyMap<string, string> | undefined;
  /** The fingerprint key (a secret): the key of the state's hashes and of live fingerprints. */
  salt: string;
  baseUrl: string;
  /** Manifest files as shown to the user (relative). */
  files: string[];
  targets?: string[];
  /**
   * What trusted evidence (never the manifests) says of the live agents' secrets: where the manifests
   * now fill a field from `${env:…}`, its live value is shown unless this says it is secret. Without
   * it, the live value counts as secret wherever the manifests fill the place from `${env:…}`.
   */
  liveSecrets?: LiveSecretEvidence | undefined;
}

/** The part of `TrustedSecrets` the differ asks: a live agent's secret places in its config, and its names recorded as filled from `${env:…}`. */
export type LiveSecretEvidence = Pick<TrustedSecrets, 'livePaths' | 'ledgerNamesOf' | 'unsearchablePlaces'>;

/** What comparing one resource needs besides its live value: the diff's input without the live state. */
export type DiffContext = Omit<DiffInput, 'live'>;

const KIND_ORDER: ResourceKind[] = ['credential', 'knowledge', 'agent', 'phone', 'campaign'];

/** The addresses of the changes that own the requests `requests` wait for, outside their own change. */
function dependedOnAddresses(requests: readonly PlannedRequest[], owners: ReadonlyMap<string, string>, self: string): string[] {
  const addresses = new Set<string>();
  for (const request of requests) for (const id of request.dependsOn) {
    const owner = owners.get(id);
    if (owner !== undefined && owner !== self) addresses.add(owner);
  }
  return [...addresses];
}

/** Where a change keeps what its live fingerprint is made from, until the fingerprint is first asked for. */
const FINGERPRINT_INPUT = Symbol('live fingerprint input');

interface FingerprintInput {
  salt: string;
  manifestHash: string;
  fingerprinted: unknown;
  made?: string;
}

/**
 * A change's `liveFingerprint`, made when first asked for: an HMAC per resource is a large share of
 * comparing. One shared getter: a getter per object literal puts each change in V8's dictionary mode.
 */
const LIVE_FINGERPRINT: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: { [FINGERPRINT_INPUT]: FingerprintInput }): string {
    const input = this[FINGERPRINT_INPUT];
    return (input.made ??= fingerprint(input.salt, input.manifestHash, input.fingerprinted));
  },
};

function change(
  base: Pick<ResourceChange, 'address' | 'kind' | 'id' | 'before' | 'after' | 'sensitivePaths' | 'liveSensitivePaths' | 'movedFrom'> & {
    fieldChanges: FieldChange[];
    /** The live values the change was computed from, for its `liveFingerprint`. */
    fingerprinted: unknown;
    input: DiffContext;
    requests: PlannedRequest[];
    owners: Map<string, string>;
    create?: boolean;
    reason?: ChangeReason | undefined;
  },
): ResourceChange {
  const action = base.create ? 'create' : base.fieldChanges.length > 0 ? 'update' : 'no-op';
  const reason = action === 'no-op' ? undefined : (base.reason ?? (base.fieldChanges.some((f) => f.drift) ? 'drift' : undefined));
  const requests = action === 'no-op' ? [] : base.requests;
  for (const request of requests) base.owners.set(request.id, base.address);
  const fingerprintInput: FingerprintInput = { salt: base.input.salt, manifestHash: base.input.desired.manifestHash, fingerprinted: base.fingerprinted };
  const made = {
    address: base.address,
    kind: base.kind,
    action,
    id: base.id,
    before: base.before,
    after: base.after,
    fieldChanges: base.fieldChanges.sort((a, b) => byCodeUnits(a.path, b.path)),
    sensitivePaths: base.sensitivePaths,
    ...(base.liveSensitivePaths === undefined || base.liveSensitivePaths.length === 0 ? {} : { liveSensitivePaths: base.liveSensitivePaths }),
    reason,
    dependsOn: dependedOnAddresses(requests, base.owners, base.address),
    requests,
    ...(base.movedFrom === undefined ? {} : { movedFrom: base.movedFrom }),
    [FINGERPRINT_INPUT]: fingerprintInput,
  };
  return Object.defineProperty(made, 'liveFingerprint', LIVE_FINGERPRINT) as typeof made & ResourceChange;
}

/** The managed fields of an agent that differ from the live agent. */
function agentFieldChanges(agent: DesiredAgent, comparable: ComparableAgent, input: DiffContext, sensitivePaths: readonly string[]) {
  const applied = input.state.agents[agent.address]?.applied ?? {};
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  const fieldChanges: FieldChange[] = [];
  const fields = desiredAgentFields(agent);
  let liveSecrets: readonly string[] | undefined;
  const liveSecretPatterns = () => (liveSecrets ??= liveSecretPatternsOf(agent, comparable, input.liveSecrets));
  const reshaped = new Map<string, { live: unknown; leaves: Array<[string, unknown]> }>();
  const push = (path: string, liveValue: unknown, desiredValue: unknown, drift: boolean) => {
    const field: FieldChange = { path, before: liveValue, after: desiredValue, sensitive: isSensitiveLeaf(path, sensitivePaths), drift };
    const shown = shownWrittenField(field, agent.envReferences, liveSecretPatterns);
    if (shown) field.shown = shown;
    fieldChanges.push(field);
  };
  for (const [path, desiredValue] of fields) {
    const segments = parseDotted(path);
    const liveValue = valueAtPath(comparable, segments);
    before[path] = liveValue;
    after[path] = desiredValue;
    if (isUnchanged(desiredValue, liveValue)) continue;
    const reshapedDepth = liveValue === undefined ? reshapedAt(comparable, segments) : undefined;
    if (reshapedDepth !== undefined) {
      const parent = formatDotted(segments.slice(0, reshapedDepth));
      const group = reshaped.get(parent) ?? { live: valueAtPath(comparable, segments.slice(0, reshapedDepth)), leaves: [] };
      group.leaves.push([path, desiredValue]);
      reshaped.set(parent, group);
      continue;
    }
    push(path, liveValue, desiredValue, applied[path] !== undefined && applied[path] === hashApplied(input.salt, desiredValue));
  }
  // A place the service holds in another shape than the manifests' (a webhook as a plain URL where they
  // give {url, headers}) is one change at that place, both values whole: its leaves alone would read as unset.
  for (const [parent, { live, leaves }] of reshaped) {
    const depth = parseDotted(parent).length;
    const desiredValue: JsonObject = {};
    for (const [path, value] of leaves) setAtPath(desiredValue, parseDotted(path).slice(depth), value);
    push(parent, live, desiredValue, leaves.every(([path, value]) => applied[path] !== undefined && applied[path] === hashApplied(input.salt, value)));
  }
  return { before, after, fieldChanges, fields };
}

/**
 * How many segments of `segments` lead to a place above it where the live agent holds a value that is
 * neither an object nor unset (a string, a number, a list): the place the manifests' leaf would sit
 * under reads there in another shape. Undefined when every place above it is an object or unset.
 */
function reshapedAt(comparable: ComparableAgent, segments: readonly string[]): number | undefined {
  let current: unknown = comparable;
  for (let depth = 1; depth < segments.length; depth++) {
    const segment = segments[depth - 1] as string;
    current = isPlainObject(current) && Object.hasOwn(current, segment) ? current[segment] : undefined;
    if (current === undefined || current === null) return undefined;
    if (!isPlainObject(current)) return depth;
  }
  return undefined;
}

/**
 * The places of the live agent that hold secrets, dotted from its entry: those trusted evidence
 * names, or without evidence every place the manifests fill from `${env:…}` (as if it said so).
 */
function liveSecretPatternsOf(agent: DesiredAgent, live: ComparableAgent, evidence: LiveSecretEvidence | undefined): readonly string[] {
  if (!evidence) return Object.keys(agent.envReferences ?? {});
  const places = evidence.livePaths(agent.id, live.config).map((place) => `config.${place}`);
  return evidence.ledgerNamesOf(agent.id).length > 0 ? [...places, 'name'] : places;
}

/**
 * The files an agent will have: known ids, or the id an upload of this plan returns. `asRecorded`:
 * whether each is the file the state records (one gone from the service and uploaded again counts).
 */
function desiredAgentFiles(agent: DesiredAgent & { knowledge: string[] }, knowledgeChanges: Map<string, ResourceChange>) {
  const shown: string[] = [];
  const sent: Array<string | { resultOf: string }> = [];
  let asRecorded = true;
  for (const localName of agent.knowledge) {
    const fileChange = knowledgeChanges.get(localName);
    const upload = fileChange?.requests[0];
    if (fileChange && upload) {
      if (fileChange.reason !== 'gone') asRecorded = false;
      shown.push(`${UNKNOWN_AFTER_APPLY}: ${fileChange.address}`);
      sent.push({ resultOf: upload.id });
    } else {
      shown.push(fileChange?.id ?? UNKNOWN_AFTER_APPLY);
      sent.push(fileChange?.id ?? UNKNOWN_AFTER_APPLY);
    }
  }
  return { shown, sent, asRecorded };
}

function diffAgent(agent: DesiredAgent, live: Agent, input: DiffContext, knowledgeChanges: Map<string, ResourceChange>, owners: Map<string, string>): ResourceChange {
  const comparable = comparableLiveAgent(live);
  const sensitivePaths = agentSensitivePatterns(agent);
  const { before, after, fieldChanges, fields } = agentFieldChanges(agent, comparable, input, sensitivePaths);
  const requests = new RequestList(agent.address);
  const body = agentUpdateBody(comparable, fieldChanges.map((f) => f.path), fields);
  if (body) {
    const filled = withSecretFills(body as unknown as Record<string, unknown>, { address: agent.address, patterns: sensitivePaths, managed: [...fields.keys()] });
    requests.add({ operation: 'update_agent', method: 'PUT', path: `/agents/${encodeURIComponent(agent.id)}`, body: filled.body, fills: filled.fills });
    // Read back what the service kept, to warn about fields it dropped or rewrote.
    requests.add({ operation: 'read_agent', method: 'GET', path: `/agents/${encodeURIComponent(agent.id)}` });
  }
  const liveFiles = liveKnowledgeFiles(live.config);
  if (agent.knowledge !== undefined) {
    const files = desiredAgentFiles(agent as DesiredAgent & { knowledge: string[] }, knowledgeChanges);
    before.knowledge = liveFiles;
    after.knowledge = files.shown;
    if (!sameFiles(files.shown, liveFiles)) {
      const lastApplied = input.state.agents[agent.address]?.applied.knowledge;
      const recorded = files.asRecorded ? recordedFileIds(agent.knowledge, input) : undefined;
      fieldChanges.push({
        path: 'knowledge',
        before: liveFiles,
        after: files.shown,
        sensitive: false,
        drift: recorded !== undefined && lastApplied !== undefined && lastApplied === hashApplied(input.salt, recorded),
      });
      // The messages the agent will have: the manifest's when it manages them, else the service's.
      const messagesPath = 'config.knowledge_base.messages';
      const messages = fields.has(messagesPath) ? fields.get(messagesPath) : valueAtPath(comparable, parseDotted(messagesPath));
      agentFilesRequest(requests, agent.id, files.sent, messages);
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
    // Asked only of a change: a no-op shows no live value the manifests do not hold themselves.
    liveSensitivePaths: fieldChanges.length > 0 ? input.liveSecrets?.unsearchablePlaces({ id: agent.id, name: comparable.name, config: comparable.config }) : undefined,
    requests: requests.requests,
    owners,
    fingerprinted: agentFingerprinted(agent, comparable, liveFiles),
    input,
    movedFrom: input.moves?.get(agent.address),
  });
}

/**
 * Whether an agent holds the files it will have: `knowledge` replaces the attached set
 * (docs/manifest.md), so files the service lists in another order, or one of them twice, are the same.
 */
function sameFiles(desired: readonly string[], live: readonly string[]): boolean {
  const wanted = new Set(desired);
  const held = new Set(live);
  return wanted.size === held.size && [...wanted].every((file) => held.has(file));
}

/** A field is secret when a sensitive pattern covers the whole field, not just a part inside it. */
function isSensitiveLeaf(path: string, patterns: readonly string[]): boolean {
  return secretPatternSet(patterns).cursorAt(path).covered;
}

/** The ids of a change's requests that change something (a read-back is not waited for). */
function writeRequestIds(change: ResourceChange | undefined): string[] {
  if (!change) return [];
  return change.requests.filter((r) => r.method !== 'GET').map((r) => r.id);
}

/**
 * What a phone's binding waits for of its agent's change: the update (a number never answers with a
 * half-updated agent), not the attaching of its knowledge files, which answering calls does not need:
 * a file the service refuses must not hold the number back with the agent it had before.
 */
function bindingWaitsFor(agentChange: ResourceChange | undefined): string[] {
  return agentChange?.requests.filter((r) => r.operation === 'update_agent').map((r) => r.id) ?? [];
}

/** The manifests' agent addresses by id; an id two keys name has none (which one is meant is unknown). Made once per manifests. */
const agentAddressesById = new WeakMap<DesiredState, Map<string, string | undefined>>();

/** The manifest addresses of the agents a number moves between, where the manifests name them: ids alone do not tell a reviewer which agent. */
function boundAgentNames(desired: DesiredState, from: string | null | undefined, to: NonNullable<DesiredPhone['agent']>): Pick<FieldChange, 'names'> {
  let byId = agentAddressesById.get(desired);
  if (!byId) {
    byId = new Map();
    for (const agent of desired.agents.values()) byId.set(agent.id, byId.has(agent.id) ? undefined : agent.address);
    agentAddressesById.set(desired, byId);
  }
  const before = from ? byId.get(from) : undefined;
  const after = to.localName === undefined ? byId.get(to.id) : desired.agents.get(to.localName)?.address;
  return before === undefined && after === undefined ? {} : { names: { before, after } };
}

/** `agentChange`: the change of the manifest agent the phone is bound to (its binding waits for that one's update), if any. */
function diffPhone(phone: DesiredPhone, live: Phone | undefined, input: DiffContext, agentChange: ResourceChange | undefined, owners: Map<string, string>): ResourceChange {
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
  const sensitivePaths = entrySecretPaths('phone', phone.sensitivePaths);
  if (!live) {
    for (const [path, value] of Object.entries(after)) fieldChanges.push({ path, before: undefined, after: value, sensitive: isSensitiveLeaf(path, sensitivePaths), drift: false });
  } else if (phone.agent && live.agent_id !== phone.agent.id) {
    fieldChanges.push({
      path: 'agent_id',
      before: live.agent_id,
      after: phone.agent.id,
      sensitive: false,
      drift: lastBound !== undefined && lastBound === phone.agent.id,
      ...boundAgentNames(input.desired, live.agent_id, phone.agent),
    });
  }
  const requests = phoneRequests(phone, { create: !live, bind: fieldChanges.length > 0, after: bindingWaitsFor(agentChange) });
  return change({
    address: phone.address,
    kind: 'phone',
    id: phone.number,
    before,
    after,
    fieldChanges,
    create: !live,
    sensitivePaths,
    requests,
    owners,
    fingerprinted: before,
    input,
  });
}

/** Whether a desired value is the one the state records as applied (a secret one as its keyed hash). */
function isApplied(desired: unknown, applied: unknown, sensitive: boolean, key: string): boolean {
  return isUnchanged(desired, applied) || (sensitive && applied === hashApplied(key, desired));
}

function diffCampaign(campaign: DesiredCampaign, input: DiffContext, phoneChanges: Map<string, ResourceChange>, owners: Map<string, string>): ResourceChange {
  const stateEntry = input.state.campaigns[campaign.address];
  // A write whose outcome was never recorded may have changed any of them: what it holds is unknown.
  const lastApplied = stateEntry && stateEntry.id === campaign.id && !stateEntry.writeUnrecorded ? stateEntry.applied : undefined;
  const after: Record<string, unknown> = {};
  if (campaign.name !== undefined) after.name = campaign.name;
  if (campaign.include_metadata_in_prompt !== undefined) after.include_metadata_in_prompt = campaign.include_metadata_in_prompt;
  if (campaign.caller !== undefined) after.caller = campaign.caller;
  const before = lastApplied ? { ...lastApplied } : null;
  const fieldChanges: FieldChange[] = [];
  const sensitivePaths = entrySecretPaths('campaign', campaign.sensitivePaths);
  for (const [path, value] of Object.entries(after)) {
    const previous = before ? (before as Record<string, unknown>)[path] : undefined;
    const sensitive = isSensitiveLeaf(path, sensitivePaths);
    if (before && isApplied(value, previous, sensitive, input.salt)) continue;
    fieldChanges.push({ path, before: previous, after: value, sensitive, drift: false });
  }
  const callerChange = campaign.caller ? phoneChanges.get(campaign.caller) : undefined;
  const changed = new Set(fieldChanges.map((f) => f.path));
  return change({
    address: campaign.address,
    kind: 'campaign',
    id: campaign.id,
    before,
    after,
    fieldChanges,
    reason: before ? undefined : 'live_unknown',
    sensitivePaths,
    requests: campaignRequests(campaign, changed, writeRequestIds(callerChange)),
    owners,
    fingerprinted: stateEntry ?? null,
    input,
    movedFrom: input.moves?.get(campaign.address),
  });
}

/** `gone`: the recorded file is gone from the service (`RecordedFileCheck`): uploaded as if never applied. */
function diffKnowledge(file: DesiredKnowledgeFile, input: DiffContext, owners: Map<string, string>, gone = false): ResourceChange {
  const recorded = input.state.knowledge[file.address];
  const stateEntry = gone ? undefined : recorded;
  const after = { name: file.name, description: file.description, content_hash: file.contentHash, size: file.size };
  const before = stateEntry ? { name: stateEntry.name, description: stateEntry.description, content_hash: stateEntry.contentHash } : null;
  const fieldChanges: FieldChange[] = [];
  const sensitivePaths = entrySecretPaths('knowledge', file.sensitivePaths);
  for (const path of ['name', 'description', 'content_hash'] as const) {
    const previous = before ? before[path] : undefined;
    const sensitive = isSensitiveLeaf(path, sensitivePaths);
    if (before && isApplied(after[path], previous, sensitive, input.salt)) continue;
    if (!before && after[path] === undefined) continue;
    fieldChanges.push({ path, before: previous, after: after[path], sensitive, drift: false });
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
    reason: gone ? 'gone' : contentChanged ? 'content_changed' : undefined,
    sensitivePaths,
    requests: knowledgeRequests(file),
    owners,
    fingerprinted: recorded ?? null,
    input,
    movedFrom: input.moves?.get(file.address),
  });
}

function diffCredential(credential: DesiredCredential, input: DiffContext, owners: Map<string, string>): ResourceChange {
  const stateEntry = input.state.credentials[credential.address];
  // Recorded under another API key (rotated since), or before a write whose outcome was never
  // recorded, the fingerprint tells nothing of what is set.
  const known = stateEntry && !stateEntry.writeUnrecorded && !hashedWithAnotherKey(stateEntry.fingerprintKeyId, fingerprintKeyId(input.salt)) ? stateEntry : undefined;
  const before = known ? { api_key: known.fingerprint } : null;
  // Keyed like the state's entry, so the plan never carries a hash of the key that could be tested offline.
  const keyed = hashApplied(input.salt, credential.fingerprint);
  const after = { api_key: keyed };
  const fieldChanges: FieldChange[] =
    known?.fingerprint === keyed ? [] : [{ path: 'api_key', before: before?.api_key, after: keyed, sensitive: true, drift: false }];
  return change({
    address: credential.address,
    kind: 'credential',
    id: credential.provider,
    before,
    after,
    fieldChanges,
    create: !stateEntry,
    reason: known ? undefined : 'live_unknown',
    sensitivePaths: entrySecretPaths('credential', []),
    requests: credentialRequests(credential),
    owners,
    fingerprinted: stateEntry ?? null,
    input,
  });
}

/**
 * Compares resources one at a time, sharing what their requests depend on (each request's owner,
 * the knowledge files' uploads). Credentials need no live value: compared at once; so are knowledge
 * files, but for those whose record the agents' answers must confirm (`RecordedFileCheck`).
 */
export class ResourceDiffer {
  /** Request id → address of its change, for each change's `dependsOn`. */
  private readonly owners = new Map<string, string>();
  private readonly knowledgeChanges = new Map<string, ResourceChange>();
  /** The credentials' and knowledge files' changes made so far. */
  readonly independent: ResourceChange[] = [];
  private readonly fileCheck: RecordedFileCheck;
  /** The files being checked, by local name: their change should the check find them on the service. */
  private readonly checkedFiles = new Map<string, ResourceChange>();

  readonly context: DiffContext;

  constructor(context: DiffContext) {
    // Each resource's baseline is its own entry: followed to a renamed key, never another resource's.
    const { workspace, moves } = context.moves ? { workspace: context.state, moves: context.moves } : followedWorkspace(context.state, context.desired);
    this.context = { ...context, state: workspace, moves };
    for (const credential of context.desired.credentials.values()) this.independent.push(diffCredential(credential, context, this.owners));
    const files = [...context.desired.knowledge.values()].map((file) => ({ file, change: diffKnowledge(file, this.context, this.owners) }));
    this.fileCheck = new RecordedFileCheck(this.context, files.filter(({ change }) => change.action === 'no-op').map(({ file }) => file));
    for (const { file, change } of files) {
      if (this.fileCheck.isOpen(file.localName)) this.checkedFiles.set(file.localName, change);
      else this.fileCompared(file.localName, change);
    }
  }

  /** Notes an agent's answer for the knowledge files it tells about; a file it settles is compared now. Whether it settled one. */
  agentRead(agent: DesiredAgent, live: Agent): boolean {
    const settled = this.fileCheck.agentRead(agent, live);
    for (const { localName, gone } of settled) this.checkSettled(localName, gone);
    return settled.length > 0;
  }

  /** Whether every knowledge file the agent attaches is compared, so the agent can be. */
  filesCompared(agent: DesiredAgent): boolean {
    return (agent.knowledge ?? []).every((localName) => !this.fileCheck.isOpen(localName));
  }

  /** Compares the files whose check is still open, as recorded: an agent attaching them went unread. */
  endFileChecks(): void {
    for (const localName of this.fileCheck.close()) this.checkSettled(localName, false);
  }

  /** Call once every knowledge file it attaches is compared (`filesCompared`). */
  agent(agent: DesiredAgent, live: Agent): ResourceChange {
    return diffAgent(agent, live, this.context, this.knowledgeChanges, this.owners);
  }

  private checkSettled(localName: string, gone: boolean): void {
    const file = this.context.desired.knowledge.get(localName);
    const kept = this.checkedFiles.get(localName);
    if (!file || !kept) return;
    this.checkedFiles.delete(localName);
    this.fileCompared(localName, gone ? diffKnowledge(file, this.context, this.owners, true) : kept);
  }

  private fileCompared(localName: string, change: ResourceChange): void {
    this.knowledgeChanges.set(localName, change);
    this.independent.push(change);
  }

  /** `agentChange`: the change of the manifest agent the phone is bound to (its binding waits for that one's update). */
  phone(phone: DesiredPhone, live: Phone | undefined, agentChange: ResourceChange | undefined): ResourceChange {
    return diffPhone(phone, live, this.context, agentChange, this.owners);
  }

  /** `phoneChanges`: by number, the phones' changes (a campaign's requests wait for its caller's). */
  campaign(campaign: DesiredCampaign, phoneChanges: Map<string, ResourceChange>): ResourceChange {
    return diffCampaign(campaign, this.context, phoneChanges, this.owners);
  }
}

/** Changes made before the whole live state was in, handed back when made from these very values. */
interface MadeEarly {
  agent?(agent: DesiredAgent, live: Agent): ResourceChange | undefined;
  phone?(phone: DesiredPhone, phones: Phone[], agentChange: ResourceChange | undefined): ResourceChange | undefined;
}

/**
 * Every resource of `desired` compared with the service, in dependency order: credentials and
 * knowledge files, agents, phones (bound to the agents' changes), campaigns (calling from the
 * phones'). Problems (unknown agent ids, of agents and of the agents phones name by id; phones
 * without import) are collected, not thrown.
 */
export function diffStates(input: DiffInput, differ = new ResourceDiffer(input), early: MadeEarly = {}): { changes: ResourceChange[]; problems: PlanProblem[] } {
  const { desired, live } = input;
  const problems: PlanProblem[] = [];
  for (const agent of desired.agents.values()) {
    const liveAgent = live.agents.get(agent.id);
    if (liveAgent) differ.agentRead(agent, liveAgent);
  }
  differ.endFileChecks();
  const changes = [...differ.independent];

  const agentChanges = diffAgents(input, differ, early, problems);
  changes.push(...agentChanges.values());

  const livePhones = new Map(live.phones.map((p) => [p.id, p]));
  const phoneChanges = new Map<string, ResourceChange>();
  for (const phone of desired.phones.values()) {
    const livePhone = livePhones.get(phone.number);
    if (!livePhone && !phone.import) {
      problems.push({
        code: 'phone_not_on_account',
        address: phone.address,
        message: `${phone.address}: the number is not on the account. Add an import: block (provider, country, region, api_key, api_secret) so voxform imports it, or import it in the dashboard.`,
        ...phone.source,
      });
      continue;
    }
    // An agent outside the manifests, by id: the binding would be refused at apply, after the writes before it.
    if (phone.agent && phone.agent.localName === undefined && !live.agents.has(phone.agent.id)) {
      problems.push({
        code: 'agent_not_on_service',
        address: phone.address,
        message: `${phone.address}: the service has no agent with id "${phone.agent.id}" to bind the number to. Put the id of a live agent there, or the name of an agent of the manifest.`,
        ...(phone.agent.source ?? phone.source),
      });
      continue;
    }
    const agentChange = phone.agent?.localName === undefined ? undefined : agentChanges.get(phone.agent.localName);
    const c = early.phone?.(phone, live.phones, agentChange) ?? differ.phone(phone, livePhone, agentChange);
    phoneChanges.set(phone.number, c);
    changes.push(c);
  }

  for (const campaign of desired.campaigns.values()) changes.push(differ.campaign(campaign, phoneChanges));

  return { changes: orderChanges(changes), problems };
}

/**
 * Each agent's change, by local name, in the manifests' order. An agent the service lacks, or whose
 * update it would refuse, is a problem instead; so is the agent whose update takes the plan's updates,
 * with the live values they replace, past MAX_PLAN_UPDATE_BYTES together (`planSizes`), and no agent after it is compared: each later one would only
 * add to a plan already refused, and one prompt named by thousands of agents would otherwise be
 * diffed, held and printed once for each.
 */
function diffAgents(input: DiffInput, differ: ResourceDiffer, early: MadeEarly, problems: PlanProblem[]): Map<string, ResourceChange> {
  const { desired, live } = input;
  const agentChanges = new Map<string, ResourceChange>();
  const planned = new PlanSizeCounter();
  for (const agent of desired.agents.values()) {
    const liveAgent = live.agents.get(agent.id);
    if (!liveAgent) {
      problems.push(agentNotOnService(agent, differ.context));
      continue;
    }
    const c = early.agent?.(agent, liveAgent) ?? differ.agent(agent, liveAgent);
    const sizes = planSizes(c);
    const over = planned.add(sizes);
    const prompt = agent.promptFile ? ` (${agent.promptFile.display})` : '';
    if (over === 'request_too_large') {
      problems.push({
        code: 'request_too_large',
        address: agent.address,
        message: `${agent.address}: its update would send ${formatSize(sizes.largest)}, more than the ${formatSize(MAX_REQUEST_BODY_BYTES)} the service takes in one request. Shorten its prompt${prompt} or its other long fields.`,
        ...agent.source,
      });
      continue;
    }
    if (over === 'plan_too_large') {
      problems.push({
        code: 'plan_too_large',
        address: agent.address,
        message: `${agent.address}: with its update, the agents' updates of this plan and the live values they replace would come to more than ${formatSize(MAX_PLAN_UPDATE_BYTES)} together, the most one plan holds; no agent after it was compared. Plan and apply the agents in parts (\`--target agent.NAME\`, repeated), or shorten their prompts${prompt}: a prompt file counts once for every agent that uses it.`,
        ...agent.source,
      });
      break;
    }
    agentChanges.set(agent.localName, c);
  }
  return agentChanges;
}

function agentNotOnService(agent: DesiredAgent, context: DiffContext): PlanProblem {
  // Applied before under this id: the agent was deleted on the service, not mistyped in the manifest.
  const gone = context.state.agents[agent.address]?.id === agent.id;
  const why = gone
    ? ', though voxform applied it there (the state records it): it was deleted on the service since. voxform adopts existing agents (the service cannot create them): create it again in the dashboard and put its new id here.'
    : '. voxform adopts existing agents (the service cannot create them): create it in the dashboard and put its id here.';
  return {
    code: 'agent_not_on_service',
    address: agent.address,
    message: `${agent.address}: the service has no agent with id "${agent.id}"${why}`,
    ...agentIdSource(agent),
    ...(gone ? { gone } : {}),
  };
}

function orderChanges(changes: ResourceChange[]): ResourceChange[] {
  return [...changes].sort((a, b) => {
    const byKind = KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind);
    return byKind || byCodeUnits(a.address, b.address);
  });
}

/**
 * The targeted changes and, transitively, those they depend on (Terraform's -target), and the keys
 * they swap state entries with: a key that takes the entry of a key the manifests still name, or
 * whose entry such a key takes, is half of a swap, and goes whole. Half of one would write one key's
 * entry over the other's, and show as a rename what is none.
 */
export function selectTargets(changes: ResourceChange[], targets: readonly string[]): ResourceChange[] {
  if (targets.length === 0) return changes;
  const byAddress = new Map(changes.map((c) => [c.address, c]));
  const takenBy = new Map(changes.flatMap((c) => (c.movedFrom === undefined ? [] : [[c.movedFrom, c.address] as const])));
  const keep = new Set<string>();
  const visit = (address: string | undefined) => {
    const change = address === undefined ? undefined : byAddress.get(address);
    if (change === undefined || keep.has(change.address)) return;
    keep.add(change.address);
    for (const dep of change.dependsOn) visit(dep);
    visit(change.movedFrom);
    visit(takenBy.get(change.address));
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
