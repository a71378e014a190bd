import { REDACTED } from '../secrets/redact.js';
import { liveSidePatterns, markChangedSecrets, redactValue } from './redact.js';
import type { FieldChange, Plan, PlannedRequest, ResourceChange } from './types.js';
import type { Diagnostic } from '../manifest/types.js';
import { jsonPieces } from '../util/json-pieces.js';
import { planPolicyJson } from '../policy/render.js';
import { PLAN_JSON_FORMAT_VERSION } from './format-version.js';
import { missingStateJson } from '../state/missing-state.js';
import { keyMoveCounts } from './field-lines.js';

function sortedObject(value: Record<string, unknown> | null, patterns: readonly string[]): Record<string, unknown> | null {
  if (value === null) return null;
  const keys = Object.keys(value).sort();
  return Object.fromEntries(keys.map((key) => [key, redactValue(value[key], key, patterns) ?? null]));
}

function jsonField(field: FieldChange, change: ResourceChange) {
  const redactBy = (patterns: readonly string[]) => (v: unknown) => (field.sensitive && v !== undefined && v !== null ? REDACTED : redactValue(v, field.path, patterns));
  const [redactBefore, redact] = [redactBy(liveSidePatterns(change)), redactBy(change.sensitivePaths)];
  // A secret inside a structured field that changes reads `(sensitive value changed)` on the after side,
  // as the text plan shows it: a saved plan keeps no secret to compare again (`plan show`).
  const marked = (shown: unknown) => (field.sensitive ? shown : markChangedSecrets(shown, field, change.sensitivePaths));
  return {
    path: field.path,
    // A field shown as written shows the live value as every renderer does (`FieldChange.shown`).
    before: (field.shown ? field.shown.before : redactBefore(field.before)) ?? null,
    after: marked(redact(field.after)) ?? null,
    // Format 1.6: the manifest's text, references unresolved, where it fills the field from `${env:…}`.
    ...(field.shown ? { after_written: marked(field.shown.after) ?? null } : {}),
    before_unset: field.before === undefined,
    sensitive: field.sensitive,
    drift: field.drift,
    // Format 1.6: the manifest addresses the values stand for (a phone's agent_id), beside the values.
    ...(field.names ? { names: { before: field.names.before ?? null, after: field.names.after ?? null } } : {}),
  };
}

/** A planned request as JSON: its body is already free of secrets, so it is shown as is. */
function requestToJson(request: PlannedRequest): Record<string, unknown> {
  return {
    id: request.id,
    operation: request.operation,
    method: request.method,
    path: request.path,
    body: request.body ?? null,
    fills: request.fills.map((fill) =>
      'secret' in fill.value ? { at: fill.at, secret: fill.value.secret } : { at: fill.at, result_of: fill.value.resultOf },
    ),
    depends_on: request.dependsOn,
  };
}

/** The plan as JSON for machines: versioned, secrets redacted, in a stable order, with each change's exact requests. */
export function planToJson(plan: Plan): Record<string, unknown> {
  return {
    format_version: PLAN_JSON_FORMAT_VERSION,
    created_at: plan.createdAt,
    manifest_hash: plan.manifestHash,
    files: plan.files,
    environment: plan.environment ?? null,
    base_url: plan.baseUrl,
    targets: plan.targets,
    // Format 1.8: present only for a plan made with --take-over.
    ...(plan.takeOver === undefined ? {} : { take_over: plan.takeOver }),
    // Format 1.7: the keys renamed and swapped, whose state entries apply moves.
    summary: { ...plan.summary, ...keyMoveCounts(plan.changes) },
    // Names only: a value read from the environment is never part of a plan.
    environment_variables: plan.environmentVariables
      ? { names: plan.environmentVariables.names, new: plan.environmentVariables.new, recorded: plan.environmentVariables.recorded }
      : null,
    resource_changes: plan.changes.map((change) => ({
      address: change.address,
      kind: change.kind,
      action: change.action,
      id: change.id ?? null,
      reason: change.reason ?? null,
      moved_from: change.movedFrom ?? null,
      // Format 1.6: present only for a key that named another agent or campaign at the last apply.
      ...(change.earlierId === undefined ? {} : { earlier_id: change.earlierId }),
      // Format 1.8: present only for a change a --take-over lets undo another environment's apply.
      ...(change.takesOverFrom === undefined ? {} : { takes_over_from: change.takesOverFrom }),
      depends_on: change.dependsOn,
      live_fingerprint: change.liveFingerprint,
      sensitive_paths: change.sensitivePaths,
      before: sortedObject(change.before, liveSidePatterns(change)),
      after: sortedObject(change.after, change.sensitivePaths),
      field_changes: change.fieldChanges.map((f) => jsonField(f, change)),
      requests: change.requests.map(requestToJson),
    })),
    ...(plan.policy ? { policy: planPolicyJson(plan.policy) } : {}),
    // Format 1.5: the state lost the workspace though its history records applies of it.
    ...(plan.missingState ? { missing_state: missingStateJson(plan.missingState) } : {}),
    // Format 1.6: what the state records that the manifests no longer name (nothing is sent for it).
    ...(plan.noLongerManaged ? { no_longer_managed: plan.noLongerManaged.map((r) => ({ address: r.address, kind: r.kind, id: r.id, attached_to: r.attachedTo, ...(r.keyNowNames === undefined ? {} : { key_now_names: r.keyNowNames }) })) } : {}),
  };
}

/**
 * The levels of a plan's JSON written an entry at a time (`jsonPieces`): the plan, its changes, each
 * change. A piece holds at most one member of a change (its `after`, its field changes, its
 * requests): a prompt a few times, never the plan's every prompt.
 */
export const PLAN_JSON_LEVELS = 3;

/**
 * `diagnostics`: the manifests' warnings met making it, last, when there are any (so that `plan
 * show`, which loads no manifest, prints a plan without warnings as `plan` did); a saved plan keeps none.
 */
export function renderPlanJson(plan: Plan, diagnostics: Diagnostic[] = []): string {
  return [...planJsonPieces(plan, diagnostics)].join('');
}

/** `renderPlanJson` in pieces, for the CLI to write as they come: at the plan budget, its text is too large to be one string. */
export function* planJsonPieces(plan: Plan, diagnostics: Diagnostic[] = []): Generator<string> {
  yield* jsonPieces(diagnostics.length > 0 ? { ...planToJson(plan), diagnostics } : planToJson(plan), PLAN_JSON_LEVELS);
  yield '\n';
}
