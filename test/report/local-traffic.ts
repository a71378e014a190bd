/**
 * Stand-ins for what other parts of voxform do in a `--local` project folder, so the report can be
 * tested end to end: call records as the service logs them (with the agent's live config, as the
 * emulator's sessions record it), written into the folder's emulator data in-process; and, when
 * `apply` did not record the deploy in the apply history itself, a history record written the way
 * the apply history writes one (the live config's hash, the `${env:…}` paths masked).
 */
import path from 'node:path';
import { configurationHash, normalizeAgentConfig } from '../../src/history/config-hash.js';
import { FileHistoryStore } from '../../src/history/file-store.js';
import type { HistoryRecord } from '../../src/history/types.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { EmulatorSeed } from '../../src/emulator/types.js';
import type { Agent, GlobalCallHistoryRecord } from '../../src/schema/types.gen.js';

async function withLocalEmulator<T>(dir: string, use: (emulator: Awaited<ReturnType<typeof startEmulator>>) => Promise<T>): Promise<T> {
  const emulator = await startEmulator({ dataFile: path.join(dir, '.voxform/local.json'), sharedDataFile: true, quiet: true });
  try {
    return await use(emulator);
  } finally {
    await emulator.close();
  }
}

export async function liveAgent(dir: string, agentId: string): Promise<Agent> {
  return withLocalEmulator(dir, async (emulator) => {
    const agent = emulator.control.state().agents.find((candidate) => candidate.id === agentId);
    if (!agent) throw new Error(`no agent ${agentId} in the local emulator`);
    return agent;
  });
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

/**
 * The history record of the apply that just ran: the one apply wrote, when it writes them;
 * otherwise one written here with `source`.
 */
export async function recordDeploy(dir: string, since: string, agents: Record<string, { id: string; maskedPaths: string[] }>, source: HistoryRecord['source']): Promise<HistoryRecord> {
  const store = new FileHistoryStore(path.join(dir, '.voxform/history'));
  const [latest] = await store.list({ workspace: 'default@local', limit: 1 });
  if (latest && latest.at >= since) return latest;
  const versions: HistoryRecord['agents'] = {};
  for (const [name, { id, maskedPaths }] of Object.entries(agents)) {
    const live = await liveAgent(dir, id);
    const config = live.config as Record<string, unknown>;
    versions[name] = {
      id,
      name: live.name,
      // As the history keeps it: no secret (here masked rather than written back as `${env:…}`).
      config: normalizeAgentConfig(config, { maskPaths: maskedPaths }),
      configHash: configurationHash(config, { maskPaths: maskedPaths }),
      maskedPaths,
      promptLength: typeof config.prompt === 'string' ? config.prompt.length : undefined,
    };
  }
  return store.append({
    workspace: 'default@local',
    at: new Date().toISOString(),
    by: 'test@report',
    command: 'voxform apply --local --auto-approve',
    outcome: 'applied',
    source,
    summary: { create: 0, update: 1, unchanged: 0, drifted: 0, applied: 1, failed: 0, skipped: 0 },
    agents: versions,
  });
}
