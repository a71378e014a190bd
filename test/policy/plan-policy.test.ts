import { describe, expect, it } from 'vitest';
import { describeTokenChange, promptTokenChanges } from '../../src/policy/plan-policy.js';
import type { TokenCounter } from '../../src/policy/types.js';
import { SecretRegistry } from '../../src/secrets/redact.js';
import { useTempDirs } from '../helpers/cli.js';
import { loadState, oneAgent } from './helpers.js';

const tempDir = useTempDirs();

/** A counter whose count is the text's length: any count of a value would differ with its length. */
const lengthCounter: TokenCounter = { encoding: 'length', count: async (text) => text.length, over: async (text, limit) => (text.length > limit ? text.length : undefined) };

const SHORT_TOKEN = 't0k-planted';
const LONG_TOKEN = 'a-much-longer-planted-token-0123456789';

/** The run's secrets as the plan knows them: the manifests' `${env:…}` values are registered when read. */
function registryOf(...values: string[]): SecretRegistry {
  const secrets = new SecretRegistry();
  for (const value of values) secrets.add(value);
  return secrets;
}

describe("the plan's prompt token counts", () => {
  it('count a value from ${env:…} as the policy reads it, withheld: two values of different lengths give the same count', async () => {
    const dir = await tempDir({ 'voxform.yaml': oneAgent('prompt: "Transfer ${env:HOOK_TOKEN}"') });
    const changes = [{ address: 'agent.a', fieldChanges: [{ path: 'config.prompt', before: 'You are the receptionist of Acme Dental.' }] }];
    const countWith = async (value: string) => promptTokenChanges(changes, await loadState(dir, { HOOK_TOKEN: value }), { tokens: lengthCounter, secrets: registryOf(value) });
    const short = await countWith('t0k');
    expect(short).toEqual(await countWith(LONG_TOKEN));
    expect(short).toEqual([{ address: 'agent.a', before: 40, after: 'Transfer withheld-by-voxform'.length }]);
  });

  it('count the live prompt with the value an earlier apply put into it withheld: the same count for two lengths, equal to the unchanged desired side', async () => {
    const dir = await tempDir({ 'voxform.yaml': oneAgent('prompt: "Transfer with code ${env:HOOK_TOKEN}"') });
    const countWith = async (value: string) => {
      const changes = [{ address: 'agent.a', fieldChanges: [{ path: 'config.prompt', before: `Transfer with code ${value}` }] }];
      return promptTokenChanges(changes, await loadState(dir, { HOOK_TOKEN: value }), { tokens: lengthCounter, secrets: registryOf(value) });
    };
    const short = await countWith(SHORT_TOKEN);
    expect(short).toEqual(await countWith(LONG_TOKEN));
    const withheld = 'Transfer with code withheld-by-voxform'.length;
    expect(short).toEqual([{ address: 'agent.a', before: withheld, after: withheld }]);
  });

  it('count the live prompt with a secret the manifests no longer read withheld', async () => {
    const dir = await tempDir({ 'voxform.yaml': oneAgent('prompt: "Transfer politely."') });
    const countWith = async (value: string) => {
      const changes = [{ address: 'agent.a', fieldChanges: [{ path: 'config.prompt', before: `Transfer with code ${value}.` }] }];
      return promptTokenChanges(changes, await loadState(dir), { tokens: lengthCounter, secrets: registryOf(value) });
    };
    const short = await countWith(SHORT_TOKEN);
    expect(short).toEqual(await countWith(LONG_TOKEN));
    expect(short[0]!.before).toBe('Transfer with code withheld-by-voxform.'.length);
  });
});

describe('a prompt token change, in words', () => {
  it('gives a tenth of a percent below a doubling, and whole percents, grouped, above', () => {
    expect(describeTokenChange({ address: 'agent.a', before: 1204, after: 1391 })).toBe('1,204 → 1,391 tokens, +15.5%');
    expect(describeTokenChange({ address: 'agent.a', before: 1391, after: 1204 })).toBe('1,391 → 1,204 tokens, −13.4%');
    expect(describeTokenChange({ address: 'agent.a', before: 20, after: 2910 })).toBe('20 → 2,910 tokens, +14,450%');
    expect(describeTokenChange({ address: 'agent.a', before: 7, after: 7 })).toBe('7 → 7 tokens, ±0.0%');
    expect(describeTokenChange({ address: 'agent.a', before: 0, after: 12 })).toBe('0 → 12 tokens');
    expect(describeTokenChange({ address: 'agent.a', before: undefined, after: 12 })).toBe('12 tokens (new)');
  });
});
