/**
 * A saved plan read back into a `Plan`, so `apply PLAN` runs exactly what was reviewed. A damaged or
 * hand-edited file is refused with `plan_unreadable`, never half-run; its redacted values are all
 * apply needs, as request bodies never hold a secret.
 */
import { VoxformError } from '../errors.js';
import type { Action, ChangeReason, FieldChange, FillSource, NoLongerManaged, Plan, PlannedRequest, RequestOperation, ResourceChange, ResourceKind, ValueFill } from './types.js';
import { isPlainObject } from '../util/json-object.js';
import type { PathSegment } from '../util/field-path.js';
import { isName, isOneOf, isText, isWhole, ShapeError } from '../util/json-shape.js';
import { planPolicyFromJson } from '../policy/read-plan-policy.js';

const KINDS: readonly ResourceKind[] = ['agent', 'phone', 'campaign', 'knowledge', 'credential'];
const ACTIONS: readonly Action[] = ['create', 'update', 'no-op'];
const REASONS: readonly ChangeReason[] = ['drift', 'live_unknown', 'content_changed', 'gone'];
const METHODS: readonly PlannedRequest['method'][] = ['GET', 'PUT', 'POST'];
const OPERATIONS: readonly RequestOperation[] = [
  'set_credential',
  'upload_knowledge_file',
  'update_agent',
  'read_agent',
  'set_agent_files',
  'import_phone',
  'set_phone_agent',
  'edit_campaign_info',
  'set_campaign_caller',
];

type Json = Record<string, unknown>;

function field<T>(object: Json, key: string, check: (value: unknown) => value is T, what: string): T {
  const value = object[key];
  if (!check(value)) throw new ShapeError(`${what}: \`${key}\` is missing or malformed`);
  return value;
}

const isTexts = (v: unknown): v is string[] => Array.isArray(v) && v.every(isText);
const isNames = (v: unknown): v is string[] => Array.isArray(v) && v.every(isName);
const isPathPart = (v: unknown): v is PathSegment => isText(v) || isWhole(v);
const isPath = (v: unknown): v is PathSegment[] => Array.isArray(v) && v.every(isPathPart);

function readFill(value: unknown, where: string): ValueFill {
  if (!isPlainObject(value)) throw new ShapeError(`${where}: a fill is not an object`);
  const at = field(value, 'at', isPath, where);
  let source: FillSource;
  if (isText(value.result_of)) source = { resultOf: value.result_of };
  else if (isPlainObject(value.secret)) {
    const secret = value.secret;
    source = {
      secret: {
        address: field(secret, 'address', isText, where),
        from: field(secret, 'from', isOneOf(['manifest', 'live'] as const), where),
        path: field(secret, 'path', isPath, where),
      },
    };
  } else throw new ShapeError(`${where}: a fill has neither \`secret\` nor \`result_of\``);
  return { at, value: source };
}

function readRequest(value: unknown, where: string): PlannedRequest {
  if (!isPlainObject(value)) throw new ShapeError(`${where}: a request is not an object`);
  const id = field(value, 'id', isName, where);
  const body = value.body;
  if (body !== null && !isPlainObject(body)) throw new ShapeError(`${where} ${id}: \`body\` is malformed`);
  const fills = field(value, 'fills', Array.isArray, `${where} ${id}`) as unknown[];
  return {
    id,
    operation: field(value, 'operation', isOneOf(OPERATIONS), `${where} ${id}`),
    method: field(value, 'method', isOneOf(METHODS), `${where} ${id}`),
    path: field(value, 'path', isText, `${where} ${id}`),
    body: body === null ? undefined : body,
    fills: fills.map((fill) => readFill(fill, `${where} ${id}`)),
    dependsOn: field(value, 'depends_on', isNames, `${where} ${id}`),
  };
}

function readFieldChange(value: unknown, where: string): FieldChange {
  if (!isPlainObject(value)) throw new ShapeError(`${where}: a field change is not an object`);
  const before = value.before_unset === true ? undefined : value.before;
  return {
    path: field(value, 'path', isText, where),
    before,
    after: value.after,
    sensitive: value.sensitive === true,
    drift: value.drift === true,
    // Saved as shown: `before` as every renderer shows it beside the text as written.
    ...(Object.hasOwn(value, 'after_written') ? { shown: { before, after: value.after_written } } : {}),
    ...namesOf(value.names, where),
  };
}

/** A field change's manifest addresses for its values (format 1.6; absent before and for most fields). */
function namesOf(value: unknown, where: string): Pick<FieldChange, 'names'> {
  if (value === undefined) return {};
  const isNameOrNull = (v: unknown): v is string | null => v === null || isName(v);
  if (!isPlainObject(value) || !isNameOrNull(value.before) || !isNameOrNull(value.after)) throw new ShapeError(`${where}: a field change's \`names\` is malformed`);
  return { names: { before: value.before ?? undefined, after: value.after ?? undefined } };
}

