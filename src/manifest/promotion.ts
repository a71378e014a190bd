/**
 * Each environment's promotion settings: where it is promoted from (`promote_from`) and the gates
 * the source's evidence must pass (`gates`), checked across environments (a source that does not
 * exist, a cycle). The shape (a gate's type, a metric's name, a duration's form) is the schema's,
 * checked with the rest of the manifest; what does not fit it is left out here, already reported.
 */
import { isPlainObject } from '../util/json-object.js';
import type { DiagnosticList } from './diagnostics.js';
import { unknownEnvironmentDetail } from './environments.js';
import type { CombinedManifest } from './fragments.js';
import { spanAt } from './positions.js';
import { locationOf, type Span } from './source.js';
import { GATE_METRICS, parseDuration, type EnvironmentPromotion, type GateMetric, type Gates, type PromotionPlace } from './promotion-settings.js';

function gatesOf(value: unknown, keySpan: Span | undefined, locations: EnvironmentPromotion['locations']): Gates {
  if (!isPlainObject(value)) return {};
  if (keySpan) locations.gates = locationOf(keySpan);
  const place = (key: PromotionPlace) => {
    const span = spanAt(value, [key], 'key');
    if (span) locations[key] = locationOf(span);
  };
  const gates: Gates = {};
  if (value.tests === 'pass') {
    gates.tests = true;
    place('tests');
  }
  if (typeof value.min_calls === 'number' && Number.isSafeInteger(value.min_calls) && value.min_calls >= 1) {
    gates.minCalls = value.min_calls;
    place('min_calls');
  }
  if (Array.isArray(value.no_regression)) {
    gates.noRegression = [...new Set(value.no_regression.filter((metric): metric is GateMetric => (GATE_METRICS as readonly unknown[]).includes(metric)))];
    place('no_regression');
  }
  const seconds = typeof value.soak === 'string' ? parseDuration(value.soak) : undefined;
  if (seconds !== undefined) {
    gates.soak = { text: value.soak as string, seconds };
    place('soak');
  }
  return gates;
}

/**
 * Every environment that sets `promote_from` or `gates`, by name. A source that is no environment
 * and a chain that comes back to where it started are reported where `promote_from` is written.
 */
export function resolvePromotions(combined: CombinedManifest, diagnostics: DiagnosticList): Map<string, EnvironmentPromotion> {
  const promotions = new Map<string, EnvironmentPromotion>();
  const fromSpans = new Map<string, Span>();
  const known = [...combined.environments.keys()];
  for (const [environment, { promotion }] of combined.environments) {
    if (!promotion.promote_from && !promotion.gates) continue;
    const locations: EnvironmentPromotion['locations'] = {};
    let from: string | undefined;
    const written = promotion.promote_from;
    if (written && typeof written.value === 'string') {
      const span = written.valueSpan ?? written.keySpan;
      locations.promote_from = locationOf(written.keySpan);
      if (combined.environments.has(written.value)) {
        from = written.value;
        fromSpans.set(environment, span);
      } else {
        const detail = unknownEnvironmentDetail(written.value, known.filter((name) => name !== environment), true);
        diagnostics.error('promotion_source_unknown', `environment "${environment}" is promoted from "${written.value}", which is not an environment${detail}`, span);
      }
    }
    promotions.set(environment, { environment, from, gates: gatesOf(promotion.gates?.value, promotion.gates?.keySpan, locations), locations });
  }
  reportCycles(promotions, fromSpans, diagnostics);
  return promotions;
}

/**
 * The promotion settings of manifest documents as written, unchecked across environments: what a
 * base revision's manifests said, for comparing with a pull request's (src/review/). Places are
 * known where the documents carry their spans.
 */
export function promotionsOfDocuments(documents: ReadonlyArray<Record<string, unknown>>): Map<string, EnvironmentPromotion> {
  const promotions = new Map<string, EnvironmentPromotion>();
  for (const document of documents) {
    if (!isPlainObject(document.environments)) continue;
    for (const [environment, overlay] of Object.entries(document.environments)) {
      if (!isPlainObject(overlay) || (overlay.promote_from === undefined && overlay.gates === undefined)) continue;
      const locations: EnvironmentPromotion['locations'] = {};
      const fromSpan = spanAt(overlay, ['promote_from'], 'key');
      if (fromSpan) locations.promote_from = locationOf(fromSpan);
      const from = typeof overlay.promote_from === 'string' ? overlay.promote_from : undefined;
      promotions.set(environment, { environment, from, gates: gatesOf(overlay.gates, spanAt(overlay, ['gates'], 'key'), locations), locations });
    }
  }
  return promotions;
}

/** A chain of `promote_from` that returns to an environment on it: reported once, at the first of the cycle met. */
function reportCycles(promotions: ReadonlyMap<string, EnvironmentPromotion>, fromSpans: ReadonlyMap<string, Span>, diagnostics: DiagnosticList): void {
  const reported = new Set<string>();
  for (const start of promotions.keys()) {
    const chain: string[] = [];
    let at: string | undefined = start;
    while (at !== undefined && !chain.includes(at) && !reported.has(at)) {
      chain.push(at);
      at = promotions.get(at)?.from;
    }
    if (at === undefined || reported.has(at)) continue;
    const cycle = chain.slice(chain.indexOf(at));
    cycle.forEach((name) => reported.add(name));
    const words = cycle.length === 1 ? `environment "${at}" is promoted from itself` : `environments are promoted from each other in a circle: ${cycle.map((name) => `"${name}" from "${promotions.get(name)?.from}"`).join(', ')}`;
    diagnostics.error('promotion_cycle', `${words}; a promotion needs a source that is not promoted from its target`, fromSpans.get(at) as Span);
  }
}
