import { afterEach, describe, expect, it } from 'vitest';
import { checkCall, checkReply } from '../../src/conversations/checks.js';
import { overallStatus } from '../../src/conversations/conversation.js';
import { judge, nextCallerMove } from '../../src/conversations/judge.js';
import { ChatModel } from '../../src/model/chat-model.js';
import { compileRegex, matchWithBudget, RegexTimeBudget } from '../../src/util/safe-regex.js';
import type { CallCheck, ReplyCheck } from '../../src/conversations/types.js';
import { startFakeModel, type FakeModel } from '../helpers/fake-model.js';
import { SecretRegistry } from '../../src/secrets/redact.js';

let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const REPLY = 'Thanks for calling Acme Dental! We are open 9 to 5.';

describe('reply checks', () => {
  it.each<[string, ReplyCheck, string, string | undefined]>([
    ['contains ignores case', { kind: 'contains', text: 'acme DENTAL' }, 'passed', undefined],
    ['contains misses', { kind: 'contains', text: 'Saturday' }, 'failed', 'the reply does not contain "Saturday"'],
    ['not_contains ignores case', { kind: 'not_contains', text: 'OPEN' }, 'failed', 'the reply contains "OPEN"'],
    ['not_contains holds', { kind: 'not_contains', text: 'closed' }, 'passed', undefined],
    ['equals is exact (trimmed)', { kind: 'equals', text: ` ${REPLY} ` }, 'passed', undefined],
    ['equals keeps case', { kind: 'equals', text: REPLY.toLowerCase() }, 'failed', `the reply differs at character 1: it has "${REPLY}", expected "${REPLY.toLowerCase()}"`],
    ['regex matches', { kind: 'regex', pattern: /open \d+ to \d+\.$/ }, 'passed', undefined],
    ['regex misses', { kind: 'regex', pattern: /^Hello/ }, 'failed', 'the reply does not match'],
    ['judge without a judge is skipped, never passed', { kind: 'judge', rubric: 'Gives the hours.' }, 'skipped', 'no judge (--skip-judge)'],
  ])('%s', async (_name, check, status, detail) => {
    expect(await checkReply(check, REPLY, 1, { model: undefined, regexTime: new RegexTimeBudget() })).toMatchObject({ status, detail, turn: 1 });
  });

  it('equals quotes both texts from just before their first difference, however far in it lies', async () => {
    const greeting = 'Thank you for calling Acme Dental, this is Ava, your receptionist. How can I help you today?';
    const result = await checkReply({ kind: 'equals', text: greeting.replace('today', 'tomorrow') }, greeting, 1, { model: undefined, regexTime: new RegexTimeBudget() });
    expect(result.detail).toBe('the reply differs at character 89: it has "…ow can I help you today?", expected "…ow can I help you tomorrow?"');
    // A reply that stops short shows where it ends.
    const short = await checkReply({ kind: 'equals', text: greeting }, greeting.replace(' you today?', ''), 1, { model: undefined, regexTime: new RegexTimeBudget() });
    expect(short.detail).toBe('the reply differs at character 82: it has "…nist. How can I help", expected "…nist. How can I help you today?"');
  });

  it('stops a catastrophic regex at its time budget instead of hanging, and says why', async () => {
    const result = await checkReply({ kind: 'regex', pattern: /^(a+)+$/ }, `${'a'.repeat(40)}b`, 2, { model: undefined, regexTime: new RegexTimeBudget() });
    expect(result.status).toBe('failed');
    expect(result.detail).toMatch(/ran longer than 250 ms and was stopped; simplify it/);
  });

  it('does not run a pattern again once it was stopped, and reports every match as not run (an error) once the run has spent its time', async () => {
    // A clock of the test's own and a stand-in for V8's limited match: a slow pattern uses all the
    // time it is given and 10 ms more (V8 stops a match a little late); a fast one uses 1 ms.
    let clock = 0;
    const limits: number[] = [];
    const slow = new Set<RegExp>([/^(a+)+$/, /^(b+)+$/]);
    const match = (pattern: RegExp, subject: string, limitMs: number) => {
      limits.push(limitMs);
      if (slow.has(pattern)) {
        clock += limitMs + 10;
        return { timedOut: true as const };
      }
      clock += 1;
      return { matched: pattern.test(subject), truncated: false };
    };
    const [first, second] = [...slow] as [RegExp, RegExp];
    const context = { model: undefined, regexTime: new RegexTimeBudget({ totalMs: 400, now: () => clock, match }) };
    expect(await checkReply({ kind: 'regex', pattern: /Hello/ }, 'Hello', 1, context)).toMatchObject({ status: 'passed' });
    expect(await checkReply({ kind: 'regex', pattern: first }, 'aaab', 2, context)).toMatchObject({
      status: 'failed',
      detail: 'the regular expression ran longer than 250 ms and was stopped; simplify it (nested quantifiers such as (a+)+ take exponential time)',
    });
    expect(await checkReply({ kind: 'regex', pattern: first }, 'aaab', 3, context)).toMatchObject({
      status: 'failed',
      detail: 'the regular expression was stopped for running too long on an earlier text and is not run again; simplify it (nested quantifiers such as (a+)+ take exponential time)',
    });
    // 400 - 1 - 260 = 139 ms are left: another slow pattern gets that much and is stopped at it.
    expect(await checkReply({ kind: 'regex', pattern: second }, 'bbba', 4, context)).toMatchObject({
      status: 'failed',
      detail: "the regular expression ran longer than the 139 ms left of this run's 0.4 s of regex time and was stopped; simplify it (nested quantifiers such as (a+)+ take exponential time)",
    });
    // Now even a fast pattern is not run: the run's regex time is spent. Not run is an error, not a
    // failure: the verdict of a correct check never depends on which file's slow patterns ran first.
    const notRun = await checkReply({ kind: 'regex', pattern: /Hello/ }, 'Hello', 5, context);
    expect(overallStatus([{ check: 'contains "Hello"', turn: 5, status: 'passed', detail: undefined }, notRun])).toBe('error');
    expect(notRun).toMatchObject({
      status: 'error',
      detail: 'not run: the regular expressions of this run have used their 0.4 s of time together; simplify the slow ones (the checks stopped for running too long name them)',
    });
    expect(limits).toEqual([250, 250, 139]);
  });

  it('does not run a pattern again in a later test that compiled the same text and flags itself', async () => {
    // Every test of a file compiles its own RegExp: thirty tests of `(a|aa)+$` must cost one stopped
    // match, not thirty. A clock of the test's own; every match of `(a|aa)+$` is stopped.
    let clock = 0;
    let runs = 0;
    const match = (pattern: RegExp, subject: string, limitMs: number) => {
      runs++;
      if (pattern.source === '(a|aa)+$') {
        clock += limitMs;
        return { timedOut: true as const };
      }
      clock += 1;
      return { matched: pattern.test(subject), truncated: false };
    };
    const context = { model: undefined, regexTime: new RegexTimeBudget({ now: () => clock, match }) };
    const text = `${'a'.repeat(5000)}!`;
    const compiled = (source: string, flags?: string) => {
      const pattern = flags === undefined ? compileRegex(source) : new RegExp(source, flags);
      if (typeof pattern === 'string') throw new Error(pattern);
      return pattern;
    };
    expect(await checkReply({ kind: 'regex', pattern: compiled('(a|aa)+$') }, text, 1, context)).toMatchObject({ status: 'failed', detail: expect.stringMatching(/^the regular expression ran longer than 250 ms and was stopped/) });
    for (let test = 2; test <= 30; test++) {
      expect(await checkReply({ kind: 'regex', pattern: compiled('(a|aa)+$') }, text, 1, context)).toMatchObject({
        status: 'failed',
        detail: expect.stringMatching(/^the regular expression was stopped for running too long on an earlier text and is not run again/),
      });
    }
    expect(runs).toBe(1);
    // The same text with other flags is another pattern: it runs (and is stopped) on its own.
    expect(await checkReply({ kind: 'regex', pattern: compiled('(a|aa)+$', 'i') }, text, 1, context)).toMatchObject({ detail: expect.stringMatching(/ran longer than 250 ms and was stopped/) });
    expect(runs).toBe(2);
  });

  it('matches long texts on their first 20,000 characters', () => {
    expect(matchWithBudget(/b/, `${'a'.repeat(30_000)}b`)).toEqual({ matched: false, truncated: true });
    expect(matchWithBudget(/^a/, 'a')).toEqual({ matched: true, truncated: false, index: 0 });
    expect(matchWithBudget(/b/, 'aab')).toEqual({ matched: true, truncated: false, index: 2 });
  });
});

