import { describe, expect, it } from 'vitest';
import { renderTestJunit } from '../../src/conversations/render-junit.js';
import { renderTestJson } from '../../src/conversations/render-json.js';
import { renderTestMarkdown } from '../../src/conversations/render-markdown.js';
import { COMMENT_SIZE_LIMIT } from '../../src/util/comment-blocks.js';
import { renderTestText } from '../../src/conversations/render-text.js';
import { behaviourChange, runPreparedTests } from '../../src/conversations/runner.js';
import type { ApiClient } from '../../src/api/index.js';
import type { CompletionModel } from '../../src/model/chat-model.js';
import type { ConversationTest, RunResult, TestReport, TestRun, TestVerdict } from '../../src/conversations/types.js';

function failedRun(reply: string): RunResult {
  return {
    status: 'failed',
    transcript: [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: reply },
    ],
    checks: [{ check: 'contains "hours"', turn: 1, status: 'failed', detail: 'the reply does not contain "hours"' }],
    toolCalls: undefined,
    error: undefined,
    durationMs: 200,
  };
}

const verdict = (results: RunResult[], status: TestVerdict['status'], passes: number): TestVerdict => ({ status, passes, runs: results.length, passRate: 1, results });

function report(name: string, reply: string): TestReport {
  return { file: 'tests/a.test.yaml', agent: 'front-desk', name, location: { file: 'tests/a.test.yaml', line: 3, col: 11 }, verdicts: { desired: verdict([failedRun(reply)], 'failed', 0) } };
}

function run(reports: TestReport[]): TestRun {
  return { against: ['desired'], reports, changes: [], summary: { desired: { passed: 0, failed: reports.length, skipped: 0, errors: 0 } }, durationMs: 1500 };
}

