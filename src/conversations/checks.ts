/**
 * Evaluating checks: on a reply (contains, not_contains, equals, regex, judge) and on the call
 * record (tool_called with args, tool_not_called, call_status, judge). A judge check without a
 * judge (`--skip-judge`) is `skipped`, never `passed`; a judge that fails to answer is `error`.
 */
import { isVoxformError } from '../errors.js';
import { jsonEqual } from '../util/json-equal.js';
import { judge } from './judge.js';
import type { RunJudgeCache } from './judge-cache.js';
import type { CompletionModel } from '../model/chat-model.js';
import { REGEX_TIME_BUDGET_MS, SIMPLIFY_NESTED_QUANTIFIERS, type RegexRefusal, type RegexTimeBudget } from '../util/safe-regex.js';
import type { ArgExpectation, CallCheck, CheckResult, CheckStatus, ReplyCheck, TranscriptMessage } from './types.js';
import { isPlainObject } from '../util/json-object.js';
import { keepText, shortenRedacted, type Redact } from '../secrets/redact.js';
import { plural } from '../util/plural.js';

/** A tool call as the call record lists it (`function_calls`: name and params). */
export interface ToolCall {
  name: string;
  params: unknown;
}

export interface CallRecordView {
  callStatus: string | undefined;
  toolCalls: ToolCall[];
  transcript: TranscriptMessage[];
}

/**
 * What a check needs besides its subject: the judge (undefined with `--skip-judge`), and how to hide
 * secrets in the texts a detail quotes — an agent's reply may hold one (a greeting filled from
 * `${env:…}`), and a quote is shortened, which must happen after redaction (`shortenRedacted`).
 */
interface CheckContext {
  model: CompletionModel | undefined;
  redact?: Redact | undefined;
  /** The time the run's regex checks share (one per run, safe-regex.ts). */
  regexTime: RegexTimeBudget;
  /** The judge's cached verdicts (live runs without --no-cache; judge-cache.ts). */
  judgeCache?: RunJudgeCache | undefined;
}

/** A quoted text for a check's name or detail: redacted, then cut to 60 characters. */
const short = (text: string, redact: Redact = keepText): string => JSON.stringify(shortenRedacted(text, 60, redact));

/** Characters an `equals` detail quotes from before the first difference. */
const DIFFERENCE_CONTEXT = 20;

/**
 * Where an `equals` check's texts first differ, each quoted from a little before that place: both
 * quoted from their start and cut, a difference past the cut would not show. Redacted before it is
 * cut, as every quote is.
 */
function differenceDetail(expected: string, reply: string, redact: Redact = keepText): string {
  const want = redact(expected);
  const got = redact(reply);
  let at = 0;
  while (at < want.length && at < got.length && want[at] === got[at]) at++;
  let from = Math.max(0, at - DIFFERENCE_CONTEXT);
  // Never from the second half of a surrogate pair.
  if (from > 0 && /[\uDC00-\uDFFF]/.test(got[from] ?? '')) from--;
  const quote = (text: string) => JSON.stringify(`${from > 0 ? '…' : ''}${shortenRedacted(text.slice(from), 60, keepText)}`);
  return `the reply differs at character ${at + 1}: it has ${quote(got)}, expected ${quote(want)}`;
}

function describeReplyCheck(check: ReplyCheck): string {
  if (check.kind === 'regex') return `regex ${short(check.pattern.source)}`;
  if (check.kind === 'judge') return `judge: ${check.rubric}`;
  return `${check.kind} ${short(check.text)}`;
}

/** The argument expectations a call check holds: tool_called's, or each of tool_calls'. */
export function argsOfCheck(check: CallCheck): Array<Record<string, ArgExpectation> | undefined> {
  if (check.kind === 'tool_called') return [check.args];
  if (check.kind === 'tool_calls') return check.calls.map((call) => call.args);
  return [];
}

function describeCallCheck(check: CallCheck): string {
  if (check.kind === 'tool_called') return `tool_called ${check.tool}${check.args ? ` with ${Object.keys(check.args).join(', ')}` : ''}`;
  if (check.kind === 'tool_calls') return `tool_calls ${check.calls.length === 0 ? '(none)' : check.calls.map((call) => call.tool).join(', ')}`;
  if (check.kind === 'tool_not_called') return `tool_not_called ${check.tool}`;
  if (check.kind === 'call_status') return `call_status ${check.status}`;
  return `judge (transcript): ${check.rubric}`;
}

function result(check: string, turn: number | undefined, status: CheckStatus, detail?: string): CheckResult {
  return { check, turn, status, detail };
}