describe('call record checks', () => {
  const record = {
    callStatus: 'chat_completion',
    toolCalls: [
      { name: 'find_slots', params: { date: '2026-03-03', treatment: 'cleaning' } },
      { name: 'find_slots', params: { date: '2025-01-01' } },
    ],
    transcript: [
      { role: 'user' as const, content: 'A cleaning on Tuesday?' },
      { role: 'assistant' as const, content: 'Booked for Tuesday 9am.' },
    ],
  };
  it.each<[string, CallCheck, string, string | undefined]>([
    ['tool_called', { kind: 'tool_called', tool: 'find_slots', args: undefined }, 'passed', undefined],
    ['tool_called names what was called', { kind: 'tool_called', tool: 'transfer_call', args: undefined }, 'failed', 'transfer_call was not called (called: find_slots)'],
    ['args: exact and regex, any matching call', { kind: 'tool_called', tool: 'find_slots', args: { date: { kind: 'regex', pattern: /^2026-/ }, treatment: { kind: 'exact', value: 'cleaning' } } }, 'passed', undefined],
    ['args: no call matches', { kind: 'tool_called', tool: 'find_slots', args: { date: { kind: 'exact', value: '2027-01-01' } } }, 'failed', 'no call of find_slots matches: date is "2025-01-01", expected "2027-01-01"'],
    ['args: a missing argument', { kind: 'tool_called', tool: 'find_slots', args: { room: { kind: 'exact', value: 1 } } }, 'failed', 'no call of find_slots matches: argument room is missing'],
    ['args judged without a judge are skipped', { kind: 'tool_called', tool: 'find_slots', args: { date: { kind: 'judge', rubric: 'a Tuesday' } } }, 'skipped', 'an argument is checked by the judge (--skip-judge)'],
    ['tool_not_called', { kind: 'tool_not_called', tool: 'find_slots' }, 'failed', 'find_slots was called 2 times'],
    ['call_status', { kind: 'call_status', status: 'agent-ended' }, 'failed', 'the call status is chat_completion'],
    ['tool_calls: the calls in order, with their args', { kind: 'tool_calls', calls: [{ tool: 'find_slots', args: { date: { kind: 'regex', pattern: /^2026-/ } } }, { tool: 'find_slots', args: undefined }] }, 'passed', undefined],
    ['tool_calls: another sequence', { kind: 'tool_calls', calls: [{ tool: 'find_slots', args: undefined }] }, 'failed', 'the tools called were find_slots, find_slots; expected find_slots'],
    ['tool_calls: none expected', { kind: 'tool_calls', calls: [] }, 'failed', 'the tools called were find_slots, find_slots; expected (none)'],
    ['tool_calls: an argument of the second call', { kind: 'tool_calls', calls: [{ tool: 'find_slots', args: undefined }, { tool: 'find_slots', args: { date: { kind: 'exact', value: '2026-03-03' } } }] }, 'failed', 'call 2 (find_slots): date is "2025-01-01", expected "2026-03-03"'],
  ])('%s', async (_name, check, status, detail) => {
    expect(await checkCall(check, record, { model: undefined, regexTime: new RegexTimeBudget() })).toMatchObject({ status, detail, turn: undefined });
  });

  it('an argument whose check cannot be decided (the run\'s regex time spent, the judge failing) makes the check an error, never a failure', async () => {
    // A regex time already spent: every match is not run.
    const spent = new RegexTimeBudget({ totalMs: 0, now: () => 0, match: () => ({ matched: true, truncated: false }) });
    const byRegex = { date: { kind: 'regex' as const, pattern: /^2026-/ } };
    expect(await checkCall({ kind: 'tool_called', tool: 'find_slots', args: byRegex }, record, { model: undefined, regexTime: spent })).toMatchObject({ status: 'error' });
    expect(await checkCall({ kind: 'tool_calls', calls: [{ tool: 'find_slots', args: byRegex }, { tool: 'find_slots', args: undefined }] }, record, { model: undefined, regexTime: spent })).toMatchObject({ status: 'error' });
    fake = await startFakeModel(() => ({ content: 'not json at all' }));
    const model = new ChatModel({ url: fake.url, model: 'm', apiKey: undefined });
    const byJudge = { date: { kind: 'judge' as const, rubric: 'a date' } };
    expect(await checkCall({ kind: 'tool_called', tool: 'find_slots', args: byJudge }, record, { model, regexTime: new RegexTimeBudget() })).toMatchObject({ status: 'error' });
  });

  it('expects an argument equal as JSON (key order aside), as jsonEqual tells: a value JSON has no form for is no null', async () => {
    const called = { callStatus: 'chat_completion', toolCalls: [{ name: 'book', params: { room: null, floor: { b: 2, a: 1 } } }], transcript: [] };
    const check = (arg: string, value: unknown): CallCheck => ({ kind: 'tool_called', tool: 'book', args: { [arg]: { kind: 'exact', value } } });
    const outcome = (value: unknown, arg = 'room') => checkCall(check(arg, value), called, { model: undefined, regexTime: new RegexTimeBudget() });
    // A test file cannot write .inf or .nan (yaml_unsupported); a caller of checkCall can, and text equality took them for null.
    for (const value of [Number.POSITIVE_INFINITY, Number.NaN]) expect(await outcome(value)).toMatchObject({ status: 'failed' });
    expect(await outcome(null)).toMatchObject({ status: 'passed' });
    expect(await outcome({ a: 1, b: 2 }, 'floor')).toMatchObject({ status: 'passed' });
  });

  it('judges the transcript with the judge model and records its reason', async () => {
    fake = await startFakeModel();
    const model = new ChatModel({ url: fake.url, model: 'fake-judge', apiKey: 'judge-key-123456' });
    expect(await checkCall({ kind: 'judge', rubric: 'Mentions "Tuesday 9am".' }, record, { model, regexTime: new RegexTimeBudget() })).toMatchObject({ status: 'passed', detail: 'judge: the text meets the rubric' });
    expect(await checkCall({ kind: 'judge', rubric: 'Mentions "Wednesday".' }, record, { model, regexTime: new RegexTimeBudget() })).toMatchObject({ status: 'failed', detail: 'judge: the text does not mention "Wednesday"' });
    expect(fake.requests[0]?.messages.at(-1)?.content).toContain('Caller: A cleaning on Tuesday?\nAgent: Booked for Tuesday 9am.');
    expect(fake.requests[0]?.response_format).toEqual({ type: 'json_object' });
    expect(fake.authorizations[0]).toBe('Bearer judge-key-123456');
  });
});

