/** `plan --out` never saves a plan that `plan show` and `apply` would refuse: the writer checks the reader's bound. */
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffStates, summarize } from '../../src/plan/diff.js';
import { PLAN_JSON_LIMITS, readPlanFile, recordPlanBasis, savePlanFile } from '../../src/plan/plan-file.js';
import type { LiveState } from '../../src/plan/read-live.js';
import type { Plan } from '../../src/plan/types.js';
import type { Agent } from '../../src/schema/types.gen.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { useTempDirs } from '../helpers/cli.js';
import { desiredAgent, desiredState } from '../helpers/desired.js';

const tempDir = useTempDirs();

/** A plan updating the prompt of `count` agents. */
function planOf(count: number) {
  const agents = Array.from({ length: count }, (_, i) => desiredAgent(`agent-${i}`, { id: `a${i}`, config: { prompt: `Prompt ${i}` } }));
  const desired = desiredState({ agents });
  const live: LiveState = { agents: new Map(agents.map((agent) => [agent.id, { id: agent.id, name: 'Desk', created_at: 1, config: { prompt: 'Same' } } as Agent])), phones: [] };
  const { changes } = diffStates({ desired, live, state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] });
  const plan: Plan = { formatVersion: 1, createdAt: '2026-01-01T00:00:00.000Z', manifestHash: desired.manifestHash, files: [], environment: undefined, baseUrl: 'local', targets: [], changes, summary: summarize(changes) };
  // Made against an empty state, as plan() notes of the plans it makes: a saved plan is bound to it.
  recordPlanBasis(plan, emptyWorkspace(), { identity: async () => 'state.json' });
  return { plan, desired };
}

describe('the bound of a saved plan', () => {
  it('refuses to save a plan past the JSON values the reader takes, saying how to make a smaller one; nothing is written', async () => {
    const { plan, desired } = planOf(40);
    const file = path.join(await tempDir(), 'plan.json');
    const limits = { ...PLAN_JSON_LIMITS, maxValues: 500 };
    await expect(savePlanFile(file, plan, desired, 'key', { limits })).rejects.toMatchObject({
      code: 'plan_write_failed',
      message: `Cannot save the plan to ${file}: it holds more than 500 JSON values, the limit for a saved plan, so \`voxform plan show\` and \`voxform apply\` could not read it; nothing was saved.`,
      hint: expect.stringContaining('--target'),
    });
    expect(existsSync(file)).toBe(false);
    expect(await readdir(path.dirname(file))).toEqual([]);
  });

  it('refuses a plan past the size the reader takes, saying its whole size; nothing is written', async () => {
    const { plan, desired } = planOf(3);
    const file = path.join(await tempDir(), 'plan.json');
    const limits = { ...PLAN_JSON_LIMITS, maxBytes: 1024 };
    const failure = await savePlanFile(file, plan, desired, 'key', { limits }).catch((error: unknown) => error as Error);
    expect(failure).toMatchObject({ code: 'plan_write_failed', message: expect.stringMatching(/^Cannot save the plan to .*: it is [\d,]+ bytes; the limit is 1 KiB for a saved plan/) });
    await savePlanFile(file, plan, desired, 'key');
    expect(failure?.message).toContain(`it is ${(await readFile(file)).length.toLocaleString('en-US')} bytes;`);
    await rm(file);
    await expect(savePlanFile(file, plan, desired, 'key', { limits })).rejects.toThrow();
    expect(await readdir(path.dirname(file))).toEqual([]);
  });

  it('saves a plan within the bound, which the reader under the same bound reads back', async () => {
    const { plan, desired } = planOf(3);
    const file = path.join(await tempDir(), 'plan.json');
    const limits = { ...PLAN_JSON_LIMITS, maxValues: 500 };
    await savePlanFile(file, plan, desired, 'key', { limits });
    await expect(readPlanFile(file, limits)).resolves.toMatchObject({ kind: 'voxform-plan', resource_changes: expect.any(Array) });
  });
});
