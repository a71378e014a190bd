/**
 * The pure parts of `voxform ci`: markers, labels from statuses, the comment body under the host's
 * limit, and the test report read back as the Markdown renderer needs it.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasMarker, kindOf, markerFor, statusOf } from '../../src/ci/markers.js';
import { commentBody, labelsFor } from '../../src/ci/publish.js';
import { COMMENT_SIZE_LIMIT, HOST_COMMENT_LIMIT } from '../../src/util/comment-blocks.js';
import { applyReport, outputReport, planReport, testReport } from '../../src/ci/reports.js';
import { readTestReport } from '../../src/conversations/read-json.js';
import { renderTestJson } from '../../src/conversations/render-json.js';
import { renderTestMarkdown } from '../../src/conversations/render-markdown.js';
import type { TestRun } from '../../src/conversations/types.js';
import { renderDriftText } from '../../src/drift/render-text.js';
import type { DriftedResource, DriftReport } from '../../src/drift/types.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';
import { planOf } from '../helpers/plan.js';
import { useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const links = {
  runUrl: 'https://github.example/acme/agents/actions/runs/1',
  savedPlanWhere: 'artifact `voxform-plan-production`',
  savedPlanFile: 'plan.json',
  testReportWhere: 'artifact `voxform-tests-production`',
  testReportFile: 'tests.json',
};

describe('markers', () => {
  it.each([
    ['plan', 'production', '<!-- voxform:plan:env=production -->'],
    ['test', undefined, '<!-- voxform:test -->'],
    ['apply', 'staging', '<!-- voxform:apply:env=staging -->'],
  ] as const)('%s for %s is %s, read back only from the first line', (kind, environment, marker) => {
    expect(markerFor(kind, environment)).toBe(marker);
    expect(hasMarker(`${marker}\n<!-- voxform:status=changes -->\nbody`, marker)).toBe(true);
    expect(hasMarker(`quoted:\n${marker}`, marker)).toBe(false);
    expect(kindOf(`${marker}\nbody`)).toBe(kind);
    expect(statusOf(`${marker}\n<!-- voxform:status=changes -->`)).toBe('changes');
    expect(statusOf(`${marker}\n<!-- voxform:status=pwned -->`)).toBeUndefined();
  });

  it('tells another environment apart', () => {
    expect(hasMarker('<!-- voxform:plan:env=production -->\nx', '<!-- voxform:plan:env=staging -->')).toBe(false);
    expect(hasMarker('<!-- voxform:plan:env=staging -->\nx', '<!-- voxform:plan -->')).toBe(false);
  });
});

describe('labels from every voxform comment of a kind', () => {
  it.each([
    ['plan', ['changes'], ['voxform:changes'], ['voxform:no-changes']],
    ['plan', ['no-changes', 'changes'], ['voxform:changes'], ['voxform:no-changes']],
    ['plan', ['no-changes', 'no-changes'], ['voxform:no-changes'], ['voxform:changes']],
    ['plan', ['no-changes', 'error'], [], ['voxform:changes', 'voxform:no-changes']],
    ['test', ['passing', 'failing'], ['voxform:tests-failing'], []],
    ['test', ['passing'], [], ['voxform:tests-failing']],
    ['apply', ['applied'], [], []],
    ['drift', ['changes'], [], []],
  ] as const)('%s with %j: add %j, remove %j', (kind, statuses, add, remove) => {
    expect(labelsFor(kind, statuses)).toEqual({ add, remove });
  });
});

/** A drift of `count` agents, each prompt changed outside voxform, as `voxform drift` reports it. */
function largeDrift(count: number): DriftReport {
  const resources = Array.from({ length: count }, (_, n): DriftedResource => {
    const field = { path: 'config.prompt', before: `Changed in the dashboard.\nAgent ${n}.`, after: `You are agent ${n}.\nBe brief.`, sensitive: false, drift: true };
    const change = { address: `agent.a${n}`, kind: 'agent', action: 'update', id: `ag_${n}`, before: { config: { prompt: field.before } }, after: { config: { prompt: field.after } }, fieldChanges: [field], sensitivePaths: [] };
    return { change: change as unknown as ResourceChange, address: change.address, kind: 'agent', class: 'outside', fields: [{ field, class: 'outside' }], gone: false, healable: true };
  });
  const summary = { checked: count, outside: count, pending: 0, both: 0, unlabelled: 0, environment: 0, unrecorded: 0 };
  return { checkedAt: '2026-06-15T12:00:00.000Z', workspace: 'production@https://api.example', environment: 'production', baseUrl: 'https://api.example', files: ['voxform.yaml'], resources, summary };
}