describe('the judge and the caller validate the model’s answers', () => {
  it('asks once more after a malformed verdict, then reports an error (never a pass)', async () => {
    const answers = ['not json', '{"verdict":"pass","reason":"fine"}'];
    fake = await startFakeModel(() => ({ content: answers.shift() ?? '{"verdict": "maybe"}' }));
    const model = new ChatModel({ url: fake.url, model: 'm', apiKey: undefined });
    expect(await judge(model, { rubric: 'r', subject: 's', what: 'reply' })).toEqual({ pass: true, reason: 'fine' });
    await expect(judge(model, { rubric: 'r', subject: 's', what: 'reply' })).rejects.toMatchObject({ code: 'model_answer_invalid' });
    expect(await checkReply({ kind: 'judge', rubric: 'r' }, 'x', 1, { model, regexTime: new RegexTimeBudget() })).toMatchObject({ status: 'error' });
  });

  it('refuses a model URL that is not http(s), saying what to give instead', () => {
    expect(() => new ChatModel({ url: 'ftp://x', model: 'm', apiKey: undefined })).toThrow(
      expect.objectContaining({
        code: 'model_url_invalid',
        message: 'The model URL must be http or https, not ftp.',
        hint: 'Give the base URL of an OpenAI-compatible API, such as http://127.0.0.1:11434/v1 (VOXFORM_JUDGE_URL for the judge, --llm or VOXFORM_EMULATOR_LLM for the emulator).',
      }),
    );
  });

  it('turns a failing model into a clear error', async () => {
    const model = new ChatModel({ url: 'http://127.0.0.1:9/v1', model: 'm', apiKey: undefined, timeoutMs: 2000 });
    await expect(judge(model, { rubric: 'r', subject: 's', what: 'reply' })).rejects.toMatchObject({ code: 'model_failed', message: expect.stringMatching(/^The model at http:\/\/127\.0\.0\.1:9\/v1 failed: /) });
  });

  it('the caller speaks in role and says when its goal is reached', async () => {
    fake = await startFakeModel();
    const model = new ChatModel({ url: fake.url, model: 'm', apiKey: undefined });
    const caller = { persona: 'A patient who wants a cleaning.', goal: 'A slot is booked.', maxTurns: 5 };
    expect(await nextCallerMove(model, caller, [{ role: 'assistant', content: 'Hello!' }])).toEqual({ message: 'A patient who wants a cleaning.', goalReached: false });
    // The agent's lines reach the caller model as `user`, its own as `assistant`.
    expect(fake.requests[0]?.messages.slice(1)).toEqual([{ role: 'user', content: 'Hello!' }]);
  });
});

