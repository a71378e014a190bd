/**
 * The work team rules may do in one run, counted rather than timed: each value a rule's path
 * reaches (the resource itself and the values on the way included) is one check. A wildcard path
 * checks every value it reaches, so two hundred rules over an agent's twenty thousand keys are four
 * million checks, and manifests at their size caps hold far more; past the budget a run stops
 * checking and fails, saying so (evaluate.ts), instead of taking minutes. A count, not a clock, so
 * the verdict is the same on a loaded machine as on an idle one.
 */
import { RULE_CHECK_BUDGET } from '../project-files/limits.js';

/**
 * The checks of one run: shared by every evaluation of one command (`validate` checks each
 * environment), so more environments never mean more work. Once a take is refused, every later
 * one is too.
 */
export class RuleCheckBudget {
  readonly total: number;
  #left: number;
  /** Checks made by each team rule, by id. */
  readonly #madeBy = new Map<string, number>();

  constructor(options: { total?: number } = {}) {
    this.total = options.total ?? RULE_CHECK_BUDGET;
    this.#left = this.total;
  }

  /** Takes `count` checks for the rule `owner`; false, leaving none, when fewer are left. */
  take(owner: string, count: number): boolean {
    if (count > this.#left) {
      this.#left = 0;
      return false;
    }
    this.#left -= count;
    this.#madeBy.set(owner, (this.#madeBy.get(owner) ?? 0) + count);
    return true;
  }

  /** The rules that made the most checks, most first: where a run that ran out should look. */
  heaviestOwners(count: number): string[] {
    return [...this.#madeBy].sort((a, b) => b[1] - a[1]).slice(0, count).map(([owner]) => owner);
  }
}
