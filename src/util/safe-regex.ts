/**
 * Regular expressions from test files are untrusted: a pattern such as `^(a+)+$` takes exponential
 * time on some texts, and JavaScript's engine cannot be told to give up. So every match runs in a
 * separate V8 context with a time budget (V8 interrupts a running match when it is exceeded), the
 * text is capped in length, and the pattern's own length is capped by the schema. A run's matches
 * share a budget of their own (RegexTimeBudget): a test file of a thousand slow patterns, each
 * stopped at its own limit, would otherwise hold CI for minutes.
 */
import vm from 'node:vm';

/**
 * Longest text a regex is run on unless its caller gives another limit; a longer reply is matched on
 * its first part (said in the detail).
 */
const REGEX_SUBJECT_LIMIT = 20_000;
/** Time budget of one match. */
export const REGEX_TIME_BUDGET_MS = 250;
/** Time budget of every match of one run together (`voxform test`): twenty stopped matches. */
const REGEX_RUN_BUDGET_MS = 5_000;

const context = vm.createContext(Object.create(null) as object);
const script = new vm.Script('pattern.lastIndex = 0; pattern.exec(subject)?.index ?? -1');

/** `index`: where the first match starts, when there is one (a finding points at it). */
export type RegexMatch = { matched: boolean; truncated: boolean; index?: number };
export type RegexOutcome = RegexMatch | { timedOut: true };

/**
 * Why a match of a run was stopped or not run: over its time (`limitMs`: its own, or what was left
 * of the run's), a pattern stopped before, or the run's time spent.
 */
export type RegexRefusal = { timedOut: true; why: 'this-match'; limitMs: number } | { timedOut: true; why: 'stopped-before' | 'run-spent' };

/** Runs one match with a limit of time and of text: `matchWithBudget`, or a stand-in in tests. */
export type LimitedMatch = (pattern: RegExp, subject: string, limitMs: number, subjectLimit?: number) => RegexOutcome;

interface RegexTimeBudgetOptions {
  /** The time every match of the run may take together (ms). */
  totalMs?: number;
  /** Milliseconds from any fixed point: the wall clock, or a test's own clock (time budgets are never tested against the wall clock). */
  now?: () => number;
  match?: LimitedMatch;
}

/**
 * The time the matches of one run may take together. A pattern stopped once is not run again (it
 * fails at once, saying so), whichever test or rule compiled that text and those flags: each compiles
 * its own RegExp, and the same text is as slow in every one of them. Once the run's budget is spent
 * every further match fails at once; a match never gets more than what is left.
 */
export class RegexTimeBudget {
  readonly totalMs: number;
  #leftMs: number;
  /** The patterns stopped so far, by text and flags (stoppedKey). */
  readonly #stopped = new Set<string>();
  /** Time spent by each owner of the run's matches (what `match` was told, else the pattern's source). */
  readonly #spentBy = new Map<string, number>();
  readonly #now: () => number;
  readonly #match: LimitedMatch;

  constructor(options: RegexTimeBudgetOptions = {}) {
    this.totalMs = options.totalMs ?? REGEX_RUN_BUDGET_MS;
    this.#leftMs = this.totalMs;
    this.#now = options.now ?? (() => performance.now());
    this.#match = options.match ?? matchWithBudget;
  }

