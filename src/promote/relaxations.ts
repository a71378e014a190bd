/**
 * How a change weakens promotion gates, base manifest → head manifest: a lower `min_calls`, a
 * shorter `soak`, a gate or a metric removed, tests no longer required, a source removed or
 * changed. Pure: the pull request's plan comment shows each at its top, pointing at the head's manifest.
 */
import type { EnvironmentPromotion, PromotionPlace } from '../manifest/promotion-settings.js';
import { relaxationPlace, type Relaxation } from '../policy/plan-policy.js';

type Promotions = ReadonlyMap<string, EnvironmentPromotion>;

/** Every weakening of a gate from `base` to `head` (each the `promotions` of a loaded manifest), by environment name. */
export function gateRelaxations(base: Promotions, head: Promotions): Relaxation[] {
  const found: Relaxation[] = [];
  for (const environment of [...base.keys()].sort()) {
    const before = base.get(environment) as EnvironmentPromotion;
    const after = head.get(environment);
    const add = (message: string, ...places: PromotionPlace[]) => found.push({ kind: 'gate', message: `${environment}: ${message}`, ...relaxationPlace(places.map((place) => after?.locations[place]).find(Boolean)) });
    if (before.from !== undefined && after?.from !== before.from) {
      add(after?.from === undefined ? `promote_from ${before.from} removed` : `promote_from changed from ${before.from} to ${after.from}`, 'promote_from');
    }
    const was = before.gates;
    const now = after?.gates ?? {};
    if (was.tests && !now.tests) add('tests: pass is no longer required', 'gates', 'promote_from');
    if (was.minCalls !== undefined) {
      if (now.minCalls === undefined) add(`min_calls removed (was ${was.minCalls})`, 'gates', 'promote_from');
      else if (now.minCalls < was.minCalls) add(`min_calls lowered from ${was.minCalls} to ${now.minCalls}`, 'min_calls');
    }
    for (const metric of was.noRegression ?? []) {
      if (!(now.noRegression ?? []).includes(metric)) add(`no_regression no longer checks ${metric}`, 'no_regression', 'gates', 'promote_from');
    }
    if (was.soak) {
      if (!now.soak) add(`soak removed (was ${was.soak.text})`, 'gates', 'promote_from');
      else if (now.soak.seconds < was.soak.seconds) add(`soak shortened from ${was.soak.text} to ${now.soak.text}`, 'soak');
    }
  }
  return found;
}