describe('a quoted text is redacted before it is shortened', () => {
  // The secret straddles every cut: a reply quoted at 60 characters, a judge's reason at 1,000, a
  // malformed answer at 120, a caller's message at 4,000. Cut first, its first part would be printed.
  const SECRET = 'S3CRET-greeting-token-42';
  const secrets = new SecretRegistry();
  secrets.add(SECRET);
  const redact = (text: string) => secrets.redact(text);
  const around = (cut: number) => `${'x'.repeat(cut - 10)} ${SECRET} and more`;
  const leaks = (text: string | undefined) => Array.from({ length: SECRET.length - 5 }, (_, at) => SECRET.slice(at, at + 6)).filter((piece) => text?.includes(piece));

  it('in the detail of equals and of a tool argument', async () => {
    const equals = await checkReply({ kind: 'equals', text: 'Hello' }, around(60), 1, { model: undefined, redact, regexTime: new RegexTimeBudget() });
    expect(equals.detail).toBe(`the reply differs at character 1: it has "${'x'.repeat(50)} (sensiti…", expected "Hello"`);
    const record = { callStatus: undefined, transcript: [], toolCalls: [{ name: 'book', params: { code: around(60) } }] };
    const exact = await checkCall({ kind: 'tool_called', tool: 'book', args: { code: { kind: 'exact', value: 'x' } } }, record, { model: undefined, redact, regexTime: new RegexTimeBudget() });
    expect(leaks(exact.detail)).toEqual([]);
    expect(exact.detail).toBe(`no call of book matches: code is "${'x'.repeat(50)} (sensiti…", expected "x"`);
    const regex = await checkCall({ kind: 'tool_called', tool: 'book', args: { code: { kind: 'regex', pattern: /^y/ } } }, record, { model: undefined, redact, regexTime: new RegexTimeBudget() });
    expect(leaks(regex.detail)).toEqual([]);
  });

  it('in a judge\'s reason, a malformed answer and a caller\'s message', async () => {
    const answers = [{ verdict: 'fail', reason: around(1000) }, 'not json', `not json ${around(120)}`, { message: around(4000), goal_reached: false }];
    fake = await startFakeModel(() => {
      const next = answers.shift();
      return { content: typeof next === 'string' ? next : JSON.stringify(next) };
    });
    const model = new ChatModel({ url: fake.url, model: 'm', apiKey: undefined });
    const verdict = await judge(model, { rubric: 'r', subject: 's', what: 'reply' }, redact);
    expect(leaks(verdict.reason)).toEqual([]);
    const invalid = await checkReply({ kind: 'judge', rubric: 'r' }, 'x', 1, { model, redact, regexTime: new RegexTimeBudget() });
    expect(invalid.status).toBe('error');
    expect(leaks(invalid.detail)).toEqual([]);
    const move = await nextCallerMove(model, { persona: 'p', goal: 'g', maxTurns: 2 }, [], redact);
    expect(leaks(move.message)).toEqual([]);
    expect(move.message?.endsWith(' (sensiti…')).toBe(true);
  });
});