function readChange(value: unknown): ResourceChange {
  if (!isPlainObject(value)) throw new ShapeError('a resource change is not an object');
  const address = field(value, 'address', isName, 'a resource change');
  const values = (key: string) => (isPlainObject(value[key]) ? (value[key] as Json) : null);
  const reason = value.reason;
  return {
    address,
    kind: field(value, 'kind', isOneOf(KINDS), address),
    action: field(value, 'action', isOneOf(ACTIONS), address),
    id: isText(value.id) ? field(value, 'id', isName, address) : undefined,
    before: values('before'),
    after: values('after'),
    fieldChanges: (field(value, 'field_changes', Array.isArray, address) as unknown[]).map((f) => readFieldChange(f, address)),
    sensitivePaths: field(value, 'sensitive_paths', isTexts, address),
    reason: isOneOf(REASONS)(reason) ? reason : undefined,
    ...(isText(value.moved_from) ? { movedFrom: field(value, 'moved_from', isName, address) } : {}),
    ...(value.earlier_id === undefined ? {} : { earlierId: field(value, 'earlier_id', isName, address) }),
    ...(value.takes_over_from === undefined ? {} : { takesOverFrom: field(value, 'takes_over_from', isNames, address) }),
    dependsOn: field(value, 'depends_on', isNames, address),
    requests: (field(value, 'requests', Array.isArray, address) as unknown[]).map((r) => readRequest(r, address)),
    liveFingerprint: field(value, 'live_fingerprint', isText, address),
  };
}

/** Every dependency names a request of the plan, and none leads back to itself (apply would wait forever). */
function checkDependencies(requests: readonly PlannedRequest[]): void {
  const byId = new Map(requests.map((r) => [r.id, r]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const visit = (request: PlannedRequest): void => {
    if (done.has(request.id)) return;
    if (visiting.has(request.id)) throw new ShapeError(`request ${request.id} depends on itself through its dependencies`);
    visiting.add(request.id);
    for (const id of request.dependsOn) {
      const dependency = byId.get(id);
      if (!dependency) throw new ShapeError(`request ${request.id} depends on ${id}, which the plan does not hold`);
      visit(dependency);
    }
    visiting.delete(request.id);
    done.add(request.id);
  };
  requests.forEach(visit);
}

/** The names of the variables the plan's manifests read, as the plan showed them (names only). */
function environmentVariablesOf(value: unknown): Pick<Plan, 'environmentVariables'> {
  if (!isPlainObject(value) || !isTexts(value.names) || !isTexts(value.new) || typeof value.recorded !== 'boolean') return {};
  if (!isNames(value.names) || !isNames(value.new)) throw new ShapeError('the plan: `environment_variables` is malformed');
  return { environmentVariables: { names: value.names, new: value.new, recorded: value.recorded } };
}

/** The state that lost the workspace when the plan was made, as the plan showed it. */
function missingStateOf(value: unknown): Pick<Plan, 'missingState'> {
  if (value === undefined) return {};
  const where = 'the plan: `missing_state`';
  if (!isPlainObject(value) || !isPlainObject(value.last_apply)) throw new ShapeError(`${where} is malformed`);
  const lastApply = { id: field(value.last_apply, 'id', isName, where), at: field(value.last_apply, 'at', isText, where) };
  return { missingState: { state: field(value, 'state', isText, where), lastApply } };
}

/** What the state recorded that the manifests no longer named, as the plan listed it (format 1.6; absent before). */
function noLongerManagedOf(value: unknown): Pick<Plan, 'noLongerManaged'> {
  if (value === undefined) return {};
  const where = 'the plan: `no_longer_managed`';
  if (!Array.isArray(value)) throw new ShapeError(`${where} is malformed`);
  const read = value.map((item): NoLongerManaged => {
    if (!isPlainObject(item)) throw new ShapeError(`${where} is malformed`);
    return {
      address: field(item, 'address', isName, where),
      kind: field(item, 'kind', isOneOf(KINDS), where),
      id: field(item, 'id', isName, where),
      attachedTo: field(item, 'attached_to', isNames, where),
      ...(item.key_now_names === undefined ? {} : { keyNowNames: field(item, 'key_now_names', isName, where) }),
    };
  });
  return read.length > 0 ? { noLongerManaged: read } : {};
}

function policyOf(value: unknown): Pick<Plan, 'policy'> {
  const policy = planPolicyFromJson(value);
  return policy ? { policy } : {};
}

/** The plan a saved plan file holds; `plan_unreadable` when any part of it is malformed. */
export function planFromJson(saved: Json, file: string): Plan {
  try {
    const changes = (field(saved, 'resource_changes', Array.isArray, 'the plan') as unknown[]).map(readChange);
    const ids = new Set<string>();
    for (const request of changes.flatMap((c) => c.requests)) {
      if (ids.has(request.id)) throw new ShapeError(`request ${request.id} appears twice`);
      ids.add(request.id);
    }
    checkDependencies(changes.flatMap((c) => c.requests));
    const summary = isPlainObject(saved.summary) ? saved.summary : {};
    const count = (key: string) => (typeof summary[key] === 'number' ? (summary[key] as number) : 0);
    return {
      formatVersion: 1,
      createdAt: field(saved, 'created_at', isText, 'the plan'),
      manifestHash: field(saved, 'manifest_hash', isText, 'the plan'),
      files: field(saved, 'files', isTexts, 'the plan'),
      environment: isText(saved.environment) ? field(saved, 'environment', isName, 'the plan') : undefined,
      baseUrl: field(saved, 'base_url', isName, 'the plan'),
      targets: field(saved, 'targets', isNames, 'the plan'),
      ...(saved.take_over === undefined ? {} : { takeOver: field(saved, 'take_over', isNames, 'the plan') }),
      changes,
      summary: { create: count('create'), update: count('update'), unchanged: count('unchanged'), drifted: count('drifted') },
      ...environmentVariablesOf(saved.environment_variables),
      ...policyOf(saved.policy),
      ...missingStateOf(saved.missing_state),
      ...noLongerManagedOf(saved.no_longer_managed),
    };
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error;
    throw new VoxformError('plan_unreadable', `${file} is not a valid voxform plan: ${error.message}.`, { hint: 'Make it again with `voxform plan --out FILE`.' });
  }
}
