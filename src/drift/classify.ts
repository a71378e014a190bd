/**
 * The classification of a plan's differences (pure): for each changed field, the keyed hash the
 * state keeps of what voxform last applied there says which side moved — the service, the
 * manifests, or both; made under another key, it says nothing (`unlabelled`). See `DriftClass`.
 */
import type { SharedResourceConflict } from '../plan/shared-resources.js';
import type { Plan, ResourceChange, FieldChange } from '../plan/types.js';
import { hashApplied, type WorkspaceState } from '../state/types.js';
import { fingerprintKeyId, hashedWithAnotherKey } from '../util/hash.js';
import { dottedLeaves, isDottedAtOrUnder } from '../util/field-path.js';
import { isPlainObject } from '../util/json-object.js';
import { differsElsewhere, withheldAsLive } from './not-compared.js';
import { WITHHELD } from '../secrets/withhold.js';
import type { DriftClass, DriftedField, DriftedResource, DriftReport, NotComparedField } from './types.js';

interface ClassifyInput {
  plan: Plan;
  /** The workspace the plan was made against (`SharedView.workspace`), its entries as the plan read them (`followedWorkspace`). */
  workspace: WorkspaceState;
  /** The fingerprint key the state's hashes are keyed with. */
  salt: string;
  workspaceKey: string;
  /** The plan's values that would undo another environment's apply (`findSharedConflicts`): set there by that environment. */
  conflicts?: readonly SharedResourceConflict[] | undefined;
  /** The unset variables a field's manifests' value reads (`notComparedFinder`); undefined: compared as usual. */
  notCompared?: ((change: ResourceChange, field: FieldChange) => string[] | undefined) | undefined;
  /** The variables the value the ledger recorded at an agent's field reads, set or not (`recordedVariablesFinder`); undefined: none is read. */
  variablesRead?: ((change: ResourceChange, field: FieldChange) => string[]) | undefined;
  /** Set when the state (`state`, as shown) holds no apply of the workspace: a difference otherwise `pending` is `unrecorded`. Put on the report. */
  noApplyRecorded?: { state: string } | undefined;
}

/** The hash the state holds of what was last applied at `path` of a resource; undefined when none. */
function appliedHash(change: ResourceChange, path: string, workspace: WorkspaceState, salt: string): { applied: string | undefined; hash: (value: unknown) => string } {
  const hash = (value: unknown) => hashApplied(salt, value);
  if (change.kind === 'agent') return { applied: workspace.agents[change.address]?.applied[path], hash };
  if (change.kind === 'phone' && path === 'agent_id') {
    // The state keeps the bound agent's id itself, not a hash: compared as a value.
    const bound = workspace.phones[change.address]?.agentId;
    return { applied: bound, hash: (value) => (typeof value === 'string' ? value : hash(value)) };
  }
  return { applied: undefined, hash };
}

/** Whether `change` imports a number the state records (voxform imported or bound it): the service lost it since. */
function phoneGone(change: ResourceChange, workspace: WorkspaceState): boolean {
  return change.kind === 'phone' && change.action === 'create' && Object.hasOwn(workspace.phones, change.address);
}

/**
 * `keyId`: the name of the key the run hashes with (`fingerprintKeyId` of the salt), made once per
 * check. `known`: the field with its withheld values read as the service's (`withheldAsLive`) where
 * its manifests read unset variables, else the field itself.
 */
function classifyField(change: ResourceChange, field: FieldChange, input: ClassifyInput, keyId: string, known: FieldChange): DriftClass {
  // A credential's fingerprint made under another key says nothing of whether the manifests moved.
  if (change.kind === 'credential' && hashedWithAnotherKey(input.workspace.credentials[change.address]?.fingerprintKeyId, keyId)) return 'unlabelled';
  // A knowledge file voxform attached that no agent lists any more: the service lost it, the manifests did not move.
  if (change.reason === 'gone') return 'outside';
  // A number voxform imported or bound that the account no longer has: its import fields are the
  // service's loss; its binding is compared with the one last applied, as a live one is.
  if (phoneGone(change, input.workspace) && field.path !== 'agent_id') return 'outside';
  // Campaigns, knowledge files and credentials cannot be read back: their `before` is what was last
  // applied, so a difference is the manifests' alone. So is a resource still to be created.
  if ((change.action === 'create' && !phoneGone(change, input.workspace)) || change.reason === 'live_unknown' || (change.kind !== 'agent' && change.kind !== 'phone')) return 'pending';
  if (change.kind === 'agent' && hashedWithAnotherKey(input.workspace.agents[change.address]?.fingerprintKeyId, keyId)) return 'unlabelled';
  if (change.kind === 'agent' && isPlainObject(field.after)) return reshapedClass(change, field, input);
  const { applied, hash } = appliedHash(change, field.path, input.workspace, input.salt);
  if (applied === undefined) return 'pending';
  // An agent's files hold an upload's id still to come where one is gone from the service; the
  // differ tells whether they stand for the files last applied all the same (the field's `drift`).
  // A value kept whole (a list of tools) is hashed whole: with a part withheld, the rest is known
  // only as the manifests' value with the service's part in its place.
  const manifestsAsApplied = applied === hash(known.after) || (change.kind === 'agent' && field.path === 'knowledge' && field.drift);
  const liveAsApplied = field.before !== undefined && applied === hash(field.before);
  if (manifestsAsApplied && !liveAsApplied) return 'outside';
  if (!manifestsAsApplied && !liveAsApplied) return 'both';
  return 'pending';
}

