/**
 * `voxform report` end to end on `--local`: two applies with traffic between them, then the report
 * in every format. Both versions appear with their commits and exactly the calls made for them; the
 * JSON is valid under the published schema; no output shows a secret of the agent's config.
 */
/**
 * `voxform report` end to end on `--local`, with the real parts: in a git repository, `apply`
 * (which records the deploy, with its commit, in the apply history), `emulator traffic` (seeded
 * synthetic calls), a prompt change committed, `apply`, `emulator traffic`, then the report in every
 * format. Both versions appear with their commits and exactly the calls, errors, transfers, tool
 * calls and tool failures the traffic command said it generated; the JSON is valid under the
 * published schema; no output shows a secret of the agent's config (the stored tool header is in
 * every synthetic call's `agent_config`).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type TrafficSummary } from '../../src/emulator/index.js';
import { FileHistoryStore } from '../../src/history/file-store.js';
import type { HistoryRecord } from '../../src/history/types.js';
import type { CallReport } from '../../src/report/types.js';
import { workspaceKey } from '../../src/state/types.js';
import { makeTree, repoRoot, runCliInProcess } from '../helpers/cli.js';
import { commitAll, git } from '../helpers/git.js';
import { addCalls } from './local-traffic.js';
import { ledgerRecords } from '../helpers/ledger.js';

const addFormats = addFormatsModule.default;
const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const BOOKING = '-OKdqbqetEcM4ak369yn';
const TOKEN = 'desk-tool-token-8c7b6a5f4e3d';
const PLANTED = 'planted-header-in-call-config-1f2e3d';
const FIRST_PROMPT = 'You are the receptionist. Escalate every doubt.';
const SECOND_PROMPT = 'You are the receptionist. Offer the earliest slot first.';
const CALLS = { first: 120, second: 150 };

/** Two agents: front desk gets the traffic; booking only hand-made calls (see the last beforeAll step). */
function manifest(prompt: string): string {
  return [
    'version: 1',
    'agents:',
    '  front-desk:',
    `    id: "${FRONT_DESK}"`,
    '    name: Front desk',
    '    config:',
    `      prompt: ${JSON.stringify(prompt)}`,
    '      flow:',
    '        call_transfer:',
    '          phone: "+15551239999"',
    '      tools:',
    '        - name: lookup',
    '          description: Find a booking.',
    '          webhook: https://hooks.example.test/lookup',
    '          header:',
    '            authorization: ${env:DESK_TOKEN}',
    '  booking:',
    `    id: "${BOOKING}"`,
    '    name: Booking',
    '    config:',
    '      prompt: You book appointments.',
    '      tools:',
    '        - name: lookup',
    '          description: Find a booking.',
    '          webhook: https://hooks.example.test/lookup',
    '          header:',
    '            authorization: ${env:DESK_TOKEN}',
    '',
  ].join('\n');
}

/**
 * The operator's traffic profile: no random per-version effect, and the first prompt ("Escalate")
 * errs ten times as often, so the comparison has a real difference to find.
 */
const PROFILE = ['extends: steady', 'version_effect: 0', 'rules:', '  - when: { prompt_contains: "escalate" }', '    scale: { error: 10 }', ''].join('\n');

let dir: string;
let cleanup: () => Promise<void>;
const env = { DESK_TOKEN: TOKEN, VOXFORM_ENV_ALLOW: 'DESK_TOKEN' };
const cli = (args: string[], extra: Record<string, string> = {}, input?: string) => runCliInProcess(args, { cwd: dir, env: { ...env, ...extra }, input });
const commits: string[] = [];
const traffic: TrafficSummary[] = [];
let deploys: HistoryRecord[] = [];

