/**
 * `voxform emulator traffic --local` on a `.voxform/local.json` of many agents, which a pull request
 * may commit: a signal while the calls are made stops the run at once (exit 130), the data file as
 * it was. End to end with the built CLI; a preload says on stderr when the calls are being made and
 * when the data file is being saved, so the tests see how far a run went.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPARE_AGENT_IDS } from '../../src/emulator/spare-agents.js';
import { repoRoot, runCli, spawnCli, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const ANNOUNCE = path.join(repoRoot, 'test/helpers/announce-traffic-generation.mjs');
const STOPPED = 'error[interrupted]: voxform stopped at your request.\n  hint: Run the command again to finish its work.\n';
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
  it('SIGTERM while the calls are made stops the run there: exit 130, the data file never saved', async () => {
    // A thousand agents of 200 calls: seconds of work to make.
    const { dir, dataFile, planted } = await folderWithCopies(1_000);
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