/**
 * An agent's place the service holds in another shape than the manifests' object of leaves (the
 * differ's reshaped field): voxform applied the leaves, so the service's value is not what it applied;
 * the manifests are as applied when each of their leaves hashes to what the state keeps there.
 */
function reshapedClass(change: ResourceChange, field: FieldChange, input: ClassifyInput): DriftClass {
  const applied = input.workspace.agents[change.address]?.applied ?? {};
  // A leaf withheld (its variable is not set in this run) is not known: the others tell.
  const leaves = [...dottedLeaves(field.after, field.path)].filter(([, value]) => !(typeof value === 'string' && value.includes(WITHHELD)));
  if (leaves.every(([path]) => applied[path] === undefined)) return 'pending';
  return leaves.every(([path, value]) => applied[path] === hashApplied(input.salt, value)) ? 'outside' : 'both';
}

function resourceClass(fields: readonly DriftedField[]): DriftClass {
  const classes = new Set(fields.map((f) => f.class));
  if (classes.size === 1) return (fields[0] as DriftedField).class;
  // A resource some of whose fields cannot be told is not said to be changed on both sides.
  if (classes.has('unlabelled')) return 'unlabelled';
  if (classes.has('unrecorded')) return 'unrecorded';
  // Another environment's apply is what this one must settle first: its plan is refused there.
  return classes.has('environment') ? 'environment' : 'both';
}

/**
 * The field as classified: another environment's when its apply set the live value, else by the
 * state's hashes. `known`: as `classifyField` takes it; it is the field the report shows.
 */
function driftedField(change: ResourceChange, field: FieldChange, input: ClassifyInput, keyId: string, known: FieldChange = field): DriftedField {
  const conflict = input.conflicts?.find((c) => c.address === change.address && c.field === field.path);
  if (conflict) return { field: known, class: 'environment', environment: conflict.environment };
  const told = classifyField(change, field, input, keyId, known);
  // Without an apply of the workspace in this state, "not applied yet" is only this state's view: the
  // project may have been applied with another (another folder's, another --state).
  const fieldClass = told === 'pending' && input.noApplyRecorded ? 'unrecorded' : told;
  return { field: known, class: fieldClass, ...lastAppliedOf(change, field, input) };
}

/** Of an agent's field: what the state says voxform last applied there (its keyed hash), when it says. */
function lastAppliedOf(change: ResourceChange, field: FieldChange, input: ClassifyInput): Pick<DriftedField, 'lastApplied' | 'lastAppliedLeaves'> {
  if (change.kind !== 'agent') return {};
  const applied = input.workspace.agents[change.address]?.applied ?? {};
  if (isPlainObject(field.after)) {
    const leaves = Object.entries(applied).filter(([path]) => isDottedAtOrUnder(path, field.path) && path !== field.path);
    return leaves.length > 0 ? { lastAppliedLeaves: Object.fromEntries(leaves) } : {};
  }
  const lastApplied = applied[field.path];
  return lastApplied !== undefined ? { lastApplied } : {};
}

/**
 * Whether `--heal` puts an agent's field back: changed outside voxform (`outside` or `both`), other
 * than its knowledge files (the ledger records agents' names and configs only). Every other field is
 * left as the service holds it.
 */
export function healsField(field: DriftedField): boolean {
  return (field.class === 'outside' || field.class === 'both') && field.field.path !== 'knowledge';
}

/**
 * Whether the service's value at a place not compared (its variable is not set) is not what the
 * state's keyed hash says voxform last applied there: none there, or another value.
 */
export function notLastApplied(place: NotComparedField, salt: string): boolean {
  return place.field.before === undefined || place.lastApplied !== hashApplied(salt, place.field.before);
}

/**
 * Whether the state's keyed hash says the service's value at a place not compared (its variable is
 * not set) is not what voxform last applied there: changed outside voxform, whatever the manifests hold.
 */
function movedOnService(change: ResourceChange, place: NotComparedField, input: ClassifyInput, keyId: string): boolean {
  if (change.kind !== 'agent' || place.lastApplied === undefined) return false;
  if (hashedWithAnotherKey(input.workspace.agents[change.address]?.fingerprintKeyId, keyId)) return false;
  return notLastApplied(place, input.salt);
}

