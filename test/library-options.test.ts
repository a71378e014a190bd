/**
 * What the library's entries refuse of a caller in plain JavaScript (no type check): an option in the
 * wrong form is `invalid_option` naming it, before anything is read, locked or sent — never a run
 * that quietly does something else, a TypeError from deep inside, or a host out of memory.
 */
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, apply, checkDrift, COMMAND_ERROR_CODES, createClient, DIAGNOSTIC_CODES, evaluatePolicy, loadManifests, plan, PLAN_PROBLEM_CODES, REGION_BASE_URLS, runTests } from '../src/index.js';
import type { CompletionModel } from '../src/index.js';
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

describe('every published entry refuses an option in the wrong form, naming it', () => {
  it('is invalid_option naming the option, never a TypeError from deep inside nor a run that writes first', async () => {
    const loaded = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: SECRETS });
    const desired = loaded.state!;
    const client = createClient({ apiKey: 'sk-unused', baseUrl: 'http://127.0.0.1:9' });
    const base = { desired, client, serviceId: 'local', fingerprintKey: 'k', stateFile: path.join(tmpdir(), 'voxform-never-written.json') };
    // Each as plain JavaScript would call it: `as never` stands for a caller without types.
    const wrong = (options: Record<string, unknown>) => ({ ...base, ...options }) as never;
    const calls: Array<[string, string, () => unknown]> = [
      // `desired: loaded`, the load's result for its state, met `Cannot read properties of undefined (reading 'values')`.
      ['plan', 'desired', () => plan(wrong({ desired: loaded }))],
      ['checkDrift', 'desired', () => checkDrift(wrong({ desired: loaded }))],
      ['apply', 'desired', () => apply(wrong({ desired: loaded, autoApprove: true }))],
      ['evaluatePolicy', 'desired', () => evaluatePolicy(loaded as never, { now: () => new Date() })],
      ['plan', 'client', () => plan(wrong({ client: {} }))],
      ['checkDrift', 'client', () => checkDrift(wrong({ client: {} }))],
      ['apply', 'client', () => apply(wrong({ client: { getAgent: () => undefined, listPhones: () => undefined }, autoApprove: true }))],
      ['plan', 'backend', () => plan(wrong({ backend: {} }))],
      ['checkDrift', 'backend', () => checkDrift(wrong({ backend: {} }))],
      ['apply', 'backend', () => apply(wrong({ backend: {}, autoApprove: true }))],
      // It ran and wrote, then warned `context.history.append is not a function`.
      ['apply', 'history', () => apply(wrong({ history: { append: 'nope' }, autoApprove: true }))],
      ['runTests', 'signal', () => runTestsWith({ signal: {} })],
      ['runTests', 'onProgress', () => runTestsWith({ onProgress: 1 })],
      ['runTests', 'redact', () => runTestsWith({ redact: 'x' })],
      ['runTests', 'recordings', () => runTestsWith({ recordings: {} })],
      ['runTests', 'judgeCache', () => runTestsWith({ judgeCache: {} })],
      ['runTests', 'client', () => runTestsWith({ client: {} })],
      ['runTests', 'grep', () => runTestsWith({ grep: 5 })],
      ['runTests', 'fingerprintKey', () => runTestsWith({ fingerprintKey: 5 })],
      ['runTests', 'withSecrets', () => runTestsWith({ withSecrets: 'yes' })],
      ['runTests', 'limits', () => runTestsWith({ limits: 'x' })],
      ['runTests', 'limits.maxConversations', () => runTestsWith({ limits: { maxConversations: 0 } })],
      // Without a service, a run that is not all replayed met `Error('runTests(): a live request in a run without a service')`.
      ['runTests', 'client', () => runTestsWith({ client: undefined })],
      ['createClient', 'backoff.maxMs', () => createClient({ apiKey: 'k', backoff: { maxMs: 'x' as never } })],
      ['createClient', 'onRequest', () => createClient({ apiKey: 'k', onRequest: 1 as never })],
    ];
    const refused = (error: unknown, entry: string, option: string) => {
      const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
      return code === 'invalid_option' && typeof message === 'string' && (message.startsWith(`${entry}(): \`${option}\` `) || message.startsWith(`${entry}() needs \`${option}\` `));
    };
    // Every entry's outcome, so that one run shows each that is not refused as it should be.
    const notRefused: string[] = [];
    try {
      for (const [entry, option, call] of calls) {
        const error = await Promise.resolve().then(call).then(() => undefined, (thrown: unknown) => thrown);
        if (!refused(error, entry, option)) notRefused.push(`${entry} ${option}: ${error === undefined ? 'ran' : String(error)}`);
      }
      expect(notRefused).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("says to pass the load's `state` when given the load's result", async () => {
    const loaded = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: SECRETS });
    await expect(evaluatePolicy(loaded as never, { now: () => new Date() })).rejects.toMatchObject({ code: 'invalid_option', message: expect.stringContaining('`loaded.state`') });
  });
});

describe('what the library exports is its contract, and stays as documented', () => {
  it('refuses a judge without `complete`, and runs with one that has it (the CompletionModel type)', async () => {
    await expect(runTestsWith({ model: {} })).rejects.toMatchObject({ code: 'invalid_option', message: expect.stringContaining('runTests(): `model` must be ') });
    const judge: CompletionModel = { complete: () => Promise.resolve({ role: 'assistant', content: '{"pass": true, "reason": "ok"}', refusal: null }) };
    await expect(runTestsWith({ model: judge })).resolves.toMatchObject({ against: ['desired'] });
  });

  it('keeps its constants as documented: no caller can redirect the key or rewrite a code list', () => {
    const lists: Array<[string, object]> = [
      ['REGION_BASE_URLS', REGION_BASE_URLS],
      ['COMMAND_ERROR_CODES', COMMAND_ERROR_CODES],
      ['API_ERROR_CODES', API_ERROR_CODES],
      ['PLAN_PROBLEM_CODES', PLAN_PROBLEM_CODES],
      ['DIAGNOSTIC_CODES', DIAGNOSTIC_CODES],
    ];
    expect(lists.filter(([, value]) => !Object.isFrozen(value)).map(([name]) => name)).toEqual([]);
    // A module is strict: writing a frozen object throws, where it once changed where createClient sent the key.
    expect(() => ((REGION_BASE_URLS as { us: string }).us = 'http://127.0.0.1:9/evil')).toThrow(TypeError);
    expect(createClient({ apiKey: 'k' }).baseUrl).toBe('https://api-west.millis.ai');
  });
});
