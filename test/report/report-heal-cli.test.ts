/**
 * `voxform report` after a heal, with the real parts, as the walk-through of an outside edit goes:
 * apply, `emulator traffic`, the agent edited through the service directly, traffic, `voxform drift
 * --heal`, traffic. The heal starts no version: the deployed version has the calls of both its
 * periods, the outside one its own, and the heal is one of the deploys, naming what it put back.
 */
import { describe, expect, it } from 'vitest';
import type { TrafficSummary } from '../../src/emulator/index.js';
import type { CallReport } from '../../src/report/types.js';
import { callService, useExampleProjects, type ExampleProject } from '../helpers/project.js';

const startProject = useExampleProjects();
const FRONT_DESK = '-OKdqbqetEcM4ak369ym';

async function run(p: ExampleProject, args: string[]): Promise<string> {
  const result = await p.cliInProcess(args);
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

async function traffic(p: ExampleProject, seed: number): Promise<number> {
  const summary = JSON.parse(await run(p, ['emulator', 'traffic', '--url', p.emulator.url, '--profile', 'light', '--agent', 'front-desk', '--calls', '40', '--seed', String(seed), '--format', 'json'])) as TrafficSummary;
  return summary.agents[0]?.calls ?? 0;
}

describe('voxform report after drift --heal', () => {
  it('gives the healed version the calls of both its periods and shows the heal as a deploy that put it back', async () => {
    const p = await startProject();
    await run(p, ['apply', '--auto-approve']);
    const before = await traffic(p, 11);
    await callService(p, 'PUT', `/agents/${encodeURIComponent(FRONT_DESK)}`, { name: 'Front desk', config: { first_message: 'x' } });
    const outside = await traffic(p, 12);
    await run(p, ['drift', '--heal', '--auto-approve']);
    const after = await traffic(p, 13);
    const report = JSON.parse(await run(p, ['report', '--agent', 'front-desk', '--since', '1h', '--format', 'json'])) as CallReport;
    const [agent] = report.agents;
    expect(agent?.versions.map((version) => [version.source, version.metrics.calls])).toEqual([
      ['voxform', before + after],
      ['outside', outside],
    ]);
    const deployed = agent?.versions[0]?.key;
    expect(agent?.deploys.map((deploy) => deploy.puts_back)).toEqual([null, deployed]);
    expect(Date.parse(agent?.deploys[1]?.at ?? '')).toBeGreaterThan(Date.parse(agent?.versions[1]?.last_call ?? ''));
  }, 120_000);
});
