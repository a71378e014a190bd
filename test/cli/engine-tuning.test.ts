/**
 * V8's settings for `plan` (src/cli/engine-tuning.ts) are the process's: they are set only when
 * voxform owns the process (bin/voxform.js), only for `plan`, and never for a program that runs
 * `main` in-process. The flags themselves are V8's to act on; every end-to-end test that spawns
 * `voxform plan` runs under them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { PLAN_ENGINE_FLAGS, tuneEngineForPlan } from '../../src/cli/engine-tuning.js';

const setFlags = vi.hoisted(() => vi.fn());
vi.mock('node:v8', async (importOriginal) => ({ ...(await importOriginal<typeof import('node:v8')>()), setFlagsFromString: setFlags }));

let folder: string;
const savedCwd = process.cwd();

beforeEach(async () => {
  // An empty folder: each command stops at "no manifest", after the engine was (or was not) tuned.
  folder = await mkdtemp(path.join(tmpdir(), 'voxform-engine-'));
  process.chdir(folder);
  setFlags.mockClear();
  for (const stream of [process.stdout, process.stderr]) vi.spyOn(stream, 'write').mockImplementation(() => true);
});

afterEach(async () => {
  vi.restoreAllMocks();
  process.chdir(savedCwd);
  await rm(folder, { recursive: true, force: true });
});

describe('the engine settings for plan', () => {
  it('are the baseline compiler and a main-thread young generation collector', () => {
    tuneEngineForPlan();
    expect(setFlags.mock.calls.map(([flag]) => flag)).toEqual(['--max-opt=1', '--no-parallel-scavenge']);
    expect(PLAN_ENGINE_FLAGS).toEqual(['--max-opt=1', '--no-parallel-scavenge']);
  });

  it('are set for plan when voxform owns the process', async () => {
    expect(await main(['plan'], { ownProcess: true })).toBe(1);
    expect(setFlags.mock.calls.map(([flag]) => flag)).toEqual([...PLAN_ENGINE_FLAGS]);
  });

  it('are left alone in a program that runs main in-process', async () => {
    expect(await main(['plan'])).toBe(1);
    expect(setFlags).not.toHaveBeenCalled();
  });

  it('are left alone for the other commands, apply included', async () => {
    for (const command of ['validate', 'apply', 'rollback']) await main([command], { ownProcess: true });
    expect(setFlags).not.toHaveBeenCalled();
  });
});
