/**
 * Regular expressions from test files are untrusted: a pattern such as `^(a+)+$` takes exponential
 * time on some texts, and JavaScript's engine cannot be told to give up. So every match runs in a
 * separate V8 context with a time budget (V8 interrupts a running match when it is exceeded), the
 * text is capped in length, and the pattern's own length is capped by the schema.
 */
import vm from 'node:vm';

/** Longest text a regex is run on; a longer reply is matched on its first part (said in the detail). */
export const REGEX_SUBJECT_LIMIT = 20_000;
/** Time budget of one match. */
export const REGEX_TIME_BUDGET_MS = 250;

const context = vm.createContext(Object.create(null) as object);
const script = new vm.Script('pattern.lastIndex = 0; pattern.test(subject)');

export type RegexOutcome = { matched: boolean; truncated: boolean } | { timedOut: true };

/** Whether `pattern` matches `subject`, or that it ran out of time (a check then fails with that reason). */
export function matchWithBudget(pattern: RegExp, subject: string, budgetMs = REGEX_TIME_BUDGET_MS): RegexOutcome {
  const truncated = subject.length > REGEX_SUBJECT_LIMIT;
  const sandbox = context as { pattern?: RegExp; subject?: string };
  sandbox.pattern = pattern;
  sandbox.subject = truncated ? subject.slice(0, REGEX_SUBJECT_LIMIT) : subject;
  try {
    const matched = script.runInContext(context, { timeout: budgetMs }) as boolean;
    return { matched, truncated };
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return { timedOut: true };
    throw error;
  } finally {
    delete sandbox.pattern;
    delete sandbox.subject;
  }
}

/** Compiles a pattern from a test file; returns the engine's complaint when it is not a valid regex. */
export function compileRegex(source: string): RegExp | string {
  try {
    return new RegExp(source);
  } catch (error) {
    return (error as Error).message.replace(/^Invalid regular expression: /, '');
  }
}
