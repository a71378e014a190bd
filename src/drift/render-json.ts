/** The drift report as JSON (schemas/drift.schema.json): secrets redacted as the plan's JSON redacts them. */
import { REDACTED } from '../secrets/redact.js';
import { liveSidePatterns, redactValue } from '../plan/redact.js';
import { toJsonText } from '../util/printable.js';
import { missingStateJson } from '../state/missing-state.js';
import type { Diagnostic } from '../manifest/types.js';
import { hasDrift, liveUnknown, type DriftedField, type DriftedResource, type DriftReport } from './types.js';

const DRIFT_JSON_FORMAT_VERSION = '1.4';

function fieldJson(drifted: DriftedField, resource: DriftedResource) {
  const { field } = drifted;
  // The service's value is a secret and the manifests' not known: neither is carried, the variables are.
  if (drifted.valueNotShown !== undefined) {
    return { path: field.path, class: drifted.class, live: field.before === undefined ? null : REDACTED, live_unset: field.before === undefined, manifests: null, sensitive: field.sensitive, value_not_shown: drifted.valueNotShown };
  }
  const redactBy = (patterns: readonly string[]) => (value: unknown) => (field.sensitive && value !== undefined && value !== null ? REDACTED : redactValue(value, field.path, patterns));
  const redact = redactBy(resource.change.sensitivePaths);
  return {
    path: field.path,
    class: drifted.class,
    live: redactBy(liveSidePatterns(resource.change))(field.before) ?? null,
    // Not read is not unset: a campaign or credential the service cannot show back, with no state of it.
    live_unset: field.before === undefined && !liveUnknown(resource, drifted),
    ...(liveUnknown(resource, drifted) ? { live_unknown: true } : {}),
    manifests: redact(field.after) ?? null,
    sensitive: field.sensitive,
    ...(drifted.environment !== undefined ? { environment: drifted.environment } : {}),
  };
}

export function driftToJson(report: DriftReport): Record<string, unknown> {
  return {
    format_version: DRIFT_JSON_FORMAT_VERSION,
    checked_at: report.checkedAt,
    workspace: report.workspace,
    environment: report.environment ?? null,
    base_url: report.baseUrl,
    files: report.files,
    drift: hasDrift(report),
    summary: report.summary,
    resources: report.resources.map((resource) => ({
      address: resource.address,
      kind: resource.kind,
      id: resource.change.id ?? null,
      class: resource.class,
      ...(resource.environment !== undefined ? { environment: resource.environment } : {}),
      healable: resource.healable,
      // Why --heal leaves it in this run: the variables it needs, never their values.
      ...(resource.healNeeds ? { heal_needs: resource.healNeeds } : {}),
      // After a heal ran: whether this resource was put back. The fields are what differed before it.
      ...(report.heal && resource.healable ? { healed: report.heal.healed.includes(resource.address) } : {}),
      fields: resource.fields.map((field) => fieldJson(field, resource)),
    })),
    ...(report.heal ? { heal: report.heal } : {}),
    ...(report.noApplyRecorded ? { no_apply_recorded: { state: report.noApplyRecorded.state } } : {}),
    ...(report.missingState ? { missing_state: missingStateJson(report.missingState) } : {}),
    // Where and why only: the service's value there is a secret, and the manifests' is not known.
    ...(report.notCompared ? { not_compared: report.notCompared.map((place) => ({ address: place.address, kind: place.kind, path: place.field.path, variables: place.variables })) } : {}),
    // Named so that `drift: false` is not read as the service matching what the last apply recorded beyond the manifests.
    ...(report.noLongerManaged?.length ? { no_longer_managed: report.noLongerManaged } : {}),
  };
}

/** `diagnostics`: the manifests' warnings met loading them, last, when there are any (as a JSON plan carries its own). */
export function renderDriftJson(report: DriftReport, diagnostics: readonly Diagnostic[] = []): string {
  return `${toJsonText(diagnostics.length > 0 ? { ...driftToJson(report), diagnostics } : driftToJson(report), 2)}\n`;
}
