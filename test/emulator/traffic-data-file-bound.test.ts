/**
 * `voxform emulator traffic --local` on a `.voxform/local.json` of many agents, which a pull request
 * may commit: calls the data file could never hold are refused before one is made, and a signal
 * while the calls are made stops the run at once (exit 130), the data file as it was. End to end
 * with the built CLI; a preload says on stderr when the calls are being made and when the data file
 * is being saved, so the tests see how far a run went.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_DATA_FILE_TRAFFIC_CALLS, MIN_SYNTHETIC_CALL_JSON_VALUES } from '../../src/emulator/traffic/index.js';
import { SPARE_AGENT_IDS } from '../../src/emulator/spare-agents.js';
import { MAX_EMULATOR_DATA_JSON_VALUES } from '../../src/project-files/limits.js';
import { repoRoot, runCli, spawnCli, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const ANNOUNCE = path.join(repoRoot, 'test/helpers/announce-traffic-generation.mjs');
const STOPPED = 'error[interrupted]: voxform stopped at your request.\n  hint: Run the command again to finish its work.\n';
const count = (n: number) => n.toLocaleString('en-US');
// Each test runs the CLI over thousands of agents, on a machine other tests keep busy.
const SLOW_CLI_MS = 60_000;

/** A folder whose `.voxform/local.json` holds the default account and `copies` copies of a spare agent, as committed; and its bytes. */
async function folderWithCopies(copies: number): Promise<{ dir: string; dataFile: string; planted: Buffer; agents: number }> {
  const dir = await tempDir();
  expect((await runCli(['get', 'agents', '--local'], { cwd: dir })).code).toBe(0);
  const dataFile = path.join(dir, '.voxform/local.json');
  const data = JSON.parse(await readFile(dataFile, 'utf8')) as { agents: Array<{ id: string; name: string }> };
  const spare = data.agents.find((agent) => agent.id === SPARE_AGENT_IDS[0]);
  for (let i = 0; i < copies; i++) data.agents.push({ ...structuredClone(spare!), id: `-OKcopy${String(i).padStart(13, '0')}`, name: `Copy ${i}` });
  await writeFile(dataFile, JSON.stringify(data));
  return { dir, dataFile, planted: await readFile(dataFile), agents: data.agents.length };
}

describe('emulator traffic --local on a data file of many agents', () => {
  it('refuses, before one call is made, more calls than the data file can hold: the count, the limit, what to do; the file as it was', async () => {
    // 200 calls (the steady profile's) for each of two thousand agents: over the bound, under the 2,000,000 of a request.
    const { dir, dataFile, planted, agents } = await folderWithCopies(2_000);
    const calls = agents * 200;
    expect(calls).toBeGreaterThan(MAX_DATA_FILE_TRAFFIC_CALLS);
    const run = spawnCli(dir, {}, ['emulator', 'traffic', '--local'], { preload: ANNOUNCE });
    expect(await run.exited, run.output.stderr).toBe(1);
    expect(run.output.stdout).toBe('');
    // No `generating traffic`: the refusal came before the first call was made.
    expect(run.output.stderr).toBe(
      `error[emulator_data_too_large]: This run would add ${count(calls)} synthetic calls (${count(agents)} agents × 200) to .voxform/local.json, more than it can hold: ` +
        `at most ${count(MAX_DATA_FILE_TRAFFIC_CALLS)} (each call takes at least ${MIN_SYNTHETIC_CALL_JSON_VALUES} of the ${count(MAX_EMULATOR_DATA_JSON_VALUES)} JSON values the emulator reads back from it). No call was made or added.\n` +
        '  hint: Ask for fewer: --calls N for each agent, or --agent for some of the agents only; or keep so many calls in a `voxform emulator` without --data ' +
        '(in memory, up to 2,000,000 a run) and add them with `voxform emulator traffic --url URL` (docs/traffic.md).\n',
    );
    expect(await readFile(dataFile)).toEqual(planted);
  }, SLOW_CLI_MS);

  it('SIGTERM while the calls are made stops the run there: exit 130, the data file never saved', async () => {
    // A thousand agents of 200 calls: within the bound, and seconds of work to make.
    const { dir, dataFile, planted, agents } = await folderWithCopies(1_000);
    expect(agents * 200).toBeLessThan(MAX_DATA_FILE_TRAFFIC_CALLS);
    const run = spawnCli(dir, {}, ['emulator', 'traffic', '--local'], { preload: ANNOUNCE });
    await run.stderrShows('generating traffic');
    run.child.kill('SIGTERM');
    expect(await run.exited, run.output.stderr).toBe(130);
    expect(run.output.stdout).toBe('');
    // No `saving the data file`: the run stopped before it went on to save.
    expect(run.output.stderr).toBe(`generating traffic\n${STOPPED}`);
    expect(await readFile(dataFile)).toEqual(planted);
  }, SLOW_CLI_MS);
});
