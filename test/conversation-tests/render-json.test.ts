import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run as runTestCommand } from '../../src/cli/commands/test.js';
import { renderTestJson, testJsonPieces } from '../../src/conversations/render-json.js';
import type { RunResult, TestReport, TestRun, TestVerdict } from '../../src/conversations/types.js';
import { toJsonText } from '../../src/util/printable.js';
import { verdictStatistics } from '../../src/conversations/statistics.js';
import { SecretRegistry } from '../../src/secrets/redact.js';
import { useTempDirs } from '../helpers/cli.js';
import { makeContext } from '../helpers/context.js';

const SECRET = 'S3CRET "code"\n\u009b-42';

function runResult(status: RunResult['status'], replies: string[], extra: Partial<RunResult> = {}): RunResult {
  return {
    status,
    transcript: replies.flatMap((reply, i) => [
      { role: 'user' as const, content: `question ${i}` },
      { role: 'assistant' as const, content: reply },
    ]),
    checks: [{ check: 'contains "9"', turn: 1, status, detail: status === 'passed' ? undefined : 'the reply does not contain "9"' }],
    toolCalls: undefined,
    error: undefined,
    durationMs: 120,
    ...extra,
  };
}

const verdict = (status: TestVerdict['status'], results: RunResult[]): TestVerdict => ({ status, passes: 1, runs: results.length, passRate: 0.8, results });

function report(name: string, verdicts: TestReport['verdicts']): TestReport {
  return { file: 'tests/desk.test.yaml', agent: 'desk', name, location: { file: 'tests/desk.test.yaml', line: 3, col: 5 }, verdicts };
}

/** Both targets, several runs, a tool call, an error, empty runs and a reply with JSON's special characters. */
function sampleRun(): TestRun {
  const failing = report('quotes "hours" \u202e', {
    live: verdict('passed', [runResult('passed', ['We open at 9.', 'Bye.']), runResult('passed', ['9 it is.'])]),
    desired: verdict('failed', [
      runResult('failed', ['We open at 10.', `Your code is ${SECRET}, keep it.`]),
      runResult('error', [], { error: 'the agent did not answer', toolCalls: [{ name: 'find_slots', params: { day: 'sat', at: [9, null], nested: {} } }] }),
    ]),
  });
  const empty = report('no runs', { live: verdict('skipped', []), desired: verdict('skipped', []) });
  return {
    against: ['live', 'desired'],
    reports: [failing, empty],
    changes: [{ report: failing, change: 'newly_failing' }],
    summary: { live: { passed: 1, failed: 0, skipped: 1, errors: 0 }, desired: { passed: 0, failed: 1, skipped: 1, errors: 0 } },
    durationMs: 2345,
  };
}

/** The report as one object: the format the pieces must write, stated independently of them. */
function wholeReport(run: TestRun) {
  return {
    format_version: 1,
    against: run.against,
    summary: run.summary,
    changes: run.changes.map(({ report, change }) => ({ change, file: report.file, test: report.name })),
    tests: run.reports.map((report) => ({
      file: report.file,
      agent: report.agent,
      name: report.name,
      location: report.location,
      // The second test is skipped on both sides: no verdict to compare.
      change: run.against.length === 2 ? (report === run.changes[0]?.report ? 'newly_failing' : 'not_compared') : null,
      verdicts: Object.fromEntries(
        Object.entries(report.verdicts).map(([target, v]) => [
          target,
          {
            status: v.status,
            passes: v.passes,
            runs: v.runs,
            pass_rate: v.passRate,
            pass_at_k: v.runs > 0 ? v.passes > 0 : null,
            pass_hat_k: v.runs > 0 ? v.passes === v.runs : null,
            observed_rate: v.runs > 0 ? Math.round((v.passes / v.runs) * 10_000) / 10_000 : null,
            interval: verdictStatistics(v).interval,
            flaky: v.passes > 0 && v.results.some((r) => r.status === 'failed'),
            results: v.results.map((r) => ({
              status: r.status,
              duration_ms: r.durationMs,
              error: r.error ?? null,
              transcript: r.transcript,
              checks: r.checks.map((c) => ({ check: c.check, turn: c.turn ?? null, status: c.status, detail: c.detail ?? null, flag: c.flag ?? null })),
              tool_calls: r.toolCalls ?? null,
            })),
          },
        ]),
      ),
    })),
    duration_ms: run.durationMs,
  };
}