/** Writes the manifest with `prompt`, commits it, applies it; the commit is what the apply history should record. */
async function commitAndApply(prompt: string): Promise<void> {
  await writeFile(path.join(dir, 'voxform.yaml'), manifest(prompt));
  commits.push(commitAll(dir, `prompt: ${prompt}`));
  const applied = await cli(['apply', '--local', '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
}

async function generateTraffic(calls: number): Promise<void> {
  const result = await cli(['emulator', 'traffic', '--local', '--profile', 'profile.yaml', '--seed', '7', '--calls', String(calls), '--agent', 'front-desk', '--format', 'json']);
  expect(result.code, result.stderr).toBe(0);
  traffic.push(JSON.parse(result.stdout) as TrafficSummary);
}

beforeAll(async () => {
  ({ dir, cleanup } = await makeTree({ '.gitignore': '.voxform/\nreport.html\ntests.html\n', 'profile.yaml': PROFILE }));
  git(dir, 'init', '-q', '-b', 'main');
  await commitAndApply(FIRST_PROMPT);
  await generateTraffic(CALLS.first);
  await commitAndApply(SECOND_PROMPT);
  await generateTraffic(CALLS.second);
  // A conversation through `voxform chat`: test traffic, which every figure below leaves out.
  const chat = await cli(['chat', '--agent', FRONT_DESK, '--local'], {}, 'Do you open on Saturdays?\n');
  expect(chat.code, chat.stderr).toBe(0);
  deploys = (await ledgerRecords(new FileHistoryStore(path.join(dir, '.voxform/history')), { workspace: workspaceKey(undefined, 'local') })).reverse();
  // Shapes synthetic traffic does not make, so hand-made: calls whose agent_config carries what the
  // service adds per session (a prefetch webhook's extra prompt, appended to the prompt) or a header
  // value that is not the manifest's (planted, to prove the report never shows one). They go to
  // booking, which has no traffic, so front desk's counts stay exactly the traffic's.
  await addCalls(dir, BOOKING, deploys[0]?.at as string, 12, (i, config) => {
    const tools = (config.tools as Array<Record<string, unknown>>).map((tool) => ({ ...tool, header: { authorization: PLANTED } }));
    return { agent_config: { ...config, tools, ...(i % 3 === 0 ? { prompt: `${config.prompt as string}\n\nThe caller is a returning patient.` } : {}) } };
  });
}, 180_000);

afterAll(() => cleanup?.());

describe('voxform report --local', () => {
  let report: CallReport;

  it('apply recorded each deploy with its commit, in the workspace the report reads', () => {
    // Listed by the workspace key the report computes (workspaceKey(env, serviceId), as apply does):
    // both deploys are there.
    expect(deploys.map((deploy) => deploy.source.commit)).toEqual(commits);
    expect(traffic.map((summary) => summary.agents.map((agent) => [agent.agent_id, agent.calls]))).toEqual([[[FRONT_DESK, CALLS.first]], [[FRONT_DESK, CALLS.second]]]);
    // The traffic's version is the configuration apply recorded.
    expect(traffic.map((summary) => summary.agents[0]?.config_hash)).toEqual(deploys.map((deploy) => deploy.agents['front-desk']?.configHash));
  });

  it('shows both versions with their commits and exactly the calls the traffic generated for each', async () => {
    const result = await cli(['report', '--local', '--since', '1h', '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    report = JSON.parse(result.stdout) as CallReport;
    expect(report.format_version).toBe(1);
    expect(report.workspace).toBe(deploys[0]?.workspace);
    const agent = report.agents.find((candidate) => candidate.agent_id === FRONT_DESK);
    expect(agent?.name).toBe('front-desk');
    expect(agent?.versions.map((version) => [version.key, version.source, version.deploy?.commit, version.metrics.calls])).toEqual([
      [deploys[0]?.id, 'voxform', commits[0], CALLS.first],
      [deploys[1]?.id, 'voxform', commits[1], CALLS.second],
    ]);
    agent?.versions.forEach((version, i) => {
      const generated = traffic[i]?.agents[0] as TrafficSummary['agents'][number];
      expect(version.metrics.error_rate).toMatchObject({ count: generated.outcomes.error ?? 0, of: generated.calls });
      expect(version.metrics.transfer_rate).toMatchObject({ count: generated.transfers, of: generated.calls });
      expect(version.metrics.tool_calls).toMatchObject({ calls: generated.tool_calls, failed: generated.tool_failures });
    });
    // The profile made the first prompt err ten times as often: a difference the data support.
    expect(agent?.versions[1]?.comparison?.error_rate.verdict).toBe('lower');
    expect(agent?.deploys.map((deploy) => deploy.record_id)).toEqual([deploys[0]?.id, deploys[1]?.id]);
    expect(agent?.deploys.map((deploy) => deploy.changed_fields)).toEqual([null, ['prompt']]);
  });

  it('labels the chat as test traffic: left out and counted apart, in every format; --include-tests counts it', async () => {
    expect(report.test_traffic).toEqual({ included: false, calls: 1 });
    expect(report.agents.find((candidate) => candidate.agent_id === FRONT_DESK)?.test_calls).toBe(1);
    const markdown = await cli(['report', '--local', '--since', '1h']);
    expect(markdown.stdout).toContain('1 test call (made by `voxform test` or `voxform chat`) left out of every figure; `--include-tests` counts them.');
    const html = await cli(['report', '--local', '--since', '1h', '--format', 'html', '--out', 'tests.html']);
    expect(html.code, html.stderr).toBe(0);
    expect(await readFile(path.join(dir, 'tests.html'), 'utf8')).toContain('1 test call (made by <code>voxform test</code> or <code>voxform chat</code>) left out of every figure');
    const included = await cli(['report', '--local', '--since', '1h', '--include-tests', '--format', 'json']);
    expect(included.code, included.stderr).toBe(0);
    const withTests = JSON.parse(included.stdout) as CallReport;
    expect(withTests.test_traffic).toEqual({ included: true, calls: 1 });
    expect(withTests.calls).toBe(report.calls + 1);
    const includedMarkdown = await cli(['report', '--local', '--since', '1h', '--include-tests']);
    expect(includedMarkdown.stdout).toContain('Includes 1 test call (made by `voxform test` or `voxform chat`): `--include-tests` was given.');
  });

  it('ties hand-made calls with a per-session extra prompt or another header value to the deploy', () => {
    const booking = report.agents.find((candidate) => candidate.agent_id === BOOKING);
    expect(booking?.versions.map((version) => [version.key, version.metrics.calls])).toEqual([[deploys[0]?.id, 12]]);
  });

  it('prints JSON valid under schemas/report.schema.json', async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(await readFile(path.join(repoRoot, 'schemas/report.schema.json'), 'utf8')));
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    // The default account's calls: versions changed outside voxform, no history, no window.
    const fresh = await makeTree({});
    const outside = await runCliInProcess(['report', '--local', '--format', 'json'], { cwd: fresh.dir });
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
    expect(result.stdout).toMatch(new RegExp(`\\| ${commits[0]?.slice(0, 7)} \\| [^|]+ \\| ${CALLS.first} \\|`));
    expect(result.stdout).toMatch(new RegExp(`\\| ${commits[1]?.slice(0, 7)} \\| [^|]+ \\| ${CALLS.second} \\|`));
    expect(result.stdout).toContain('errors ▼ lower');
  });

  it('writes one HTML file with the data, the chart library and a CSP that forbids the network', async () => {
    const result = await cli(['report', '--local', '--since', '1h', '--format', 'html', '--out', 'report.html']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`Wrote report.html: ${CALLS.first + CALLS.second + 12} calls of 2 agents.`);
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

  it('reads --agent as logs does: a typo is an error with a suggestion (with --since-deploy too), and the name on the service is an agent', async () => {
    for (const extra of [[], ['--since-deploy']]) {
      const typo = await cli(['report', '--local', '--agent', 'front-dsek', ...extra]);
      expect(typo.code).toBe(1);
      expect(typo.stdout).toBe('');
      expect(typo.stderr).toBe('error[agent_unknown]: --agent "front-dsek" is neither the local name, id or name on the service of an agent of the manifests or the apply history, nor an agent id on the service.\n  hint: Did you mean front-desk?\n');
    }
    const byDisplayName = await cli(['report', '--local', '--agent', 'Front desk', '--since', '1h', '--format', 'json']);
    expect(byDisplayName.code, byDisplayName.stderr).toBe(0);
    const agents = (JSON.parse(byDisplayName.stdout) as CallReport).agents;
    expect(agents.map((agent) => [agent.agent_id, agent.calls])).toEqual([[FRONT_DESK, CALLS.first + CALLS.second]]);
  });

  it('refuses a contradictory window and --since-deploy without a deploy, with one sentence each', async () => {
    const both = await cli(['report', '--local', '--since', '1h', '--since-deploy']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('error[invalid_argument]: --since and --since-deploy contradict each other.');
    const none = await cli(['report', '--local', '--since-deploy', '--state', 'elsewhere/state.json']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('error[report_no_deploy]: --since-deploy: the apply history of default@local has no deploy.');
    // The history is beside that state file, not in .voxform/history/.
    expect(none.stderr).toContain("  hint: Apply with voxform first (each apply is recorded in the state backend's history), or give the window with --since.");
    expect(none.stderr).not.toContain('    at ');
  });

  it('says once that the window has no calls: in the Markdown, in the line after --out, or on stderr beside JSON', async () => {
    const window = ['--since', '2001-01-01', '--until', '2001-01-02'];
    const markdown = await cli(['report', '--local', ...window]);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toContain('No calls in the window.');
    expect(markdown.stderr).toBe('');
    const written = await cli(['report', '--local', ...window, '--out', 'empty.md']);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr).toBe('Wrote empty.md: 0 calls of 0 agents.\n');
    const json = await cli(['report', '--local', ...window, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as CallReport).calls).toBe(0);
    expect(json.stderr).toBe('No call records in the window.\n');
  });

  it('refuses a window that starts after it ends, as logs does: after --until, or after now without one', async () => {
    const future = await cli(['report', '--local', '--since', '2099-01-01']);
    expect(future.code).toBe(1);
    expect(future.stdout).toBe('');
    expect(future.stderr).toContain('error[invalid_argument]: --since (2099-01-01) is later than now.\n  hint: Give a time in the past:');
    const swapped = await cli(['report', '--local', '--since', '1h', '--until', '2h']);
    expect(swapped.code).toBe(1);
    expect(swapped.stderr).toContain('error[invalid_argument]: --since (1h) is later than --until (2h).\n  hint: Swap them:');
  });
});

describe('voxform report against the service a manifest names', () => {
  it('reads the history apply wrote for the manifest\'s base_url (the same workspace key)', async () => {
    const emulator = await startEmulator({ port: 0, quiet: true });
    const tree = await makeTree({ 'voxform.yaml': `base_url: ${emulator.url}\n${manifest(SECOND_PROMPT)}` });
    try {
      // The operator trusts the origin and gives the key; the manifest names the service.
      const operator = { ...env, VOXFORM_API_KEY: emulator.apiKey, VOXFORM_TRUSTED_ORIGINS: new URL(emulator.url).origin };
      const run = (args: string[]) => runCliInProcess(args, { cwd: tree.dir, env: operator });
      const applied = await run(['apply', '--auto-approve']);
      expect(applied.code, applied.stderr).toBe(0);
      const generated = await run(['emulator', 'traffic', '--url', emulator.url, '--calls', '30', '--agent', 'front-desk', '--format', 'json']);
      expect(generated.code, generated.stderr).toBe(0);
      const result = await run(['report', '--since', '1h', '--agent', 'front-desk', '--format', 'json']);
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as CallReport;
      expect(report.workspace).toBe(workspaceKey(undefined, emulator.url));
      expect(report.agents[0]?.versions.map((version) => [version.source, version.metrics.calls])).toEqual([['voxform', 30]]);
    } finally {
      await tree.cleanup();
      await emulator.close();
    }
  }, 120_000);
});
