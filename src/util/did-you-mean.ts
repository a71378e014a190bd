/**
 * "Did you mean …?": the closest name to a mistyped one. A suggestion is a courtesy, and both its
 * name and the names it is compared with can be a pull request's (10,000 agents each naming a
 * missing file among 10,000 others, thousands of aliases before their anchors): every name compared
 * with every other took minutes. So suggestions draw on a budget of characters compared: one per
 * load of the manifests (`DiagnosticList.suggestions`), one per lone suggestion; past it, errors
 * come without one.
 */

/** Characters a budget lets suggestions compare: a planted file's names cost no more than that, and a fleet's typos find their names. */
export const MOST_SUGGESTION_CELLS = 10_000_000;

export class SuggestionBudget {
  cellsLeft = MOST_SUGGESTION_CELLS;
}

/**
 * The edit distance of `a` and `b` (Damerau: a swap of two neighbours counts as one edit) when it
 * is at most `most`, else `most + 1`; undefined when the suggestion budget ran out first.
 */
function distanceWithin(a: string, b: string, most: number, budget: SuggestionBudget): number | undefined {
  // Each insertion or deletion is an edit: a length that far off is never close enough.
  if (Math.abs(a.length - b.length) > most) return most + 1;
  let twoBack: number[] = [];
  let back = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    budget.cellsLeft -= b.length;
    if (budget.cellsLeft < 0) return undefined;
    const row = [i];
    let rowBest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let best = Math.min((back[j] as number) + 1, (row[j - 1] as number) + 1, (back[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) best = Math.min(best, (twoBack[j - 2] as number) + 1);
      row[j] = best;
      rowBest = Math.min(rowBest, best);
    }
    // No row's best falls below the row before's: past `most` here, the distance stays past it.
    if (rowBest > most) return most + 1;
    twoBack = back;
    back = row;
  }
  return Math.min(back[b.length] as number, most + 1);
}

/** The closest candidate to `input`, if one is close enough to be a likely typo (and `budget` lasts). */
export function didYouMean(input: string, candidates: Iterable<string>, budget = new SuggestionBudget()): string | undefined {
  const lower = input.toLowerCase();
  const allowed = Math.max(1, Math.min(3, Math.floor(input.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const lowered = candidate.toLowerCase();
    budget.cellsLeft -= lowered.length + 1;
    const distance = budget.cellsLeft < 0 ? undefined : distanceWithin(lower, lowered, allowed, budget);
    if (distance === undefined) return undefined;
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // Distance 0 is a difference of case only (`Prompt` for `prompt`): still worth suggesting.
  return best !== undefined && best !== input && bestDistance <= allowed ? best : undefined;
}