function bigPlan(): Plan {
  const prompt = (word: string) => Array.from({ length: 60 }, (_, n) => `${'x'.repeat(200)} ${word} ${n}`).join('\n');
  const changes = Array.from({ length: 40 }, (_, index) => ({
    address: `agent.a${index}`,
    action: 'update' as const,
    before: { config: { prompt: prompt('old') } },
    after: { config: { prompt: prompt('new') } },
    fieldChanges: [{ path: 'config.prompt', before: prompt('old'), after: prompt('new') }],
    sensitivePaths: [],
  }));
  return planOf(changes as unknown as ResourceChange[]);
}

describe('the plan report', () => {
  it('counts a plan of a renamed key alone as one with changes: its apply moves the state entry', () => {
    const renamed = { address: 'agent.reception', kind: 'agent', action: 'no-op', id: 'ag_1', movedFrom: 'agent.front-desk', before: {}, after: {}, fieldChanges: [], sensitivePaths: [], dependsOn: [], requests: [] };
    const plan = planOf([renamed as unknown as ResourceChange], { environment: 'production', summary: { create: 0, update: 0, unchanged: 1, drifted: 0 } });
    const report = planReport(plan, 'production', links, { output: '', redact: (text) => text });
    expect(report.status).toBe('changes');
    expect(report.markdown).toContain('### voxform plan (`production`): 0 to create, 0 to update, 1 renamed, 1 unchanged\n');
    expect(report.markdown).toContain('`agent.front-desk → agent.reception`');
    expect(report.markdown).toContain('_Saved plan: artifact `voxform-plan-production` of [this run](https://github.example/acme/agents/actions/runs/1); `voxform plan show plan.json` prints it whole._');
  });
});