  /**
   * `owner`: who the match is for (a team rule's id), as `heaviestOwners` names it; `subjectLimit`:
   * the longest text matched whole (a longer one is matched on its first part, and `truncated` says so).
   */
  match(pattern: RegExp, subject: string, owner = pattern.source, subjectLimit = REGEX_SUBJECT_LIMIT): RegexMatch | RegexRefusal {
    if (this.#stopped.has(stoppedKey(pattern))) return { timedOut: true, why: 'stopped-before' };
    if (this.#leftMs <= 0) return { timedOut: true, why: 'run-spent' };
    const limitMs = Math.max(1, Math.min(REGEX_TIME_BUDGET_MS, Math.ceil(this.#leftMs)));
    const started = this.#now();
    const outcome = this.#match(pattern, subject, limitMs, subjectLimit);
    const spent = this.#now() - started;
    this.#leftMs -= spent;
    this.#spentBy.set(owner, (this.#spentBy.get(owner) ?? 0) + spent);
    if (!('timedOut' in outcome)) return outcome;
    this.#stopped.add(stoppedKey(pattern));
    return { timedOut: true, why: 'this-match', limitMs };
  }

  /** The owners whose matches took the most of the run's time, most first: where a run that ran out of time should look. */
  heaviestOwners(count: number): string[] {
    return [...this.#spentBy].sort((a, b) => b[1] - a[1]).slice(0, count).map(([owner]) => owner);
  }
}

/** One key for every RegExp of the same text and flags (flags hold no space). */
function stoppedKey(pattern: RegExp): string {
  return `${pattern.flags} ${pattern.source}`;
}

/** Whether `pattern` matches `subject`, or that it ran out of time (a check then fails with that reason). */
export function matchWithBudget(pattern: RegExp, subject: string, budgetMs = REGEX_TIME_BUDGET_MS, subjectLimit = REGEX_SUBJECT_LIMIT): RegexOutcome {
  const truncated = subject.length > subjectLimit;
  const sandbox = context as { pattern?: RegExp; subject?: string };
  sandbox.pattern = pattern;
  sandbox.subject = truncated ? subject.slice(0, subjectLimit) : subject;
  try {
    const index = script.runInContext(context, { timeout: budgetMs }) as number;
    return index === -1 ? { matched: false, truncated } : { matched: true, truncated, index };
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return { timedOut: true };
    throw error;
  } finally {
    delete sandbox.pattern;
    delete sandbox.subject;
  }
}

/**
 * The most branch points a pattern from a checkout may hold: each quantifier one, and a group of k
 * alternatives (`(a|b|c)`, the pattern's own `a|b` too) as many as it takes to choose among k, log2 k
 * rounded up, as each is a place a match can backtrack to, and the ways to backtrack multiply. V8
 * looks at a match's time limit only now and then, and ever more seldom as they multiply: `a?`
 * written fifty times runs far past any limit, and so does `(a|)` (which is `a?` without a
 * quantifier), or ten groups of 24 alternatives, each holding off Ctrl-C while it runs (the event
 * loop waits for the match). Under this many, a stopped match ends close to its limit; a list of 60
 * words is six.
 */
export const MAX_REGEX_BRANCH_POINTS = 20;

/**
 * Compiles a pattern from a checkout (a test file, a team rule); returns why it is refused: the
 * engine's complaint when it is not a valid regex, or that it holds more branch points than a time
 * limit can stop.
 */
export function compileRegex(source: string): RegExp | string {
  let pattern: RegExp;
  try {
    pattern = new RegExp(source);
  } catch (error) {
    return (error as Error).message.replace(/^Invalid regular expression: /, '');
  }
  const branchPoints = branchPointCount(source);
  if (branchPoints > MAX_REGEX_BRANCH_POINTS) {
    return `its quantifiers and alternatives make ${branchPoints} branch points (each ?, *, + and {…} one; a group of k alternatives log2 k, rounded up), more than the ${MAX_REGEX_BRANCH_POINTS} voxform runs: the engine checks a match's time limit too seldom in such a pattern to stop it in time; write it with fewer, or split it into several patterns`;
  }
  return pattern;
}

/**
 * The branch points of a valid pattern: each quantifier (`?`, `*`, `+` and `{…}`; a lazy `?` and the
 * `?` of `(?:` are none) one, and each group of k alternatives (the pattern itself is one) log2 k
 * rounded up; a `|` escaped or in a class is none.
 */
function branchPointCount(source: string): number {
  let count = 0;
  // Per group open, the pattern's own first: how many alternatives it holds.
  const alternatives = [1];
  const choices = (k: number) => Math.ceil(Math.log2(k));
  for (const part of patternParts(source)) {
    if (part.kind === 'open') {
      alternatives.push(1);
      continue;
    }
    if (part.quantifier) count++;
    if (part.kind === 'close') count += choices(alternatives.pop() ?? 1);
    else if (source[part.at] === '|') alternatives[alternatives.length - 1]! += 1;
  }
  return alternatives.reduce((sum, k) => sum + choices(k), count);
}

/** What a pattern refused before it runs is told to do. */
export const SIMPLIFY_NESTED_QUANTIFIERS = 'simplify it (nested quantifiers such as (a+)+ take exponential time)';

/**
 * Where a pattern repeats a group that itself repeats something — `(a+)+`, `(?:a|b*){2,}`, `((ab)*c)*`
 * — the shape that backtracks exponentially; undefined when it has none. For patterns matched where
 * even one stopped match costs too much (on every request of a server): refused before they run,
 * while the time budget above still stops what this misses (overlapping alternatives such as (a|a)*).
 */
export function nestedQuantifierAt(source: string): number | undefined {
  /** Per open group: where it opened and whether it holds a repeating quantifier. */
  const groups: { start: number; repeats: boolean }[] = [];
  const markRepeat = () => {
    const inner = groups[groups.length - 1];
    if (inner) inner.repeats = true;
  };
  for (const part of patternParts(source)) {
    if (part.kind === 'open') {
      groups.push({ start: part.at, repeats: false });
      continue;
    }
    const repeats = part.quantifier?.repeats === true;
    if (part.kind === 'atom') {
      if (repeats) markRepeat();
      continue;
    }
    const group = groups.pop();
    if (group && repeats && group.repeats) return group.start;
    // A repeated group, or one holding a repeat, makes its enclosing group hold a repeat.
    if (group && (group.repeats || repeats)) markRepeat();
  }
  return undefined;
}

/** A part of a pattern's source: a group's opening, its closing or an atom (an escape and a class are one), each of the last two with its quantifier. */
type PatternPart = { kind: 'open'; at: number } | { kind: 'close' | 'atom'; at: number; quantifier: { repeats: boolean } | undefined };

/** The parts of a pattern's source, in order; a quantifier's lazy `?` goes with it. */
function* patternParts(source: string): Generator<PatternPart> {
  let i = 0;
  while (i < source.length) {
    const at = i;
    const ch = source[i] as string;
    if (ch === '(') {
      i++;
      yield { kind: 'open', at };
      continue;
    }
    if (ch === '\\') {
      i += 2;
    } else if (ch === '[') {
      i++;
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
      i++;
    } else {
      i++;
    }
    const quantifier = quantifierAt(source, i);
    if (quantifier) i = quantifier.end + (source[quantifier.end] === '?' ? 1 : 0);
    yield { kind: ch === ')' ? 'close' : 'atom', at, quantifier: quantifier && { repeats: quantifier.repeats } };
  }
}

/** The quantifier at `at` of `source`, if one starts there: whether it may repeat its atom, and where it ends. */
function quantifierAt(source: string, at: number): { repeats: boolean; end: number } | undefined {
  const ch = source[at];
  if (ch === '*' || ch === '+') return { repeats: true, end: at + 1 };
  if (ch === '?') return { repeats: false, end: at + 1 };
  const braces = ch === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at)) : null;
  if (!braces) return undefined;
  const repeats = braces[2] !== undefined && (braces[3] === '' || Number(braces[3]) > 1);
  return { repeats: repeats || Number(braces[1]) > 1, end: at + braces[0].length };
}