describe('renderers', () => {
  it('text: a line per test, the failed checks and the transcript', () => {
    expect(renderTestText(run([report('gives hours', 'We open at 9.')]), { color: false })).toBe(
      [
        'tests/a.test.yaml (agent front-desk)',
        '  FAIL  gives hours  [desired 0/1]',
        '        desired, run 1 of 1:',
        '        ✗ turn 1: contains "hours" — the reply does not contain "hours"',
        '          caller: Hi',
        '          agent : We open at 9.',
        '',
        'desired: 0 passed, 1 failed',
        '(1 test in 1.5 s)',
        '',
      ].join('\n'),
    );
  });

  it('JUnit: escapes markup, and control characters readably (XML 1.0 forbids most of them)', () => {
    const xml = renderTestJunit(run([report('a <b> & "c"', 'bad \u0001 byte </system-out>')]));
    expect(xml).toContain('<testcase name="a &lt;b&gt; &amp; &quot;c&quot;" classname="tests.a" file="tests/a.test.yaml" line="3" time="0.200">');
    expect(xml).toContain('<system-out>caller: Hi\nagent : bad \\u0001 byte &lt;/system-out&gt;</system-out>');
    expect(xml).not.toContain('\u0001');
  });

  it('JUnit: the run\'s time is the sum of its suites\' (tests run side by side: the wall clock would be shorter)', () => {
    const xml = renderTestJunit(run([report('one', 'x'), report('two', 'y')]));
    expect(xml).toMatch(/<testsuites name="voxform test" tests="2" failures="2" errors="0" skipped="0" time="0\.400">/);
  });

  it('JUnit flags a check met by the caller\'s own words, in the words of the text report', () => {
    const echoed: RunResult = {
      ...failedRun('A cleaning on Saturday, sure.'),
      status: 'passed',
      checks: [{ check: 'contains "saturday"', turn: 1, status: 'passed', detail: "this check is met by the caller's own words", flag: 'caller_words' }],
    };
    const passing = run([{ ...report('echo', ''), verdicts: { desired: verdict([echoed], 'passed', 1) } }]);
    const warning = 'turn 1: contains "saturday" — this check is met by the caller&apos;s own words';
    expect(renderTestText(passing, { color: false })).toContain('        ⚠ turn 1: contains "saturday" — this check is met by the caller\'s own words\n');
    expect(renderTestJunit(passing)).toContain(
      [
        '    <testcase name="echo" classname="tests.a" file="tests/a.test.yaml" line="3" time="0.200">',
        '      <properties>',
        `        <property name="caller_words" value="${warning.replaceAll('"', '&quot;')}"/>`,
        '      </properties>',
        `      <system-out>⚠ ${warning.replaceAll('"', '&quot;')}</system-out>`,
        '    </testcase>',
      ].join('\n'),
    );
  });

  it('a repeated test that met its pass rate shows none of its failed runs, in text, Markdown and JUnit alike', () => {
    const passedRun: RunResult = { ...failedRun('We open at 9, opening hours 9 to 5.'), status: 'passed', checks: [] };
    const metRate: TestVerdict = { status: 'passed', passes: 4, runs: 5, passRate: 0.8, results: [passedRun, failedRun('No idea.'), passedRun, passedRun, passedRun] };
    const tests: TestRun = { ...run([{ ...report('gives hours', ''), verdicts: { desired: metRate } }]), summary: { desired: { passed: 1, failed: 0, skipped: 0, errors: 0 } } };
    for (const rendered of [renderTestText(tests, { color: false }), renderTestMarkdown(tests), renderTestJunit(tests)]) {
      expect(rendered).toContain('gives hours');
      expect(rendered).not.toContain('No idea.');
      expect(rendered).not.toContain('does not contain');
    }
    expect(renderTestMarkdown(tests)).not.toContain('<details>');
  });

  it('Markdown: transcripts cannot break out of their block, and the comment is size-capped', () => {
    const fenced = renderTestMarkdown(run([report('x', 'a ```` fence')]));
    expect(fenced).toContain('`````text\ncaller: Hi\nagent : a ```` fence\n`````');

    const many = Array.from({ length: 300 }, (_, i) => report(`test ${i}`, 'x'.repeat(400)));
    const capped = renderTestMarkdown(run(many), 20_000);
    expect(capped.length).toBeLessThanOrEqual(20_000);
    expect(capped).toMatch(/_\d+ more failures not shown \(the comment is size-capped\); the job log and `--format json` have them all\._\n$/);
  });

  it('Markdown: the size cap is in UTF-8 bytes, so text of many bytes a character stays within it (GitLab and the docs count bytes)', () => {
    const many = Array.from({ length: 300 }, (_, i) => report(`prueba ${i} del menú`, 'ñandú, café y ✓ '.repeat(25)));
    const capped = renderTestMarkdown(run(many), 20_000);
    expect(Buffer.byteLength(capped, 'utf8')).toBeLessThanOrEqual(20_000);
    expect(Buffer.byteLength(capped, 'utf8')).toBeGreaterThan(18_000);
    expect(capped).toMatch(/more failures not shown/);
  });

  it('Markdown: a secret is hidden before the comment is cut at the size limit, never cut in two', () => {
    const secret = 'S3CRET-greeting-token-42';
    const tests = run([report(`${'n'.repeat(3000)} ${secret}`, 'ok')]);
    // A limit that cuts the test table in the middle of the secret.
    const limit = renderTestMarkdown(tests, 1_000_000).indexOf(secret) + 40 + 8;
    const redact = (text: string) => text.replaceAll(secret, '(sensitive)');
    const capped = renderTestMarkdown(tests, limit, redact);
    expect(capped.length).toBeLessThanOrEqual(limit);
    expect(capped).toContain('| …and 1 more test (`--format json` lists every one) | | |\n');
    expect(capped).not.toContain(secret.slice(0, 8));
  });

  it('Markdown: a thousand tests, half failing: the table is cut at a row, failing rows first, and failures are shown, the rest counted', () => {
    const passed = (): TestVerdict => ({ status: 'passed', passes: 1, runs: 1, passRate: 1, results: [{ ...failedRun('ok'), status: 'passed', checks: [] }] });
    const reports = Array.from({ length: 1000 }, (_, i): TestReport => {
      const file = `tests/agent-${Math.floor(i / 100)}.test.yaml`;
      const failing = report(`test ${i % 100} of agent ${Math.floor(i / 100)} checking the opening hours`, 'x'.repeat(300));
      return i % 2 === 1 ? { ...failing, file } : { ...failing, file, verdicts: { desired: passed() } };
    });
    const comment = renderTestMarkdown({ ...run(reports), summary: { desired: { passed: 500, failed: 500, skipped: 0, errors: 0 } } });
    expect(comment.length).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
    expect(comment.startsWith('### voxform test: desired: 500 passed, 500 failed\n')).toBe(true);
    const lines = comment.split('\n');
    const rows = lines.filter((line) => line.startsWith('| test ') && !line.startsWith('| test | file'));
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.every((row) => row.endsWith(' |') && row.includes('❌'))).toBe(true);
    expect(lines).toContain(`| …and ${(1000 - rows.length).toLocaleString('en-US')} more tests (\`--format json\` lists every one) | | |`);
    const shown = lines.filter((line) => line.startsWith('<details>')).length;
    expect(shown).toBeGreaterThan(20);
    expect(comment).toContain(`_${500 - shown} more failures not shown (the comment is size-capped);`);
    expect(comment).not.toContain('cut at the size limit');
  });

  describe('Markdown: the sink notes are inside the size cap, however many places and agents the pull request names', () => {
    const failing = Array.from({ length: 300 }, (_, i) => report(`test ${i}`, 'x'.repeat(400)));
    const sunk = (sinked: NonNullable<TestRun['sinked']>): string => renderTestMarkdown({ ...run(failing), sinked });

    it('a few places are named in full, at the end of a comment full of failures', () => {
      const comment = sunk([{ agent: 'front-desk', places: ['session_data_webhook.url', 'tools.0.webhook'] }]);
      expect(comment.length).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
      expect(comment).toMatch(/> Note: front-desk: session\\_data\\_webhook\.url, tools\.0\.webhook named URLs the live agent does not call; the run sent them to .+ instead \(pass --with-secrets once the change is reviewed\)\.\n$/);
    });

    it("one agent's 2,500 tool webhooks: the note names those that fit and counts the rest", () => {
      const places = Array.from({ length: 2_500 }, (_, i) => `tools.${i}.webhook`);
      const comment = sunk([{ agent: 'front-desk', places }]);
      expect(comment.length).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
      expect(comment).toMatch(/> Note: front-desk: tools\.0\.webhook, tools\.1\.webhook, .+ and 2,\d{3} more places named URLs the live agent does not call;/);
      expect(comment).toContain('more failures not shown');
    });

    it('a place too long to name is counted', () => {
      const comment = sunk([{ agent: 'front-desk', places: [`voice.settings.${'k'.repeat(70_000)}`] }]);
      expect(comment.length).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
      expect(comment).toContain('> Note: front-desk: 1 place named a URL the live agent does not call;');
    });

    it('hundreds of agents: those that do not fit are counted in one last note', () => {
      const sinked = Array.from({ length: 400 }, (_, i) => ({ agent: `agent-${i}`, places: ['session_data_webhook.url', 'extra_prompt_webhook'] }));
      const comment = sunk(sinked);
      expect(comment.length).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
      expect(comment).toContain('> Note: agent-0: session\\_data\\_webhook.url, extra\\_prompt\\_webhook named URLs');
      expect(comment).toMatch(/> Note: 3\d\d more agents named URLs the live agent does not call, at 7\d\d places; the run sent them to .+ too\.\n$/);
    });
  });
});