describe('the comment body', () => {
  it('stays under the host limit for a plan far larger than it, and says how to see it whole', () => {
    const body = commentBody(planReport(bigPlan(), 'production', links, { output: '', redact: (text) => text }));
    expect(body.length).toBeLessThanOrEqual(HOST_COMMENT_LIMIT);
    // The whole comment, its hidden lines and the saved plan's line included, within voxform's own limit.
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
    expect(Buffer.byteLength(body)).toBeGreaterThan(COMMENT_SIZE_LIMIT - 2_000);
    for (const [code, output] of [[0, ''], [1, `${'error line\n'.repeat(5_000)}`]] as const) {
      const applied = commentBody(applyReport(bigPlan(), code, 'production', links, { output, redact: (text) => text }));
      expect(Buffer.byteLength(applied), `apply exit ${code}`).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
    }
    expect(body).toContain('This comment is cut to fit');
    expect(body).toContain('`voxform plan show plan.json` prints it whole');
  });

  it('quotes a command\'s output in a fence, cut to its limit, its secrets hidden', () => {
    const output = `${Array.from({ length: 500 }, (_, n) => `line ${n} \`\`\` <img> secret-value-123`).join('\n')}\n`;
    const report = outputReport('drift', output, 2, 'production', (text) => text.replaceAll('secret-value-123', '(sensitive)'));
    expect(report.status).toBe('changes');
    expect(report.markdown.split('\n').slice(0, 4)).toEqual(['### voxform drift (`production`): ⚠️ drift found', '', '````text', '⋯ 100 earlier lines in the job log']);
    expect(report.markdown).not.toContain('secret-value-123');
  });

  it('fits a comment whatever runs of backticks the output holds: a long line is cut, and the fences count in the limit', () => {
    // A prompt of the pull request's, a line of backticks, quoted by drift: its fence would be as long as it, twice.
    for (const ticks of [1_000, 30_000, 45_000]) {
      const output = `  ~ config.prompt\n      +${'`'.repeat(ticks)}\nDrift: 1 resource differs.\n`;
      for (const kind of ['drift', 'promote'] as const) {
        const body = commentBody(outputReport(kind, output, kind === 'drift' ? 2 : 1, 'production', (text) => text));
        expect(Buffer.byteLength(body), `${kind}, ${ticks} backticks`).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
        expect(body).toContain('Drift: 1 resource differs.');
      }
    }
    const failed = commentBody(planReport(undefined, 'production', links, { output: `error[x]: ${'`'.repeat(19_000)}\n`, redact: (text) => text }));
    expect(Buffer.byteLength(failed)).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
  });

  it('counts one line left out as one line', () => {
    const output = Array.from({ length: 401 }, (_, n) => `line ${n}`).join('\n');
    for (const [kind, code] of [['drift', 0], ['promote', 1]] as const) expect(outputReport(kind, output, code, undefined, (text) => text).markdown).toContain('\n⋯ 1 earlier line in the job log\nline 1\n');
  });

  it('quotes the end of a large drift, where its verdict says how much drifted, whatever the exit', () => {
    const output = renderDriftText(largeDrift(2_000), { color: false });
    for (const code of [2, 1]) {
      const lines = outputReport('drift', output, code, 'production', (text) => text).markdown.split('\n');
      expect(lines.slice(-3)).toEqual(['Drift: 2,000 resources differ: 2,000 changed outside voxform, 0 in git not applied yet, 0 both (2,000 resources checked).', '```', '']);
      expect(lines[3]).toMatch(/^⋯ [\d,]+ earlier lines in the job log$/);
    }
  });
});

describe('a failed command\'s report', () => {
  it('quotes the end of what it printed, where the error is, cut to its limit with a line saying so', () => {
    const output = `${Array.from({ length: 500 }, (_, n) => `line ${n} secret-value-123`).join('\n')}\nerror[promote_gate_failed]: \`\`\`the gate\n`;
    const report = outputReport('promote', output, 1, 'production', (text) => text.replaceAll('secret-value-123', '(sensitive)'));
    expect(report.status).toBe('failed');
    const lines = report.markdown.split('\n');
    expect(lines.slice(0, 4)).toEqual(['### voxform promote → `production`: ❌ not promoted (exit 1)', '', '````text', '⋯ 101 earlier lines in the job log']);
    expect(lines.slice(-4)).toEqual(['line 499 (sensitive)', 'error[promote_gate_failed]: ```the gate', '````', '']);
  });

  it("an apply that failed claims nothing of the state the output contradicts: a lost lock's changes are not recorded, a stale plan applied none", () => {
    const outputs = [
      '  applied, not recorded in the state: agent.booking\n\nApply stopped: the state lock 3f9a2c0d11b84e7a was forced open by another operator (`voxform state unlock --force`). 1 applied, 0 failed, 0 skipped, 0 not applied.\nerror[state_lock_lost]: The state lock of .voxform/state.json is no longer held by this run.\n',
      'error[plan_stale]: The saved plan is stale: agent.booking changed on the service since it was made; nothing was applied.\n',
    ];
    for (const output of outputs) {
      const { markdown, status } = applyReport(undefined, 1, 'production', links, { output, redact: (text) => text });
      expect(status).toBe('failed');
      expect(markdown).toContain('[this run](https://github.example/acme/agents/actions/runs/1) did not apply the whole plan: the end of what it printed says what it applied (the log of [this run](https://github.example/acme/agents/actions/runs/1) has all of it):\n');
      expect(markdown).not.toContain('recorded in the state.');
    }
  });

  it('a plan that made none quotes it in a fence its text cannot close', () => {
    const report = planReport(undefined, 'staging', links, { output: 'a.yaml:3:5  mandatory[pii-phone-number]: first_message holds a phone number\n````\n@someone <b>', redact: (text) => text });
    expect(report.status).toBe('error');
    expect(report.markdown).toContain('\n`````text\na.yaml:3:5  mandatory[pii-phone-number]: first_message holds a phone number\n````\n@someone <b>\n`````\n');
  });
});

