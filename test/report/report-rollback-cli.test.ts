/**
 * `voxform report` on `--local` after a rollback, with the real parts: apply v1, `emulator traffic`,
 * apply v2, traffic, apply v1 again, traffic. Traffic stamps calls from the moment the emulator
 * stored the configuration, so some fall in the milliseconds before the apply's history record.
 * Each deploy has exactly the calls the traffic printed for it (docs/report.md: a rollback is a new
 * version from that deploy on), and `--since-deploy` shows the last two versions and no older one.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrafficSummary } from '../../src/emulator/index.js';
import { FileHistoryStore } from '../../src/history/file-store.js';
import type { HistoryRecord } from '../../src/history/types.js';
import type { CallReport } from '../../src/report/types.js';
import { workspaceKey } from '../../src/state/types.js';
import { makeTree, runCliInProcess } from '../helpers/cli.js';
import { ledgerRecords } from '../helpers/ledger.js';

const DESK = '-OKdqbqetEcM4ak369ym';
const CALLS = 40;

let dir: string;
let cleanup: () => Promise<void>;
const cli = (args: string[]) => runCliInProcess(args, { cwd: dir });
const traffic: TrafficSummary[] = [];
let deploys: HistoryRecord[] = [];

async function applyAndCall(prompt: string): Promise<void> {
  await writeFile(path.join(dir, 'voxform.yaml'), `version: 1\nagents:\n  desk:\n    id: "${DESK}"\n    config: { prompt: "${prompt}" }\n`);
  const applied = await cli(['apply', '--local', '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  const generated = await cli(['emulator', 'traffic', '--local', '--agent', 'desk', '--calls', String(CALLS), '--format', 'json']);
  expect(generated.code, generated.stderr).toBe(0);
  traffic.push(JSON.parse(generated.stdout) as TrafficSummary);
}

beforeAll(async () => {
  ({ dir, cleanup } = await makeTree({}));
  for (const prompt of ['v1', 'v2', 'v1']) await applyAndCall(prompt);
  deploys = (await ledgerRecords(new FileHistoryStore(path.join(dir, '.voxform/history')), { workspace: workspaceKey(undefined, 'local') })).reverse();
}, 180_000);

afterAll(() => cleanup?.());

async function report(args: string[]): Promise<CallReport> {
  const result = await cli(['report', '--local', '--format', 'json', ...args]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as CallReport;
}

/** Each voxform version of desk: its deploy, calls, errors and transfers. */
function deployedRows(report: CallReport): Array<[string, number, number, number]> {
  const desk = report.agents.find((agent) => agent.agent_id === DESK);
  return (desk?.versions ?? []).filter((version) => version.source === 'voxform').map((version) => [version.key, version.metrics.calls, version.metrics.error_rate.count, version.metrics.transfer_rate.count]);
}

function generatedRow(summary: TrafficSummary | undefined, deploy: HistoryRecord | undefined): [string, number, number, number] {
  const agent = summary?.agents[0] as TrafficSummary['agents'][number];
  return [deploy?.id as string, agent.calls, agent.outcomes.error ?? 0, agent.transfers];
}

describe('voxform report --local after a rollback', () => {
  it('gives every deploy exactly the calls the traffic generated for it', async () => {
    expect(deploys).toHaveLength(3);
    expect(deployedRows(await report(['--agent', 'desk']))).toEqual([0, 1, 2].map((i) => generatedRow(traffic[i], deploys[i])));
  });

  it('--since-deploy shows the rollback and the version it replaced, whole, and nothing older', async () => {
    const latest = await report(['--since-deploy']);
    expect(latest.agents.map((agent) => agent.agent_id)).toEqual([DESK]);
    expect(latest.agents[0]?.versions.map((version) => version.key)).toEqual([deploys[1]?.id, deploys[2]?.id]);
    expect(deployedRows(latest)).toEqual([1, 2].map((i) => generatedRow(traffic[i], deploys[i])));
    expect(latest.agents[0]?.deploys.map((deploy) => deploy.record_id)).toEqual([deploys[1]?.id, deploys[2]?.id]);
  });
});