/**
 * The variables a field `--heal` would put back needs as voxform last applied them, this run not
 * having them so: where the manifests' value is withheld (not set; the record's value there reads it
 * too), or where the recorded value reads variables and the manifests' is not what was last applied
 * (`both`: not set with a default filling in another value, or set to another value since), the
 * record's would not be the value applied either. Undefined when it needs none.
 */
function variablesNeeded(change: ResourceChange, field: DriftedField, input: ClassifyInput): string[] | undefined {
  const unset = field.unsetVariables ?? field.valueNotShown;
  if (unset !== undefined) return unset;
  const read = field.class === 'both' ? (input.variablesRead?.(change, field.field) ?? []) : [];
  return read.length > 0 ? read : undefined;
}

/**
 * The variables `--heal` needs to put an agent back, this run not having them: where a field it would
 * put back reads one it lacks or holds another value of (`variablesNeeded`), and where the service's
 * value at a place not compared is not what voxform last applied (keeping it would pass that change
 * off as voxform's). Such an agent is left as the service holds it, every check alike until they are
 * set as at the last apply: refusing the whole heal instead would heal no other agent either.
 */
function healNeedsOf(change: ResourceChange, fields: readonly DriftedField[], places: readonly NotComparedField[], input: ClassifyInput): Pick<DriftedResource, 'healNeeds'> {
  const healed = fields.filter(healsField);
  if (change.kind !== 'agent' || healed.length === 0) return {};
  const putBack = healed.map((field) => variablesNeeded(change, field, input));
  const kept = places.filter((place) => notLastApplied(place, input.salt)).flatMap((place) => place.variables);
  const needs = [...new Set([...putBack.flatMap((variables) => variables ?? []), ...kept])].sort();
  const blocked = putBack.some((variables) => variables !== undefined) || kept.length > 0;
  return blocked ? { healNeeds: needs } : {};
}

/** Every changed resource of `plan`, classified; unchanged ones are counted only. */
export function classifyDrift(input: ClassifyInput): DriftReport {
  const { plan } = input;
  const keyId = fingerprintKeyId(input.salt);
  const resources: DriftedResource[] = [];
  const notCompared: NotComparedField[] = [];
  for (const change of plan.changes) {
    if (change.action === 'no-op') continue;
    if (change.kind === 'agent' && change.reason === 'gone') {
      // Applied, then deleted on the service: nothing left to compare, and the service cannot create agents, so no heal.
      resources.push({ change, address: change.address, kind: change.kind, class: 'outside', fields: [], gone: true, healable: false });
      continue;
    }
    const fields: DriftedField[] = [];
    const places: NotComparedField[] = [];
    for (const field of change.fieldChanges) {
      const variables = input.notCompared?.(change, field);
      if (variables === undefined) fields.push(driftedField(change, field, input, keyId));
      // A credential's side is a keyed hash, never withheld text: it is not compared whenever its variable is not set.
      // Shown with its withheld values as the service's: an unknown value is not a difference.
      else if (change.kind !== 'credential' && differsElsewhere(field)) fields.push({ ...driftedField(change, field, input, keyId, withheldAsLive(field)), unsetVariables: variables });
      else {
        const place: NotComparedField = { address: change.address, kind: change.kind, field, variables, ...lastAppliedOf(change, field, input) };
        if (movedOnService(change, place, input, keyId)) fields.push({ field, class: 'outside', lastApplied: place.lastApplied, valueNotShown: variables });
        else places.push(place);
      }
    }
    notCompared.push(...places);
    if (fields.length === 0) continue;
    const resourceClassOf = resourceClass(fields);
    const healNeeds = healNeedsOf(change, fields, places, input);
    resources.push({
      change,
      address: change.address,
      kind: change.kind,
      class: resourceClassOf,
      ...(resourceClassOf === 'environment' ? { environment: fields.find((f) => f.environment !== undefined)?.environment } : {}),
      fields,
      gone: change.reason === 'gone' || phoneGone(change, input.workspace),
      // One whose heal needs variables this run does not have is left by --heal, named with them: not healable here.
      healable: change.kind === 'agent' && fields.some(healsField) && healNeeds.healNeeds === undefined,
      ...healNeeds,
    });
  }
  const count = (wanted: DriftClass) => resources.filter((r) => r.class === wanted).length;
  return {
    checkedAt: plan.createdAt,
    workspace: input.workspaceKey,
    environment: plan.environment,
    baseUrl: plan.baseUrl,
    files: plan.files,
    resources,
    summary: {
      checked: plan.changes.length,
      outside: count('outside'),
      pending: count('pending'),
      both: count('both'),
      unlabelled: count('unlabelled'),
      environment: count('environment'),
      unrecorded: count('unrecorded'),
    },
    ...(notCompared.length > 0 ? { notCompared } : {}),
    ...(input.noApplyRecorded ? { noApplyRecorded: input.noApplyRecorded } : {}),
    ...(plan.noLongerManaged?.length ? { noLongerManaged: plan.noLongerManaged.map((resource) => resource.address) } : {}),
  };
}
