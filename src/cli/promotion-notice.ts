/**
 * The notices of a promoted environment (`promote_from`). A plain `plan` or `apply` of one goes ahead
 * (teams guard such environments with CI permissions, and nothing in the docs makes a gate block a
 * plain apply), but the user learns that `voxform promote` is the way that checks the gates.
 * `promote` plans and applies the target itself, without this notice. A rollback of one is told that
 * the next promotion puts back what the source runs.
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

/**
 * After a rollback of the environment `desired` was loaded for, when it is promoted from another:
 * the next promotion (docs/ci.md runs it on a schedule) gives it what the source runs, undoing the
 * rollback, unless the source is given the configuration to keep first. Undefined otherwise.
 */
export function promotedRollbackNote(desired: DesiredState, chosen: ChosenTarget): string | undefined {
  const environment = desired.environment;
  const source = environment === undefined ? undefined : desired.promotions?.get(environment)?.from;
  if (environment === undefined || source === undefined) return undefined;
  const promote = nextCommand(`promote --to ${shellWord(environment)}`, { ...chosen, env: undefined });
  const history = nextCommand('history', { ...chosen, env: source });
  return (
    `${environment} is promoted from ${source}: the next \`${promote}\` undoes this rollback too, giving ${environment} what ${source} runs. ` +
    `To stop that, give ${source} the configuration to keep first (roll it back as well, or apply a fix to it; \`${history}\` lists its records), and promote ${environment} only after that.`
  );
}
