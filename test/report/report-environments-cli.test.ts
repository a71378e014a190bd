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
    const schema = JSON.parse(await readFile(path.join(repoRoot, 'schemas/report.schema.json'), 'utf8')) as object;
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    expect(ajv.validate(schema, report), ajv.errorsText()).toBe(true);

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
});
