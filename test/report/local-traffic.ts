/**
 * Hand-made call records for a `--local` project folder, written into its emulator data
 * in-process, each starting from the agent's live config as the emulator's sessions record it. Only
 * for shapes `voxform emulator traffic` does not make (what the service adds to a session's config,
 * such as a prefetch webhook's extra prompt; header values other than the manifest's): the apply
 * history and ordinary calls come from the real `apply` and `emulator traffic`.
 */
import path from 'node:path';
import { startEmulator } from '../../src/emulator/index.js';
import type { EmulatorSeed } from '../../src/emulator/types.js';
import type { GlobalCallHistoryRecord } from '../../src/schema/types.gen.js';

async function withLocalEmulator<T>(dir: string, use: (emulator: Awaited<ReturnType<typeof startEmulator>>) => Promise<T>): Promise<T> {
  const emulator = await startEmulator({ dataFile: path.join(dir, '.voxform/local.json'), sharedDataFile: true, quiet: true });
  try {
    return await use(emulator);
  } finally {
    await emulator.close();
  }
}

/**
 * Adds call records of `agentId`, each made by `make(i, liveConfig)`, to the folder's emulator,
 * spread evenly between `after` (ISO 8601: the deploy they ran after) and now.
 */
export async function addCalls(dir: string, agentId: string, after: string, count: number, make: (index: number, config: Record<string, unknown>) => Partial<GlobalCallHistoryRecord>): Promise<void> {
  await withLocalEmulator(dir, async (emulator) => {
    const state = emulator.control.state();
    const agent = state.agents.find((candidate) => candidate.id === agentId);
    if (!agent) throw new Error(`no agent ${agentId} in the local emulator`);
    const config = agent.config as Record<string, unknown>;
    const now = Date.now() / 1000;
    const start = Date.parse(after) / 1000;
    const added = Array.from({ length: count }, (_, index) => ({
      call_id: `report-test-${agentId}-${now}-${index}`,
      agent_id: agentId,
      ts: start + ((now - start) * (index + 1)) / (count + 1),
      call_status: 'user-ended',
      duration: 60,
      agent_config: structuredClone(config),
      cost_breakdown: [{ type: 'llm', credit: 0.1 }],
      function_calls: [],
      ...make(index, structuredClone(config)),
    }));
    const seed: EmulatorSeed = {
      keys: [{ type: 'private', key: emulator.apiKey, is_default: true }],
      agents: state.agents,
      phones: state.phones,
      campaigns: state.campaigns,
      call_logs: [...state.call_logs, ...added] as GlobalCallHistoryRecord[],
    };
    await emulator.control.seed(seed);
  });
}
