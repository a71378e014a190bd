import { describe, expect, it } from 'vitest';
import { renderTestJson, testJsonPieces } from '../../src/conversations/render-json.js';
import type { RunResult, TestReport, TestRun, TestVerdict } from '../../src/conversations/types.js';
import { toJsonText } from '../../src/util/printable.js';
import { SecretRegistry } from '../../src/util/redact.js';

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
    desired: verdict('error', [
      runResult('failed', ['We open at 10.', `Your code is ${SECRET}, keep it.`]),
      runResult('error', [], { error: 'the agent did not answer', toolCalls: [{ name: 'find_slots', params: { day: 'sat', at: [9, null], nested: {} } }] }),
    ]),
  });
  const empty = report('no runs', { live: verdict('skipped', []), desired: verdict('skipped', []) });
  return {
    against: ['live', 'desired'],
    reports: [failing, empty],
    changes: [{ report: failing, change: 'newly_failing' }],
    summary: { live: { passed: 1, failed: 0, skipped: 1, errors: 0 }, desired: { passed: 0, failed: 0, skipped: 1, errors: 1 } },
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
      change: run.against.length === 2 ? (report === run.changes[0]?.report ? 'newly_failing' : 'unchanged') : null,
      verdicts: Object.fromEntries(
        Object.entries(report.verdicts).map(([target, v]) => [
          target,
          {
            status: v.status,
            passes: v.passes,
            runs: v.runs,
            pass_rate: v.passRate,
            results: v.results.map((r) => ({
              status: r.status,
              duration_ms: r.durationMs,
              error: r.error ?? null,
              transcript: r.transcript,
              checks: r.checks.map((c) => ({ check: c.check, turn: c.turn ?? null, status: c.status, detail: c.detail ?? null })),
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
