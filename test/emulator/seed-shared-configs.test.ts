/** A seed's records of one configuration share one config object after loading (memory, and one copy in a data file). */
import { describe, expect, it } from 'vitest';
import { defaultSeed, startEmulator } from '../../src/emulator/index.js';
import type { CallRecord } from '../../src/emulator/types.js';

const config = { prompt: 'You are the front desk.', tools: [{ name: 'lookup', header: { authorization: 'x' } }], voice: { provider: 'elevenlabs' } };

function record(id: string, extra: Partial<CallRecord> = {}): CallRecord {
  return { call_id: id, agent_id: '-OKagent', ts: 1_780_000_000, call_status: 'user-ended', agent_config: config, metadata: { note: 'a' }, campaign_id: null, ...extra } as CallRecord;
}

describe('a seed\'s call records', () => {
  it('share one config object per configuration once loaded', async () => {
    const seed = defaultSeed();
    const copy = (): Record<string, unknown> => structuredClone(config);
    seed.call_logs = [record('s1', { agent_config: copy() }), record('s2', { agent_config: copy() }), record('s3', { agent_config: { ...copy(), prompt: 'Other.' } })];
    const emulator = await startEmulator({ port: 0, quiet: true, seed });
    try {
      const byId = new Map(emulator.control.state().call_logs.map((r) => [r.call_id, r]));
      expect(byId.get('s1')?.agent_config).toBe(byId.get('s2')?.agent_config);
      expect(byId.get('s3')?.agent_config).not.toBe(byId.get('s1')?.agent_config);
      expect(byId.get('s1')?.agent_config).toEqual(config);
    } finally {
      await emulator.close();
    }
  });
});