describe('the test report read back', () => {
  it('is the run the JSON report was written from, as the Markdown renderer shows it', async () => {
    const verdict = (status: 'passed' | 'failed') => ({
      status,
      passes: status === 'passed' ? 1 : 0,
      runs: 1,
      passRate: 1,
      results: [{ status, transcript: [{ role: 'assistant' as const, content: 'Hello' }], checks: [{ check: 'contains "hi"', turn: 1, status, detail: status === 'failed' ? 'not found' : undefined }], toolCalls: undefined, error: undefined, durationMs: 5 }],
    });
    const report = { file: 'tests/a.test.yaml', agent: 'front-desk', name: 'greets', location: { file: 'tests/a.test.yaml', line: 3, col: 5 }, verdicts: { live: verdict('passed'), desired: verdict('failed') } };
    const run: TestRun = {
      against: ['desired', 'live'],
      reports: [report],
      changes: [{ report, change: 'newly_failing' }],
      summary: { desired: { passed: 0, failed: 1, skipped: 0, errors: 0 }, live: { passed: 1, failed: 0, skipped: 0, errors: 0 } },
      durationMs: 10,
    };
    const dir = await tempDir({});
    await writeFile(path.join(dir, 'tests.json'), renderTestJson(run));
    const read = await readTestReport(path.join(dir, 'tests.json'));
    expect(read).toEqual(run);
    expect(renderTestMarkdown(read)).toBe(renderTestMarkdown(run));
  });

  it('cut to the comment size, points at the report file the run wrote, not at options ci run does not take', () => {
    const failed = (i: number) => ({
      status: 'failed' as const,
      passes: 0,
      runs: 1,
      passRate: 0,
      results: [{ status: 'failed' as const, transcript: [{ role: 'assistant' as const, content: 'x'.repeat(400) }], checks: [{ check: 'contains "hi"', turn: 1, status: 'failed' as const, detail: `not found ${i}` }], toolCalls: undefined, error: undefined, durationMs: 5 }],
    });
    const reports = Array.from({ length: 1000 }, (_, i) => ({ file: 'tests/a.test.yaml', agent: 'front-desk', name: `test ${i}`, location: { file: 'tests/a.test.yaml', line: 3, col: 5 }, verdicts: { desired: failed(i) } }));
    const run: TestRun = { against: ['desired'], reports, changes: [], summary: { desired: { passed: 0, failed: 1000, skipped: 0, errors: 0 } }, durationMs: 10 };
    const report = testReport(run, 1, 'production', links, { output: '', redact: (text) => text });
    const { markdown } = report;
    expect(Buffer.byteLength(commentBody(report))).toBeLessThanOrEqual(COMMENT_SIZE_LIMIT);
    const where = '`tests.json` (artifact `voxform-tests-production` of [this run](https://github.example/acme/agents/actions/runs/1))';
    expect(markdown).toMatch(new RegExp(`^\\| …and [\\d,]+ more tests \\(${escapeRegExp(where)} lists every one\\) \\| \\| \\|$`, 'm'));
    expect(markdown).toMatch(new RegExp(`_[\\d,]+ more failures not shown \\(the comment is size-capped\\); ${escapeRegExp(where)} has them all\\._`));
    expect(markdown).not.toContain('--format json');
    expect(markdown).not.toContain('job log');
  });

  it('refuses what is not a report, naming the field', async () => {
    const dir = await tempDir({ 'bad.json': JSON.stringify({ format_version: 1, against: ['desired'], summary: {}, changes: [], tests: [{ file: 1 }], duration_ms: 1 }) });
    await expect(readTestReport(path.join(dir, 'bad.json'))).rejects.toMatchObject({ code: 'test_report_invalid', message: `The test report ${path.join(dir, 'bad.json')} is not a JSON result of voxform test (format_version 1): tests[0].location is not an object.` });
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
