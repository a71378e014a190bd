/**
 * The notice a plain `plan` or `apply` of a promoted environment gives: it goes ahead (teams guard
 * such environments with CI permissions, and nothing in the docs makes a gate block a plain apply),
 * but the user learns that `voxform promote` is the way that checks the gates. `promote` plans and
 * applies the target itself, without this notice.
 */
import type { Gates } from '../manifest/promotion-settings.js';
import type { DesiredState } from '../manifest/types.js';
import { shellWord } from '../util/shell-word.js';
import type { CommandContext } from './context.js';
import { nextCommand, type ChosenTarget } from './next-command.js';

/** The gates an environment sets, by their names in the manifest. */
function gateNames(gates: Gates): string[] {
  const names: string[] = [];
  if (gates.tests) names.push('tests');
  if (gates.minCalls !== undefined) names.push('min_calls');
  if (gates.noRegression?.length) names.push('no_regression');
  if (gates.soak) names.push('soak');
  return names;
}

/**
 * On stderr, once, before the plan: the environment `desired` was loaded for is promoted from
 * another (`promote_from`), and this run does not check what `voxform promote` would. `chosen`:
 * this run's manifests, service and state, for the promote command to paste.
 */
export function warnPromotedEnvironment(desired: DesiredState, chosen: ChosenTarget, ctx: CommandContext): void {
  const environment = desired.environment;
  const promotion = environment === undefined ? undefined : desired.promotions?.get(environment);
  if (environment === undefined || promotion?.from === undefined) return;
  const gates = gateNames(promotion.gates);
  const unchecked = gates.length > 0 ? `does not check its gates (${gates.join(', ')})` : `does not check that it is given what ${promotion.from} runs`;
  const promote = nextCommand(`promote --to ${shellWord(environment)}`, { ...chosen, env: undefined });
  ctx.stderr.write(`warning: ${environment} is promoted from ${promotion.from} (docs/promotion.md): a plain plan or apply ${unchecked}; \`${promote}\` does.\n`);
}