export async function checkReply(check: ReplyCheck, reply: string, turn: number, context: CheckContext): Promise<CheckResult> {
  const name = describeReplyCheck(check);
  const { redact } = context;
  switch (check.kind) {
    case 'contains':
      return reply.toLowerCase().includes(check.text.toLowerCase()) ? result(name, turn, 'passed') : result(name, turn, 'failed', `the reply does not contain ${short(check.text)}`);
    case 'not_contains':
      return reply.toLowerCase().includes(check.text.toLowerCase()) ? result(name, turn, 'failed', `the reply contains ${short(check.text)}`) : result(name, turn, 'passed');
    case 'equals':
      return reply.trim() === check.text.trim() ? result(name, turn, 'passed') : result(name, turn, 'failed', differenceDetail(check.text.trim(), reply.trim(), redact));
    case 'regex':
      return regexResult(name, turn, check.pattern, reply, 'the reply', context.regexTime);
    case 'judge':
      return judgeResult(name, turn, context, check.rubric, reply, 'reply of the agent');
  }
}

const CALLER_WORDS = "this check is met by the caller's own words";

/**
 * A passed `contains` or `equals` check whose text the caller said in the conversation so far is
 * flagged: the reply may only repeat the caller (the emulator's deterministic agent echoes every
 * message), so the check shows nothing of the agent. It still passes; reports say why it is weak.
 */
export function flagCallerWords(check: ReplyCheck, outcome: CheckResult, transcript: readonly TranscriptMessage[]): CheckResult {
  if (outcome.status !== 'passed' || (check.kind !== 'contains' && check.kind !== 'equals')) return outcome;
  const wanted = check.kind === 'contains' ? check.text.toLowerCase() : check.text.trim().toLowerCase();
  const said = transcript.some((line) => line.role === 'user' && line.content.toLowerCase().includes(wanted));
  return said ? { ...outcome, detail: CALLER_WORDS, flag: 'caller_words' } : outcome;
}

const SIMPLIFY = SIMPLIFY_NESTED_QUANTIFIERS;

function refusalDetail(refusal: RegexRefusal, time: RegexTimeBudget): string {
  const runTime = `${time.totalMs / 1000} s`;
  switch (refusal.why) {
    case 'this-match':
      return refusal.limitMs < REGEX_TIME_BUDGET_MS
        ? `the regular expression ran longer than the ${refusal.limitMs} ms left of this run's ${runTime} of regex time and was stopped; ${SIMPLIFY}`
        : `the regular expression ran longer than ${REGEX_TIME_BUDGET_MS} ms and was stopped; ${SIMPLIFY}`;
    case 'stopped-before':
      return `the regular expression was stopped for running too long on an earlier text and is not run again; ${SIMPLIFY}`;
    case 'run-spent':
      return `not run: the regular expressions of this run have used their ${runTime} of time together; simplify the slow ones (the checks stopped for running too long name them)`;
  }
}

/**
 * A pattern stopped for running too long fails: it is the test's to simplify. One the run's spent
 * regex time kept from running is an error, not run: other files' slow patterns spent it, and a
 * correct check's verdict must not depend on which files ran first.
 */
function regexResult(name: string, turn: number | undefined, pattern: RegExp, subject: string, what: string, time: RegexTimeBudget): CheckResult {
  const outcome = time.match(pattern, subject);
  if ('timedOut' in outcome) return result(name, turn, outcome.why === 'run-spent' ? 'error' : 'failed', refusalDetail(outcome, time));
  if (outcome.matched) return result(name, turn, 'passed');
  return result(name, turn, 'failed', `${what} does not match${outcome.truncated ? ' (only its first 20,000 characters were searched)' : ''}`);
}

async function judgeResult(name: string, turn: number | undefined, context: CheckContext, rubric: string, subject: string, what: string): Promise<CheckResult> {
  if (!context.model) return result(name, turn, 'skipped', 'no judge (--skip-judge)');
  try {
    const question = { rubric, subject, what };
    let verdict = await context.judgeCache?.get(question);
    if (!verdict) {
      verdict = await judge(context.model, question, context.redact);
      await context.judgeCache?.put(question, verdict);
    }
    return result(name, turn, verdict.pass ? 'passed' : 'failed', `judge: ${verdict.reason}`);
  } catch (error) {
    // A replayed judge answer the recording does not hold is the run's: auto then runs it live from its first turn.
    if (!isVoxformError(error) || error.code === 'not_recorded') throw error;
    return result(name, turn, 'error', error.message);
  }
}

