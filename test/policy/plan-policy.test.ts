import { describe, expect, it } from 'vitest';
import { promptTokenChanges } from '../../src/policy/plan-policy.js';
import type { TokenCounter } from '../../src/policy/types.js';
import { useTempDirs } from '../helpers/cli.js';
import { loadState, oneAgent } from './helpers.js';

const tempDir = useTempDirs();

/** A counter whose count is the text's length: any count of a value would differ with its length. */
const lengthCounter: TokenCounter = { encoding: 'length', count: async (text) => text.length, over: async (text, limit) => (text.length > limit ? text.length : undefined) };

describe("the plan's prompt token counts", () => {
  it('count a value from ${env:…} as the policy reads it, withheld: two values of different lengths give the same count', async () => {
    const dir = await tempDir({ 'voxform.yaml': oneAgent('prompt: "Transfer ${env:HOOK_TOKEN}"') });
    const changes = [{ address: 'agent.a', fieldChanges: [{ path: 'config.prompt', before: 'You are the receptionist of Acme Dental.' }] }];
    const countWith = async (value: string) => promptTokenChanges(changes, await loadState(dir, { HOOK_TOKEN: value }), lengthCounter);
    const short = await countWith('t0k');
    expect(short).toEqual(await countWith('a-much-longer-planted-token-0123456789'));
    expect(short).toEqual([{ address: 'agent.a', before: 40, after: 'Transfer withheld-by-voxform'.length }]);
  });
});
