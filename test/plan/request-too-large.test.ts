/**
 * The service takes at most 1 MiB in one request: an agent whose update would be larger (a prompt
 * of about a megabyte, under the 2 MiB a prompt file may have) fails the plan, naming the agent and
 * its prompt file, before apply would send it and fail half-way.
 */
import { describe, expect, it } from 'vitest';
import type { ResourceChange } from '../../src/plan/types.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { desiredAgent } from '../helpers/desired.js';
import { planAgainstPrompts } from '../helpers/plan.js';

const tempDir = useTempDirs();

describe('an agent update larger than the service takes', () => {
  it('is a plan problem at the agent, and apply stops on it as plan does', async () => {
    const cwd = await tempDir({
      'voxform.yaml': 'version: 1\nagents:\n  desk:\n    id: -OKspareAgent0000001\n    config:\n      prompt: { file: big.md }\n',
      'big.md': `${'y'.repeat(99)}\n`.repeat(12_000),
    });
    const plan = await runCliInProcess(['plan', '--local', '--format', 'json'], { cwd });
    expect(plan.code).toBe(1);
    const error = (JSON.parse(plan.stdout) as { error: { details: Array<{ code: string; message: string; line: number }> } }).error;
    expect(error.details).toEqual([
      expect.objectContaining({ code: 'request_too_large', line: 3, message: 'agent.desk: its update would send 1.2 MiB, more than the 1 MiB the service takes in one request. Shorten its prompt (big.md) or its other long fields.' }),
    ]);
    const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('error[plan_failed]: voxform.yaml:3:3: agent.desk: its update would send 1.2 MiB, more than the 1 MiB the service takes in one request.');
    // A prompt under the limit plans as before.
    const fits = await tempDir({ 'voxform.yaml': 'version: 1\nagents:\n  desk:\n    id: -OKspareAgent0000001\n    config:\n      prompt: { file: big.md }\n', 'big.md': `${'y'.repeat(99)}\n`.repeat(9_000) });
    expect((await runCliInProcess(['plan', '--local'], { cwd: fits })).code).toBe(0);
  });

  it("is refused before its printed block, and its prompt's line diff, is made", async () => {
    const big = `${'y'.repeat(99)}\n`.repeat(12_000);
    const agents = [desiredAgent('desk', { id: 'a1', config: { prompt: big } }), desiredAgent('lobby', { id: 'a2', config: { prompt: 'new' } })];
    const made: ResourceChange[] = [];
    await expect(planAgainstPrompts(agents, new Map(agents.map((agent) => [agent.id, 'old'])), made)).rejects.toMatchObject({ code: 'plan_failed' });
    expect(made.map((change) => change.address)).toEqual(['agent.lobby']);
  });
});