export async function checkCall(check: CallCheck, record: CallRecordView, context: CheckContext): Promise<CheckResult> {
  const name = describeCallCheck(check);
  switch (check.kind) {
    case 'tool_not_called': {
      const count = record.toolCalls.filter((call) => call.name === check.tool).length;
      return count === 0 ? result(name, undefined, 'passed') : result(name, undefined, 'failed', `${check.tool} was called ${plural(count, 'time')}`);
    }
    case 'call_status':
      return record.callStatus === check.status ? result(name, undefined, 'passed') : result(name, undefined, 'failed', `the call status is ${record.callStatus ?? '(none)'}`);
    case 'judge': {
      const text = record.transcript.map((line) => `${line.role === 'user' ? 'Caller' : 'Agent'}: ${line.content}`).join('\n');
      return judgeResult(name, undefined, context, check.rubric, text, 'transcript of the call');
    }
    case 'tool_called':
      return toolCalledResult(name, check, record.toolCalls, context);
    case 'tool_calls':
      return toolCallsResult(name, check, record.toolCalls, context);
  }
}

/** The calls made, in order, are exactly those listed, each with the arguments listed. */
async function toolCallsResult(name: string, check: Extract<CallCheck, { kind: 'tool_calls' }>, toolCalls: ToolCall[], context: CheckContext): Promise<CheckResult> {
  const made = toolCalls.map((call) => call.name);
  const wanted = check.calls.map((call) => call.tool);
  if (made.length !== wanted.length || made.some((tool, index) => tool !== wanted[index])) {
    return result(name, undefined, 'failed', `the tools called were ${made.length === 0 ? '(none)' : made.join(', ')}; expected ${wanted.length === 0 ? '(none)' : wanted.join(', ')}`);
  }
  let skipped = false;
  for (const [index, expected] of check.calls.entries()) {
    if (!expected.args) continue;
    const outcome = await matchArgs(expected.args, toolCalls[index]?.params, context);
    if (outcome.status === 'failed' || outcome.status === 'error') return result(name, undefined, outcome.status, `call ${index + 1} (${expected.tool}): ${outcome.detail ?? 'its arguments do not match'}`);
    if (outcome.status === 'skipped') skipped = true;
  }
  return skipped ? result(name, undefined, 'skipped', 'an argument is checked by the judge (--skip-judge)') : result(name, undefined, 'passed');
}

async function toolCalledResult(name: string, check: Extract<CallCheck, { kind: 'tool_called' }>, toolCalls: ToolCall[], context: CheckContext): Promise<CheckResult> {
  const calls = toolCalls.filter((call) => call.name === check.tool);
  if (calls.length === 0) {
    const others = [...new Set(toolCalls.map((call) => call.name))];
    return result(name, undefined, 'failed', `${check.tool} was not called${others.length > 0 ? ` (called: ${others.join(', ')})` : ' (no tool was called)'}`);
  }
  if (!check.args) return result(name, undefined, 'passed');
  let lastProblem = '';
  let undecided: string | undefined;
  let skipped = false;
  for (const call of calls) {
    const outcome = await matchArgs(check.args, call.params, context);
    if (outcome.status === 'passed') return result(name, undefined, 'passed', outcome.detail);
    if (outcome.status === 'skipped') skipped = true;
    // A call whose match could not be decided (the judge failed, the regex time was spent) may be the one that matches.
    if (outcome.status === 'error') undecided ??= outcome.detail;
    lastProblem = outcome.detail ?? lastProblem;
  }
  if (undecided !== undefined) return result(name, undefined, 'error', `a call of ${check.tool} could not be checked: ${undecided}`);
  if (skipped) return result(name, undefined, 'skipped', 'an argument is checked by the judge (--skip-judge)');
  return result(name, undefined, 'failed', `no call of ${check.tool} matches: ${lastProblem}`);
}

async function matchArgs(expected: Record<string, ArgExpectation>, params: unknown, context: CheckContext): Promise<{ status: CheckStatus; detail?: string }> {
  const actual = isPlainObject(params) ? params : {};
  let status: CheckStatus = 'passed';
  for (const [arg, expectation] of Object.entries(expected)) {
    if (!Object.hasOwn(actual, arg)) return { status: 'failed', detail: `argument ${arg} is missing` };
    const value = actual[arg];
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (expectation.kind === 'exact') {
      if (!jsonEqual(value, expectation.value)) {
        const wanted = shortenRedacted(JSON.stringify(expectation.value) ?? 'null', 60, context.redact ?? keepText);
        return { status: 'failed', detail: `${arg} is ${short(text, context.redact)}, expected ${wanted}` };
      }
    } else if (expectation.kind === 'regex') {
      const outcome = regexResult(arg, undefined, expectation.pattern, text, `${arg} (${short(text, context.redact)})`, context.regexTime);
      if (outcome.status !== 'passed') return { status: outcome.status, detail: outcome.detail };
    } else {
      const outcome = await judgeResult(arg, undefined, context, expectation.rubric, text, `value of the argument ${arg}`);
      if (outcome.status === 'failed' || outcome.status === 'error') return { status: outcome.status, detail: `${arg}: ${outcome.detail}` };
      if (outcome.status === 'skipped') status = 'skipped';
    }
  }
  return { status };
}