describe('the JSON report in pieces', () => {
  it('is JSON.stringify of the whole report, byte for byte, and valid JSON', () => {
    const run = sampleRun();
    const expected = `${toJsonText(wholeReport(run), 2)}\n`;
    expect(renderTestJson(run)).toBe(expected);
    expect(JSON.parse(renderTestJson(run))).toEqual(JSON.parse(expected));
    expect(renderTestJson(run)).toContain('\\u202e');
    expect(renderTestJson(run)).not.toContain('\u009b');

    const oneTarget: TestRun = { ...run, against: ['desired'], changes: [], reports: run.reports.map((r) => ({ ...r, verdicts: { desired: r.verdicts.desired as TestVerdict } })) };
    expect(renderTestJson(oneTarget)).toBe(`${toJsonText(wholeReport(oneTarget), 2)}\n`);
    const noTests: TestRun = { ...oneTarget, reports: [], summary: {} };
    expect(renderTestJson(noTests)).toBe(`${toJsonText(wholeReport(noTests), 2)}\n`);
  });

  it('is made in small pieces: none holds more than one message of a transcript', () => {
    const pieces = [...testJsonPieces(sampleRun())];
    const messages = pieces.filter((piece) => piece.includes('"role"'));
    expect(messages).toHaveLength(10);
    for (const piece of messages) expect(piece.match(/"role"/g)).toHaveLength(1);
  });

  it('cuts no JSON string in two: a secret in a transcript is hidden when each piece is redacted on its own', () => {
    const secrets = new SecretRegistry();
    secrets.add(SECRET);
    const whole = renderTestJson(sampleRun());
    expect(whole).toContain(JSON.stringify(SECRET).slice(1, -1).replace('\u009b', '\\u009b'));
    const streamed = [...testJsonPieces(sampleRun())].map((piece) => secrets.redact(piece)).join('');
    expect(streamed).toBe(secrets.redact(whole));
    expect(streamed).toContain('Your code is (sensitive), keep it.');
    expect(streamed).not.toContain('S3CRET');
    expect(JSON.parse(streamed)).toBeTruthy();
  });
});

describe('voxform test --format json on stdout', () => {
  const tempDir = useTempDirs();

  it('is written in chunks, each after stdout has taken the last; to --out as well, each chunk redacted', { timeout: 120_000 }, async () => {
    const secret = 'S3CRET-greeting-token-42';
    const dir = await tempDir({
      'voxform.yaml': ['version: 1', 'agents:', '  desk:', '    id: -OKdqbqetEcM4ak369ym', '    config:', '      prompt: "v1"', '      first_message: "Your code is ${env:GREET_SECRET}"', ''].join('\n'),
      // The emulator answers each message with the message: about 100 KB of transcript in all.
      'tests/g.test.yaml': `agent: desk\ntests:\n  - name: long\n    turns:\n      - expect: [{ contains: Your code }]\n${Array.from({ length: 10 }, (_, i) => `      - user: "${i} ${'x'.repeat(5_000)}"\n`).join('')}`,
    });
    const { ctx, captured, close } = makeContext({ cwd: dir, env: { VOXFORM_ENV_ALLOW: 'GREET_SECRET', GREET_SECRET: secret } });
    const events: string[] = [];
    ctx.stdout = {
      write: (text) => {
        events.push('write');
        captured.stdout += ctx.secrets.redact(text);
      },
      drained: async () => void events.push('drained'),
      isTTY: false,
      columns: undefined,
    };
    try {
      expect(await runTestCommand({ local: true, withSecrets: true, format: 'json' }, ctx), captured.stderr).toBe(0);
      expect(await runTestCommand({ local: true, withSecrets: true, format: 'json', out: 'r.json' }, ctx), captured.stderr).toBe(0);
    } finally {
      await close();
    }
    const written = events.filter((event) => event === 'write').length;
    expect(written).toBeGreaterThan(2);
    // The second run wrote its report to the file, in chunks redacted by the command itself.
    const file = await readFile(path.join(dir, 'r.json'), 'utf8');
    expect(file).toContain('Your code is (sensitive)');
    expect(file).not.toContain(secret);
    expect(file.replace(/"duration_ms": \d+/g, '')).toBe(captured.stdout.replace(/"duration_ms": \d+/g, ''));
    expect(events.join(' ')).toBe(Array.from({ length: events.length / 2 }, () => 'write drained').join(' '));
    const report = JSON.parse(captured.stdout);
    expect(report.tests[0].verdicts.desired.results[0].transcript).toHaveLength(21);
    expect(captured.stdout).toContain('Your code is (sensitive)');
    expect(captured.stdout).not.toContain(secret);
  });
});
