/**
 * The library's apply() with an `onEvent` that throws: the run stops as on a signal (what is in flight
 * ends and is recorded), the lock is released, and only then does apply() reject with that error, so
 * nothing of the run is written after it rejects. An `onLocked` that throws, or a `signal` that is not
 * one, never leaves the lock held for the next apply of the process. With a saved plan, `targets` and `takeOver` cannot
 * change what it applies. A run decided before the lock (`decidedOn`: a heal, a rollback) is refused
 * under it when another run wrote the state since.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply } from '../../src/apply/apply.js';
import { plan } from '../../src/plan/plan.js';
import { readPlanFile, savePlanFile } from '../../src/plan/plan-file.js';
import type { ApplyEvent } from '../../src/apply/apply.js';
import { startLibraryService } from '../helpers/library-service.js';
import { stateDigest } from '../../src/plan/plan-file.js';
import { FileStateBackend } from '../../src/state/file-backend.js';
import { workspaceKey } from '../../src/state/types.js';

describe('apply() with an onEvent that throws', () => {
  it('stops the run, records it and releases the lock before rejecting with the error: nothing of it comes after', async () => {
    const { client, key, dir, desired } = await startLibraryService();
    const stateFile = path.join(dir, 'state.json');
    const base = { desired, client, stateFile, serviceId: 'local', fingerprintKey: key, autoApprove: true };
    const events: ApplyEvent['type'][] = [];
    const listenerError = new Error('listener boom');
    const first = apply({
      ...base,
      parallelism: 1,
      onEvent: (event) => {
        events.push(event.type);
        if (event.type === 'done') throw listenerError;
      },
    }).catch((error: unknown) => error);
    const error = await first;
    expect(error).toBe(listenerError);
    expect(events).toContain('stopping');
    const heardBeforeRejecting = events.length;
    // The lock is free and the state whole: the next apply finishes what the first one left.
    const second = await apply(base);
    expect(second.status).toBe('applied');
    expect(events).toHaveLength(heardBeforeRejecting);
    expect((await apply(base)).status).toBe('nothing_to_do');
  });
});

describe('apply() that rejects right after taking the lock', () => {
  it('releases it: the next apply of the process is not refused as locked by the process itself', async () => {
    const { client, key, dir, desired } = await startLibraryService();
    const stateFile = path.join(dir, 'state.json');
    const base = { desired, client, stateFile, serviceId: 'local', fingerprintKey: key, autoApprove: true };
    const callerError = new Error('onLocked boom');
    const onLocked = () => {
      throw callerError;
    };
    await expect(apply({ ...base, onLocked })).rejects.toBe(callerError);
    // Not an AbortSignal: refused before the lock is taken, as any option given in the wrong form.
    await expect(apply({ ...base, signal: 'x' as never })).rejects.toMatchObject({ code: 'invalid_option', message: 'apply(): `signal` must be an AbortSignal, not a string.' });
    await expect(apply({ ...base, onLocked: 'x' as never })).rejects.toMatchObject({ code: 'invalid_option', message: 'apply(): `onLocked` must be a function, not a string.' });
    expect((await apply(base)).status).toBe('applied');
  });

  it('refuses a stopWaiting that is not an AbortSignal before anything runs, rather than after every change was written', async () => {
    const { client, key, dir, desired, emulator } = await startLibraryService();
    const base = { desired, client, stateFile: path.join(dir, 'state.json'), serviceId: 'local', fingerprintKey: key, autoApprove: true };
    const events: string[] = [];
    await expect(apply({ ...base, stopWaiting: 'x' as never, onEvent: (event) => void events.push(event.type) })).rejects.toMatchObject({
      code: 'invalid_option',
      message: 'apply(): `stopWaiting` must be an AbortSignal, not a string.',
    });
    expect(events).toEqual([]);
    expect(emulator.control.requestLog().filter((request) => request.method !== 'GET')).toEqual([]);
  });
});

describe('apply() with a saved plan', () => {
  it('refuses targets or takeOver other than the plan\'s own, applying nothing', async () => {
    const { client, key, dir, desired } = await startLibraryService();
    const stateFile = path.join(dir, 'state.json');
    const base = { desired, client, stateFile, serviceId: 'local', fingerprintKey: key };
    const planFile = path.join(dir, 'plan.json');
    await savePlanFile(planFile, await plan(base), desired, key, { madeIn: dir });
    const savedPlan = await readPlanFile(planFile);
    for (const selection of [{ targets: ['agent.booking'] }, { takeOver: ['agent.front-desk'] }]) {
      await expect(apply({ ...base, savedPlan, workingDir: dir, ...selection })).rejects.toMatchObject({ code: 'invalid_option' });
    }
    // Its own selection, as the CLI passes it, is taken.
    expect((await apply({ ...base, savedPlan, workingDir: dir, targets: [], takeOver: [] })).status).toBe('applied');
  });
});

describe('savePlanFile() as docs/library.md calls it', () => {
  it('binds the plan to the state it was made against, as `plan --out` does: applied with another state, it is refused (plan_stale), nothing applied', async () => {
    const { client, key, dir, desired } = await startLibraryService();
    const base = { desired, client, stateFile: path.join(dir, 'state.json'), serviceId: 'local', fingerprintKey: key };
    const planFile = path.join(dir, 'lib-plan.json');
    const made = await plan(base);
    // A copy is not what plan() made: its state is unknown, and it is not saved unbound.
    await expect(savePlanFile(planFile, { ...made }, desired, key, { madeIn: dir })).rejects.toMatchObject({ code: 'invalid_option' });
    await savePlanFile(planFile, made, desired, key, { madeIn: dir });
    expect(JSON.parse(await readFile(planFile, 'utf8'))).toHaveProperty('state_digest');
    const savedPlan = await readPlanFile(planFile);
    const elsewhere = { ...base, stateFile: path.join(dir, 'other-state.json'), savedPlan, workingDir: dir };
    await expect(apply(elsewhere)).rejects.toMatchObject({ code: 'plan_stale', message: expect.stringContaining('this apply reads another state') });
    expect((await plan(base)).summary.create).toBeGreaterThan(0);
    expect((await apply({ ...base, savedPlan, workingDir: dir })).status).toBe('applied');
  });
});

describe('apply() decided on the state before the lock (a heal, a rollback)', () => {
  it('is refused under the lock, nothing applied, when another run wrote the state since; applied when none did', async () => {
    const { client, key, dir, desired } = await startLibraryService();
    const stateFile = path.join(dir, 'state.json');
    const backend = new FileStateBackend(stateFile);
    const base = { desired, client, backend, serviceId: 'local', fingerprintKey: key, autoApprove: true };
    const workspace = workspaceKey(desired.environment, 'local');
    const decidedOn = stateDigest((await backend.readWorkspace(workspace)).workspace, key);
    // Another run applies between the decision and the lock.
    expect((await apply(base)).status).toBe('applied');
    const events: string[] = [];
    await expect(apply({ ...base, decidedOn, onEvent: (event) => void events.push(event.type) })).rejects.toMatchObject({ code: 'plan_stale' });
    expect(events).not.toContain('start');
    const now = stateDigest((await backend.readWorkspace(workspace)).workspace, key);
    expect((await apply({ ...base, decidedOn: now })).status).toBe('nothing_to_do');
  });
});

describe('apply() whose confirm resolves something else than true or false', () => {
  it('applies only on true: a truthy answer is refused (invalid_option) before anything is written, naming its type, never its value', async () => {
    const { client, key, dir, desired } = await startLibraryService();
    const stateFile = path.join(dir, 'state.json');
    const base = { desired, client, stateFile, serviceId: 'local', fingerprintKey: key };
    // What a prompt resolves to (`rl.question`): the words typed, which could be anything, a secret pasted by mistake too.
    for (const [answer, type] of [['no-typed-s3cret', 'a string'], [1, '1'], [undefined, 'undefined']] as const) {
      const refused = apply({ ...base, confirm: async () => answer as never });
      await expect(refused).rejects.toMatchObject({ code: 'invalid_option', message: `apply(): \`confirm\` resolved to ${type}, where true (apply) or false (cancel) belongs; nothing was applied.` });
      await expect(refused).rejects.toMatchObject({ hint: expect.not.stringContaining('no-typed-s3cret') });
    }
    expect((await apply({ ...base, confirm: async () => false })).status).toBe('cancelled');
    // Nothing was written, and the lock is free: the whole plan is still to apply.
    const fresh = await plan({ desired, client, stateFile, serviceId: 'local', fingerprintKey: key });
    expect(fresh.summary.create).toBeGreaterThan(0);
    expect((await apply({ ...base, confirm: async () => true })).status).toBe('applied');
  });
});
