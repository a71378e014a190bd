/**
 * `voxform report` of one environment on a service that several environments share: the calls of
 * another environment's agents (known from its workspace in the state) are that environment's,
 * neither a version of this one's agents nor "changed outside voxform": left out, counted in one line.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallReport } from '../../src/report/types.js';
import { repoRoot, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { asAdmin, freshDatabase, PLANTED_DB_PASSWORD } from '../helpers/postgres.js';

const addFormats = addFormatsModule.default;
const tempDir = useTempDirs();

const MANIFEST = [
  'version: 1',
  'agents:',
  '  desk: { id: -OKspareAgent0000001, name: Desk }',
  'environments:',
  '  staging:',
  '    agents: { desk: { id: -OKspareAgent0000002 } }',
  '',
].join('\n');

async function validateReport(report: unknown): Promise<void> {
  const schema = JSON.parse(await readFile(path.join(repoRoot, 'schemas/report.schema.json'), 'utf8')) as object;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  expect(ajv.validate(schema, report), ajv.errorsText()).toBe(true);
}

describe("the report of one environment, beside another environment's agents", () => {
  it('leaves their calls out with a one-line count, in every format; --agent still reports one of them, from its own history', async () => {
    const cwd = await tempDir({ 'voxform.yaml': MANIFEST });
    const cli = (...args: string[]) => runCliInProcess([...args, '--local'], { cwd });
    expect((await cli('apply', '--auto-approve')).code).toBe(0);
    expect((await cli('apply', '--env', 'staging', '--auto-approve')).code).toBe(0);
    expect((await cli('emulator', 'traffic', '--agent', '-OKspareAgent0000001', '--calls', '4')).code).toBe(0);
    expect((await cli('emulator', 'traffic', '--agent', '-OKspareAgent0000002', '--calls', '3')).code).toBe(0);

    const json = await cli('report', '--format', 'json');
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as CallReport;
    // The account's other agents (the emulator's seed) are neither environment's: reported as before.
    const ids = report.agents.map((agent) => agent.agent_id);
    expect(ids).toContain('-OKspareAgent0000001');
    expect(ids).not.toContain('-OKspareAgent0000002');
    expect(report.agents.find((agent) => agent.agent_id === '-OKspareAgent0000001')!.versions.map((version) => version.source)).toEqual(['voxform']);
    expect(report.other_environments).toEqual([{ environment: 'staging', agents: 1, calls: 3 }]);
    await validateReport(report);

    const markdown = await cli('report');
    expect(markdown.stdout).toContain('Left out: 3 calls of 1 agent of environment staging (`--env staging` reports them).');
    expect(markdown.stdout).not.toContain('-OKspareAgent0000002');
    // This environment's agent first, by its local name; then the seed's, which no workspace holds, by their names on the service, with their ids.
    expect(markdown.stdout.match(/^### .*$/gm)).toEqual(['### desk', '### Appointment booking · `-OKdqbqetEcM4ak369yn`', '### Front desk · `-OKdqbqetEcM4ak369ym`', '### Front desk (staging) · `-OKstagingFrontDesk01`']);
    const staging = JSON.parse((await cli('report', '--env', 'staging', '--format', 'json')).stdout) as CallReport;
    expect(staging.agents.map((agent) => agent.agent_id)).toContain('-OKspareAgent0000002');
    expect(staging.agents.map((agent) => agent.agent_id)).not.toContain('-OKspareAgent0000001');
    expect(staging.other_environments).toEqual([{ environment: 'default', agents: 1, calls: 4 }]);
    const asked = JSON.parse((await cli('report', '--agent', '-OKspareAgent0000002', '--format', 'json')).stdout) as CallReport;
    expect(asked.agents.map((agent) => agent.agent_id)).toEqual(['-OKspareAgent0000002']);
    expect(asked.other_environments).toEqual([]);
    // Its versions are read from the history of the environment that applies it, as --env staging reads them.
    expect(asked.workspace).toBe('staging@local');
    const stagingVersions = staging.agents.find((agent) => agent.agent_id === '-OKspareAgent0000002')!.versions;
    expect(asked.agents[0]!.versions.map((version) => [version.source, version.deploy?.record_id, version.metrics.calls])).toEqual(
      stagingVersions.map((version) => [version.source, version.deploy?.record_id, version.metrics.calls]),
    );
    expect(asked.agents[0]!.versions.filter((version) => version.source === 'voxform').map((version) => version.metrics.calls)).toEqual([3]);
    expect((await cli('report', '--agent', '-OKspareAgent0000002')).stdout).not.toContain('changed outside voxform');
  }, 180_000);

  it("is made from what can be read when another environment's workspace cannot be, naming it and why (no password), exit 0", async () => {
    const cwd = await tempDir({ 'voxform.yaml': MANIFEST });
    const { url, database } = await freshDatabase();
    const cli = (...args: string[]) => runCliInProcess([...args, '--local', '--state', url], { cwd });
    const traffic = (agent: string, calls: number) => runCliInProcess(['emulator', 'traffic', '--local', '--agent', agent, '--calls', String(calls)], { cwd });
    expect((await cli('apply', '--auto-approve')).code).toBe(0);
    expect((await cli('apply', '--env', 'staging', '--auto-approve')).code).toBe(0);
    expect((await traffic('-OKspareAgent0000001', 4)).code).toBe(0);
    expect((await traffic('-OKspareAgent0000002', 3)).code).toBe(0);
    // Staging's row is damaged (a hand edit, a bad restore): the default environment's own state is whole.
    await asAdmin((client) => client.query(`UPDATE voxform_workspaces SET state = '{"phones": "damaged"}' WHERE workspace = 'staging@local'`), database);
    const noPassword = (result: { stdout: string; stderr: string }) => {
      for (const secret of [PLANTED_DB_PASSWORD, encodeURIComponent(PLANTED_DB_PASSWORD)]) expect(result.stdout + result.stderr).not.toContain(secret);
    };

    const json = await cli('report', '--format', 'json');
    expect(json.code, json.stderr).toBe(0);
    noPassword(json);
    const report = JSON.parse(json.stdout) as CallReport;
    expect(report.unread_environments).toEqual([{ environment: 'staging', problem: expect.stringMatching(/^The state of workspace staging@local in postgres:\/\/\S+ /) }]);
    // Staging's agent is not known to be staging's: its calls are reported here, as an agent voxform does not manage.
    expect(report.other_environments).toEqual([]);
    const desk = report.agents.find((agent) => agent.agent_id === '-OKspareAgent0000001')!;
    expect(desk.versions.map((version) => [version.source, version.metrics.calls])).toEqual([['voxform', 4]]);
    expect(report.agents.find((agent) => agent.agent_id === '-OKspareAgent0000002')).toMatchObject({ managed: false });
    await validateReport(report);

    const markdown = await cli('report');
    expect(markdown.code, markdown.stderr).toBe(0);
    noPassword(markdown);
    expect(markdown.stdout).toMatch(/\n\nThe state of environment staging could not be read, so an agent staging applies is reported here as one voxform does not manage, its calls not left out: The state of workspace staging@&#8203;local in postgres:&#47;&#47;\S+ is not a state voxform wrote: .*\n/);
    expect((await cli('report', '--format', 'html', '--out', 'report.html')).code).toBe(0);
    expect(await readFile(path.join(cwd, 'report.html'), 'utf8')).toContain('<p class="test-traffic">The state of environment staging could not be read, so an agent staging applies is reported here as one voxform does not manage');

    // A row that is not JSON keeps the service's workspaces from being listed at all: said so, and this environment's report still made.
    await asAdmin((client) => client.query(`UPDATE voxform_workspaces SET state = '{"phones":' WHERE workspace = 'staging@local'`), database);
    const unlisted = await cli('report', '--format', 'json');
    expect(unlisted.code, unlisted.stderr).toBe(0);
    noPassword(unlisted);
    expect((JSON.parse(unlisted.stdout) as CallReport).unread_environments).toEqual([{ environment: null, problem: expect.stringContaining('staging@local') }]);
    expect((await cli('report')).stdout).toMatch(/\n\nThe service's other workspaces could not be listed, so an agent another environment applies is reported here as one voxform does not manage, its calls not left out: .*staging@&#8203;local.*\n/);
  }, 180_000);

  it('--since-deploy without --env, where the manifests give ids only in their environments, names the workspace read and the --env to give, not an apply to make', async () => {
    const manifest = ['version: 1', 'agents:', '  desk: { name: Desk }', 'environments:', '  staging:', '    agents: { desk: { id: -OKspareAgent0000002 } }', '  production:', '    agents: { desk: { id: -OKspareAgent0000003 } }', ''].join('\n');
    const cwd = await tempDir({ 'voxform.yaml': manifest });
    const cli = (...args: string[]) => runCliInProcess([...args, '--local'], { cwd });
    expect((await cli('apply', '--env', 'staging', '--auto-approve')).code).toBe(0);
    expect((await cli('report', '--env', 'staging', '--since-deploy')).code).toBe(0);

    const withoutEnv = await cli('report', '--since-deploy');
    expect(withoutEnv.code).toBe(1);
    expect(withoutEnv.stdout).toBe('');
    expect(withoutEnv.stderr).toBe(
      'error[report_no_deploy]: --since-deploy: the apply history of default@local has no deploy.\n' +
        "  hint: The manifests give their agents' ids only in their environments, whose applies are recorded under them: run again with --env staging or --env production.\n",
    );
  });

  it('--since-deploy --agent with no deploy in the window offers no --env the run already read: not the one given, not the agent\'s own', async () => {
    const manifest = ['version: 1', 'agents:', '  desk: { name: Desk }', 'environments:', '  staging:', '    agents: { desk: { id: -OKspareAgent0000002 } }', '  production:', '    agents: { desk: { id: -OKspareAgent0000003 } }', ''].join('\n');
    const cwd = await tempDir({ 'voxform.yaml': manifest });
    const cli = (...args: string[]) => runCliInProcess([...args, '--local'], { cwd });
    expect((await cli('apply', '--env', 'staging', '--auto-approve')).code).toBe(0);
    const noDeploy =
      'error[report_no_deploy]: --since-deploy: the apply history of staging@local has no deploy of agent -OKspareAgent0000002.\n' +
      "  hint: Apply with voxform first (each apply is recorded in the state backend's history), or give the window with --since.\n";
    // Before the deploy: staging's history holds none yet. Read for the agent whether --env names staging or not.
    for (const env of [['--env', 'staging'], []]) {
      const result = await cli('report', '--since-deploy', '--agent', '-OKspareAgent0000002', '--until', '2020-01-01T00:00:00Z', ...env);
      expect(result.code, env.join(' ')).toBe(1);
      expect(result.stderr, env.join(' ')).toBe(noDeploy);
    }
  });
});
