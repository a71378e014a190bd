/**
 * `voxform report` on `--local` after a prompt edit that appends a paragraph, with the real parts:
 * apply, `emulator traffic`, apply the prompt with a paragraph appended, traffic. Cut at the first
 * prompt's length, the second prompt looks like the first plus a prefetch webhook's extra prompt;
 * the calls made after the second deploy ran with its configuration exactly, so they are its calls.
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
const FIRST_PROMPT = 'You book appointments.';
const APPENDED_PROMPT = `${FIRST_PROMPT}\n\nAlways read the date back to the caller.`;
const CALLS = 40;

let dir: string;
let cleanup: () => Promise<void>;
const cli = (args: string[]) => runCliInProcess(args, { cwd: dir });
const traffic: TrafficSummary[] = [];
let deploys: HistoryRecord[] = [];

async function applyAndCall(prompt: string): Promise<void> {
  await writeFile(path.join(dir, 'voxform.yaml'), `version: 1\nagents:\n  desk:\n    id: "${DESK}"\n    config: { prompt: ${JSON.stringify(prompt)} }\n`);
  const applied = await cli(['apply', '--local', '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  const generated = await cli(['emulator', 'traffic', '--local', '--agent', 'desk', '--calls', String(CALLS), '--format', 'json']);
  expect(generated.code, generated.stderr).toBe(0);
  traffic.push(JSON.parse(generated.stdout) as TrafficSummary);
}

beforeAll(async () => {
  ({ dir, cleanup } = await makeTree({}));
  for (const prompt of [FIRST_PROMPT, APPENDED_PROMPT]) await applyAndCall(prompt);
  deploys = (await ledgerRecords(new FileHistoryStore(path.join(dir, '.voxform/history')), { workspace: workspaceKey(undefined, 'local') })).reverse();
}, 180_000);

afterAll(() => cleanup?.());

describe('voxform report --local after a deploy that appended to the prompt', () => {
  it('counts the calls made after the deploy under the new version, and the earlier ones under the one before', async () => {
    expect(deploys).toHaveLength(2);
    const result = await cli(['report', '--local', '--agent', 'desk', '--format', 'json']);
    expect(result.code, result.stderr).toBe(0);
    const desk = (JSON.parse(result.stdout) as CallReport).agents.find((agent) => agent.agent_id === DESK);
    // The local emulator's seeded calls come before any deploy: a version changed outside voxform.
    expect(desk?.versions.filter((version) => version.source === 'voxform').map((version) => [version.key, version.metrics.calls])).toEqual([
      [deploys[0]?.id, traffic[0]?.agents[0]?.calls],
      [deploys[1]?.id, traffic[1]?.agents[0]?.calls],
    ]);
  });
});
