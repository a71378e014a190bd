/**
 * A prompt file is read once however many agents name it, but each agent's update sends it and the
 * plan diffs, holds and prints each: the agents' updates of one plan send at most 64 MiB together.
 * The agent that passes it is a plan problem, and no agent after it is compared or made a block of.
 */
import { describe, expect, it } from 'vitest';
import type { ResourceChange } from '../../src/plan/types.js';
import { desiredAgent } from '../helpers/desired.js';
import { planAgainstPrompts } from '../helpers/plan.js';

/** Under the 1 MiB one request may send (about 1,010,000 bytes as JSON): 66 of them fit in 64 MiB, 67 do not. */
const shared = `${'y'.repeat(99)}\n`.repeat(10_000);

function planOf(count: number, made: ResourceChange[], prompts: { desired: string; live: string } = { desired: shared, live: 'old' }) {
  const agents = Array.from({ length: count }, (_, i) => desiredAgent(`agent-${String(i).padStart(3, '0')}`, { id: `a${i}`, config: { prompt: prompts.desired } }));
  // The last agent's id is not on the service: a compared agent would be a problem of its own.
  return planAgainstPrompts(agents, new Map(agents.slice(0, -1).map((agent) => [agent.id, prompts.live])), made);
}

describe("the agents' updates of one plan together", () => {
  it('fail the plan at the agent that takes them past 64 MiB, and compare no agent after it', async () => {
    const made: ResourceChange[] = [];
    const failure = await planOf(100, made).then(
      () => undefined,
      (error: unknown) => error as { code: string; details: Array<{ code: string; address: string; message: string }> },
    );
    expect(failure?.code).toBe('plan_failed');
    expect(failure?.details).toEqual([
      expect.objectContaining({
        code: 'plan_too_large',
        address: 'agent.agent-066',
        message:
          "agent.agent-066: with its update, the agents' updates of this plan and the live values they replace would come to more than 64 MiB together, the most one plan holds; no agent after it was compared. Plan and apply the agents in parts (`--target agent.NAME`, repeated), or shorten their prompts: a prompt file counts once for every agent that uses it.",
      }),
    ]);
    // Blocks are made early only for updates within the budget.
    expect(made.length).toBeLessThanOrEqual(66);
  });

  it('plan when they stay within it', async () => {
    const made: ResourceChange[] = [];
    await expect(planOf(67, made)).rejects.toMatchObject({ details: [expect.objectContaining({ code: 'agent_not_on_service', address: 'agent.agent-066' })] });
    expect(made.map((change) => change.address)).toHaveLength(66);
  });

  it('count them as the plan prints them: a control character, two bytes sent, is six printed', async () => {
    // 520,000 of U+0085: about 1,040,000 bytes sent, within one request; 3,120,000 printed (\u0085), so 21 fit in 64 MiB.
    // Counted as sent, 64 fit, and the JSON plan printed each three times: more matches than the escaping could hold.
    const made: ResourceChange[] = [];
    await expect(planOf(100, made, { desired: '\u0085'.repeat(520_000), live: 'old' })).rejects.toMatchObject({ details: [expect.objectContaining({ code: 'plan_too_large', address: 'agent.agent-021' })] });
    expect(made).toHaveLength(21);
  });

  it('count the live values they replace: a live prompt costs the update nothing, and the plan prints it twice', async () => {
    // Live prompts of 2,000,000 characters replaced by one word: 33 fit in 64 MiB.
    const made: ResourceChange[] = [];
    await expect(planOf(100, made, { desired: 'short', live: 'x'.repeat(2_000_000) })).rejects.toMatchObject({ details: [expect.objectContaining({ code: 'plan_too_large', address: 'agent.agent-033' })] });
    expect(made).toHaveLength(33);
  });
});
