/**
 * `voxform report` end to end on `--local`: two applies with traffic between them, then the report
 * in every format. Both versions appear with their commits and exactly the calls made for them; the
 * JSON is valid under the published schema; no output shows a secret of the agent's config.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../../src/history/types.js';
import type { CallReport } from '../../src/report/types.js';
import { makeTree, repoRoot, runCli } from '../helpers/cli.js';
import { addCalls, recordDeploy } from './local-traffic.js';

const addFormats = addFormatsModule.default;
const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const TOKEN = 'desk-tool-token-8c7b6a5f4e3d';
const PLANTED = 'planted-header-in-call-config-1f2e3d';

function manifest(prompt: string): string {
  return [
    'version: 1',
    'agents:',
    '  front-desk:',
    `    id: "${FRONT_DESK}"`,
    '    name: Front desk',
    '    config:',
    `      prompt: ${JSON.stringify(prompt)}`,
    '      tools:',
    '        - name: lookup',
    '          description: Find a booking.',
    '          webhook: https://hooks.example.test/lookup',
    '          header:',
    '            authorization: ${env:DESK_TOKEN}',
    '',
  ].join('\n');
}

let dir: string;
let cleanup: () => Promise<void>;
const env = { DESK_TOKEN: TOKEN, VOXFORM_ENV_ALLOW: 'DESK_TOKEN' };
const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { cwd: dir, env: { ...env, ...extra } });
const deploys: HistoryRecord[] = [];

async function applyAndRecord(prompt: string, source: HistoryRecord['source']): Promise<HistoryRecord> {
  await writeFile(path.join(dir, 'voxform.yaml'), manifest(prompt));
  const started = new Date().toISOString();
  const applied = await cli(['apply', '--local', '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  return recordDeploy(dir, started, { 'front-desk': { id: FRONT_DESK, maskedPaths: [] } }, source);
}

beforeAll(async () => {
  ({ dir, cleanup } = await makeTree({}));
  deploys.push(await applyAndRecord('You are the receptionist.', { commit: '1'.repeat(40), pullRequest: 41, branch: 'main' }));
  // 40 calls of the first version: every fourth an error, every tenth transferred.
  await addCalls(dir, FRONT_DESK, deploys[0]?.at as string, 40, (i) => ({
    call_status: i % 4 === 0 ? 'error' : 'user-ended',
    function_calls: i % 10 === 0 ? [{ name: 'transfer_call', params: {} }] : [],
  }));
  deploys.push(await applyAndRecord('You are the receptionist. Offer the earliest slot first.', { commit: '2'.repeat(40), pullRequest: 42, branch: 'main' }));
  // 50 calls of the second: a prefetch webhook's extra prompt on some, a header value planted in every config.
  await addCalls(dir, FRONT_DESK, deploys[1]?.at as string, 50, (i, config) => {
    const tools = (config.tools as Array<Record<string, unknown>>).map((tool) => ({ ...tool, header: { authorization: PLANTED } }));
    const prompt = i % 3 === 0 ? `${config.prompt as string}\n\nThe caller is a returning patient.` : config.prompt;
    return { agent_config: { ...config, tools, prompt }, duration: 30 + i, function_calls: [{ name: 'lookup', error: i % 5 === 0 ? 'HTTP 500' : null }] };
  });
}, 120_000);

afterAll(() => cleanup?.());

describe('voxform report --local', () => {
  let report: CallReport;

  it('shows both versions with their commits and the calls made for each', async () => {
    const result = await cli(['report', '--local', '--since', '1h', '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    report = JSON.parse(result.stdout) as CallReport;
    expect(report.format_version).toBe(1);
    const agent = report.agents.find((candidate) => candidate.agent_id === FRONT_DESK);
    expect(agent?.name).toBe('front-desk');
    expect(agent?.versions.map((version) => [version.key, version.source, version.deploy?.commit, version.metrics.calls])).toEqual([
      [deploys[0]?.id, 'voxform', deploys[0]?.source.commit ?? null, 40],
      [deploys[1]?.id, 'voxform', deploys[1]?.source.commit ?? null, 50],
    ]);
    expect(agent?.versions[0]?.metrics.error_rate).toMatchObject({ count: 10, of: 40 });
    expect(agent?.versions[0]?.metrics.transfer_rate).toMatchObject({ count: 4, of: 40 });
    expect(agent?.versions[1]?.metrics.tool_calls).toMatchObject({ calls: 50, failed: 10 });
    expect(agent?.versions[1]?.comparison?.error_rate.verdict).toBe('lower');
    expect(agent?.deploys.map((deploy) => deploy.record_id)).toEqual([deploys[0]?.id, deploys[1]?.id]);
    expect(agent?.deploys[1]?.changed_fields).toEqual(['prompt']);
  });

  it('prints JSON valid under schemas/report.schema.json', async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(await readFile(path.join(repoRoot, 'schemas/report.schema.json'), 'utf8')));
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    // The default account's calls: versions changed outside voxform, no history, no window.
    const fresh = await makeTree({});
    const outside = await runCli(['report', '--local', '--format', 'json'], { cwd: fresh.dir });
    await fresh.cleanup();
    expect(outside.code, outside.stderr).toBe(0);
    const outsideReport = JSON.parse(outside.stdout) as CallReport;
    expect(outsideReport.agents.flatMap((agent) => agent.versions.map((version) => version.source))).toContain('outside');
    expect(validate(outsideReport), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...report, format_version: 2 })).toBe(false);
    expect(validate({ ...report, agents: [{ ...report.agents[0], extra: true }] })).toBe(false);
  });

  it('compares the latest deploy’s version with the one before it (--since-deploy), as a Markdown table', async () => {
    const result = await cli(['report', '--local', '--since-deploy', '--agent', 'front-desk'], { GITHUB_SERVER_URL: 'https://github.example', GITHUB_REPOSITORY: 'acme/agents' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^## Call report\n/);
    expect(result.stdout).toMatch(/\| PR #41 · 1111111 \| [^|]+ \| 40 \|/);
    expect(result.stdout).toMatch(/\| PR #42 · 2222222 \| [^|]+ \| 50 \|/);
    expect(result.stdout).toContain('errors ▼ lower');
  });

  it('writes one HTML file with the data, the chart library and a CSP that forbids the network', async () => {
    const result = await cli(['report', '--local', '--since', '1h', '--format', 'html', '--out', 'report.html']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Wrote report.html: 90 calls of 1 agent.');
    const html = await readFile(path.join(dir, 'report.html'), 'utf8');
    expect(html).toContain("default-src 'none'");
    expect(html).toContain('uPlot');
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
  });

  it('shows no secret in any format', async () => {
    for (const format of ['json', 'markdown']) {
      const result = await cli(['report', '--local', '--format', format]);
      expect(result.code, result.stderr).toBe(0);
      for (const secret of [TOKEN, PLANTED]) expect(result.stdout + result.stderr).not.toContain(secret);
    }
    const html = await readFile(path.join(dir, 'report.html'), 'utf8');
    for (const secret of [TOKEN, PLANTED]) expect(html).not.toContain(secret);
  });

  it('refuses a contradictory window and --since-deploy without a deploy, with one sentence each', async () => {
    const both = await cli(['report', '--local', '--since', '1h', '--since-deploy']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('error: --since and --since-deploy contradict each other.');
    const none = await cli(['report', '--local', '--since-deploy', '--state', 'elsewhere/state.json']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('error: --since-deploy: the apply history has no deploy in this workspace.');
    expect(none.stderr).not.toContain('    at ');
  });
});