describe('a skipped verdict', () => {
  /** `mock_tools:` against both, with a judge: the live agent's run is skipped for its tools, not for the judge. */
  async function mockedRun(): Promise<TestRun> {
    const test: ConversationTest = {
      name: 'books with a mock',
      location: { file: 'tests/a.test.yaml', line: 3, col: 11 },
      turns: [{ user: 'Hi', checks: [{ kind: 'judge', rubric: 'Greets' }] }],
      simulate: undefined,
      expect: [],
      mockTools: { find_slots: { slots: [] } },
      repeat: 1,
      passRate: 1,
      needsModel: true,
    };
    const client = { chatCompletions: () => ({ collect: async () => 'Hello.', sessionId: 's1', finishReason: 'stop' }) } as unknown as ApiClient;
    const model: CompletionModel = { complete: async () => ({ role: 'assistant', content: '{"verdict": "pass", "reason": "it greets"}', refusal: null }) };
    const file = { path: '/p/tests/a.test.yaml', display: 'tests/a.test.yaml', contentHash: 'sha256:0', agent: 'front-desk', metadata: undefined, includeMetadataInPrompt: undefined, tests: [test] };
    const agents = new Map([['front-desk', { id: 'ag_1', desiredConfig: { tools: [{ name: 'find_slots' }] } as never }]]);
    return runPreparedTests({ files: [file], targets: ['live', 'desired'], client, agents, model, parallelism: 1 });
  }

  it('gives the reason it was skipped, the same in text, Markdown and JUnit', async () => {
    const run = await mockedRun();
    expect(run.reports[0]?.verdicts).toMatchObject({ live: { status: 'skipped' }, desired: { status: 'passed' } });
    const reason = "mock_tools — the live agent's tools cannot be mocked (only the configuration voxform sends, --against desired)";
    expect(renderTestText(run, { color: false })).toContain(`  PASS  books with a mock  [live skipped · desired 1/1]\n        live skipped: ${reason}\n`);
    expect(renderTestMarkdown(run)).toContain(`**Skipped:**\n\n- ⏭️ books with a mock (live): ${reason.replace('mock_tools', 'mock\\_tools')}\n`);
    expect(renderTestJunit(run)).toContain(`<skipped message="${reason.replaceAll("'", '&apos;')}"/>`);
  });

  it('counts a test skipped on one side as not compared, never as the same verdict against both', async () => {
    const run = await mockedRun();
    const text = renderTestText(run, { color: false });
    expect(text).toContain('Behaviour changes (live → desired):\n  none among the tests compared\n  not compared: 1 test skipped or with an error against live or desired');
    expect(text).not.toContain('every test has the same verdict');
    expect(renderTestMarkdown(run)).toMatch(/^### voxform test: 0 newly failing, 0 newly passing, 1 not compared · /);
    expect((JSON.parse(renderTestJson(run)) as { tests: Array<{ change: string }> }).tests[0]?.change).toBe('not_compared');
  });
});

describe('the behaviour diff', () => {
  const withVerdicts = (live: TestVerdict['status'], desired: TestVerdict['status']): TestReport => ({
    ...report(`${live} → ${desired}`, 'x'),
    verdicts: { live: verdict([failedRun('x')], live, live === 'passed' ? 1 : 0), desired: verdict([failedRun('x')], desired, desired === 'passed' ? 1 : 0) },
  });

  it('tells a change only between passed and failed: an error or a skip on either side is not compared', () => {
    expect(behaviourChange(withVerdicts('failed', 'passed'))).toBe('newly_passing');
    expect(behaviourChange(withVerdicts('passed', 'failed'))).toBe('newly_failing');
    expect(behaviourChange(withVerdicts('error', 'passed'))).toBe('not_compared');
    expect(behaviourChange(withVerdicts('passed', 'error'))).toBe('not_compared');
    expect(behaviourChange(withVerdicts('error', 'failed'))).toBe('not_compared');
    expect(behaviourChange(withVerdicts('skipped', 'passed'))).toBe('not_compared');
    expect(behaviourChange(withVerdicts('skipped', 'error'))).toBe('not_compared');
    expect(behaviourChange(withVerdicts('failed', 'skipped'))).toBe('not_compared');
    expect(behaviourChange(withVerdicts('passed', 'passed'))).toBe('unchanged');
  });

  it('says how many tests were not compared, in text and Markdown, and counts none of them as newly passing', () => {
    const reports = [0, 1, 2, 3].map((i) => ({ ...withVerdicts('error', 'passed'), name: `test ${i}` }));
    const errors: TestRun = {
      against: ['live', 'desired'],
      reports,
      changes: [],
      summary: { live: { passed: 0, failed: 0, skipped: 0, errors: 4 }, desired: { passed: 4, failed: 0, skipped: 0, errors: 0 } },
      durationMs: 10,
    };
    const markdown = renderTestMarkdown(errors);
    expect(markdown).toMatch(/^### voxform test: 0 newly failing, 0 newly passing, 4 not compared · live: 0 passed, 0 failed, 4 errors · desired: 4 passed, 0 failed\n/);
    expect(markdown).toContain('**Behaviour diff:** no change among the tests compared.\n\nnot compared: 4 tests skipped or with an error against live or desired');
    const text = renderTestText(errors, { color: false });
    expect(text).toContain('Behaviour changes (live → desired):\n  none among the tests compared\n  not compared: 4 tests skipped or with an error against live or desired');
  });
});
