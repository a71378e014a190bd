/**
 * What the library's entries refuse of a caller in plain JavaScript (no type check): an option in the
 * wrong form is `invalid_option` naming it, before anything is read, locked or sent — never a run
 * that quietly does something else, a TypeError from deep inside, or a host out of memory.
 */
import { describe, expect, it } from 'vitest';
import { createClient, loadManifests, runTests } from '../src/index.js';
import { runLazily } from '../src/conversations/runner.js';
import { repoRoot } from './helpers/cli.js';
import { SECRETS } from './helpers/project.js';

/** runTests' options around `extra`: no file, so a run that is not refused sends nothing and resolves. */
async function runTestsWith(extra: Record<string, unknown>): Promise<unknown> {
  const { state: desired } = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: SECRETS });
  const client = createClient({ apiKey: 'sk-unused', baseUrl: 'http://127.0.0.1:9' });
  try {
    return await runTests({ files: [], targets: ['desired'], client, desired: desired!, model: undefined, parallelism: 4, ...extra } as never);
  } finally {
    await client.close();
  }
}

describe('runTests refuses what the command line refuses', () => {
  it('refuses a `repeat` that is not a whole number from 1 to 1,000,000 (0 skipped every test, and the run succeeded)', async () => {
    for (const repeat of [0, -1, 2.5, '3', 1_000_001]) {
      await expect(runTestsWith({ repeat }), `repeat: ${String(repeat)}`).rejects.toMatchObject({
        code: 'invalid_option',
        message: expect.stringContaining('runTests(): `repeat` must be a whole number from 1 to 1,000,000, not '),
      });
    }
  });

  it("refuses a target that is not 'desired' or 'live', or one given twice (a misspelled one tested the live agent)", async () => {
    for (const targets of [['Desired'], ['desried'], ['desired', 'desired'], [], ['live', 5]]) {
      await expect(runTestsWith({ targets }), `targets: ${JSON.stringify(targets)}`).rejects.toMatchObject({
        code: 'invalid_option',
        message: "runTests() needs `targets` (a non-empty array of 'desired' or 'live', each at most once) among its options.",
      });
    }
  });

  it('refuses a `parallelism` past 256, as --parallelism does (1e9 aborted the host out of memory)', async () => {
    await expect(runTestsWith({ parallelism: 257 })).rejects.toMatchObject({
      code: 'invalid_option',
      message: 'runTests() needs `parallelism` (a whole number from 1 to 256) among its options.',
    });
  });

  it('makes no more workers than there are jobs, whatever the parallelism', async () => {
    let asked = 0;
    const jobs: Iterator<() => Promise<void>> = {
      next: () => (++asked <= 3 ? { done: false, value: () => Promise.resolve() } : { done: true, value: undefined }),
    };
    await runLazily(jobs, 10_000);
    // Each worker asks once more than the jobs it ran, to learn that none is left.
    expect(asked).toBeLessThanOrEqual(3 + 4);
  });
});
