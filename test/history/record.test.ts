/**
 * What the ledger records of an agent (references, not values; literal secrets marked; other
 * reference-like text escaped; ignored paths left out), its hash, and how a rollback reads the
 * record back under the manifests' environment policy.
 */
import { describe, expect, it } from 'vitest';
import { configurationHash } from '../../src/history/config-hash.js';
import { agentVersion, envConfigPaths, historyRecord, recordedAgentConfig } from '../../src/history/record.js';
import { AgentNames } from '../../src/history/agent-names.js';
import { desiredFromRecord } from '../../src/history/restore.js';
import { sameRecordedConfig, type HistoryRecord } from '../../src/history/types.js';
import type { DesiredAgent, DesiredState } from '../../src/manifest/types.js';
import { isVoxformError } from '../../src/errors.js';
import { loadTree } from '../manifest/helpers.js';

const TOKEN = 'planted-token-4242-secret';
const PREFIX = 'planted-prefix-9191';

const MANIFEST = `agents:
  desk:
    id: ag_1
    name: Desk
    config:
      prompt: "Say $\${env:NOT_A_REFERENCE} literally"
      first_message: Hello
      voice:
        voice_id: ava
        settings: { stability: 0.5 }
      session_data_webhook:
        url: https://hooks.example.com/end
        headers:
          x-token: "\${env:HOOK_TOKEN}"
          x-fixed: literal-header-secret-777
      tools:
        - name: lookup
          description: Look up.
          webhook: https://api.example.com/lookup
          header:
            authorization: "Bearer \${env:HOOK_TOKEN}"
      custom_llm_websocket: "wss://llm.example.com/\${env:PATH_PREFIX}/ws"
    ignore: [config.voice.settings]
`;

async function loadDesk(env: Record<string, string> = { HOOK_TOKEN: TOKEN, PATH_PREFIX: PREFIX }): Promise<{ agent: DesiredAgent; state: DesiredState }> {
  const result = await loadTree({ 'voxform.yaml': MANIFEST }, { env });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const state = result.state as DesiredState;
  return { agent: state.agents.get('desk') as DesiredAgent, state };
}

function recordOf(agent: DesiredAgent, liveConfig: Record<string, unknown>): HistoryRecord {
  return { id: '20261123T120000000Z-aaaaaa', workspace: 'default@local', at: '', by: '', command: '', outcome: 'applied', source: {}, summary: {} as HistoryRecord['summary'], agents: { desk: agentVersion(agent, liveConfig) } };
}

describe('recordedAgentConfig', () => {
  it('writes env-filled values back as their references, marks literal secrets, escapes reference-like text and leaves ignored paths out', async () => {
    const { agent } = await loadDesk();
    const recorded = recordedAgentConfig(agent);
    const config = recorded.config as Record<string, any>;
    expect(config.session_data_webhook.headers['x-token']).toBe('${env:HOOK_TOKEN}');
    expect(config.tools[0].header.authorization).toBe('Bearer ${env:HOOK_TOKEN}');
    expect(config.custom_llm_websocket).toBe('wss://llm.example.com/${env:PATH_PREFIX}/ws');
    expect(config.session_data_webhook.headers['x-fixed']).toBe('(sensitive)');
    expect(recorded.unrecordedSecrets).toEqual(['config.session_data_webhook.headers.x-fixed']);
    expect(config.prompt).toBe('Say $${env:NOT_A_REFERENCE} literally');
    expect(config.voice).toEqual({ voice_id: 'ava' });
    expect(recorded.name).toBe('Desk');
    const text = JSON.stringify(recorded);
    for (const secret of [TOKEN, PREFIX, 'literal-header-secret-777']) expect(text).not.toContain(secret);
  });

  it('finds the references written in defaults and in the chosen environment overlay', async () => {
    const manifest = `defaults:
  config:
    session_data_webhook:
      url: https://hooks.example.com/end
      headers: { x-token: "\${env:HOOK_TOKEN}" }
agents:
  desk:
    id: ag_1
    config:
      first_message: Hello
environments:
  prod:
    agents:
      desk:
        config:
          custom_llm_websocket: "wss://llm.example.com/\${env:PATH_PREFIX}"
`;
    const result = await loadTree({ 'voxform.yaml': manifest }, { env: { HOOK_TOKEN: TOKEN, PATH_PREFIX: PREFIX }, environment: 'prod' });
    const agent = (result.state as DesiredState).agents.get('desk') as DesiredAgent;
    const recorded = recordedAgentConfig(agent).config as Record<string, any>;
    expect(recorded.session_data_webhook.headers['x-token']).toBe('${env:HOOK_TOKEN}');
    expect(recorded.custom_llm_websocket).toBe('wss://llm.example.com/${env:PATH_PREFIX}');
  });

  it('lists the env-filled config paths as the hash masks', async () => {
    const { agent } = await loadDesk();
    expect(envConfigPaths(agent)).toEqual(['custom_llm_websocket', 'session_data_webhook.headers.x-token', 'tools.0.header.authorization']);
  });
});

describe('agentVersion', () => {
  it('hashes the live config with the env paths masked: the value of a secret does not change the hash', async () => {
    const { agent } = await loadDesk();
    const live = { ...agent.config, custom_llm_websocket: `wss://llm.example.com/${PREFIX}/ws`, vad_threshold: 0.5 };
    const version = agentVersion(agent, live);
    expect(version.configHash).toBe(configurationHash(live, { maskPaths: envConfigPaths(agent) }));
    expect(agentVersion(agent, { ...live, custom_llm_websocket: 'wss://other/ws' }).configHash).toBe(version.configHash);
    expect(agentVersion(agent, { ...live, first_message: 'Hi' }).configHash).not.toBe(version.configHash);
    expect(version.promptLength).toBe('Say ${env:NOT_A_REFERENCE} literally'.length);
    expect(version.maskedPaths).toEqual(envConfigPaths(agent));
  });

  it('builds the record with the plan summary and the counts, and only the fields a record keeps', () => {
    const planned = { create: 1, update: 2, unchanged: 3, drifted: 0, notARecordField: 9 };
    const record = historyRecord({ workspace: 'w', at: new Date('2026-01-01T00:00:00Z'), by: 'a@b', command: 'voxform apply', outcome: 'failed', source: { commit: 'c'.repeat(40) }, planned, counts: { applied: 2, failed: 1, skipped: 0 }, agents: {} });
    expect(record).toEqual({
      workspace: 'w',
      at: '2026-01-01T00:00:00.000Z',
      by: 'a@b',
      command: 'voxform apply',
      outcome: 'failed',
      source: { commit: 'c'.repeat(40) },
      summary: { create: 1, update: 2, unchanged: 3, drifted: 0, applied: 2, failed: 1, skipped: 0 },
      agents: {},
    });
  });
});

function restoreError(action: () => unknown): { code: string; message: string; hint: string | undefined } {
  try {
    action();
  } catch (error) {
    if (isVoxformError(error)) return { code: error.code, message: error.message, hint: error.hint };
    throw error;
  }
  throw new Error('expected an error');
}

describe('sameRecordedConfig', () => {
  it('finds an agent the same as its record read back (key order and an absent name do not count), and a changed value or name not', async () => {
    const { agent } = await loadDesk();
    const recorded = recordedAgentConfig(agent);
    const readBack = JSON.parse(JSON.stringify({ name: recorded.name, config: Object.fromEntries(Object.entries(recorded.config).reverse()) }));
    expect(sameRecordedConfig(recorded, readBack)).toBe(true);
    expect(sameRecordedConfig({ name: undefined, config: { a: 1 } }, { config: { a: 1 } })).toBe(true);
    expect(sameRecordedConfig(recorded, { ...readBack, name: 'Front desk' })).toBe(false);
    expect(sameRecordedConfig(recorded, { ...readBack, config: { ...readBack.config, first_message: 'Hi' } })).toBe(false);
  });
});

describe('desiredFromRecord', () => {
  const MANIFEST_WITHOUT_LITERAL = MANIFEST.replace('          x-fixed: literal-header-secret-777\n', '');

  async function loadClean(env: Record<string, string>) {
    const result = await loadTree({ 'voxform.yaml': MANIFEST_WITHOUT_LITERAL }, { env });
    return result.state as DesiredState;
  }

  it('records a fallback with its reference, as the manifest wrote it, so a rollback with the variable unset gets what the apply got', async () => {
    // docs/history.md and docs/manifest.md: the fallback is the manifest's text (in git), kept in the ledger; the variable's value never.
    const withFallback = MANIFEST_WITHOUT_LITERAL.replaceAll('${env:HOOK_TOKEN}', '${env:HOOK_TOKEN:-local-dev-token}');
    const applied = await loadTree({ 'voxform.yaml': withFallback }, { env: { PATH_PREFIX: PREFIX } });
    const state = applied.state as DesiredState;
    const agent = state.agents.get('desk') as DesiredAgent;
    const record = recordOf(agent, agent.config);
    const recorded = record.agents.desk?.config as Record<string, any>;
    expect(recorded.session_data_webhook.headers['x-token']).toBe('${env:HOOK_TOKEN:-local-dev-token}');
    expect(recorded.tools[0].header.authorization).toBe('Bearer ${env:HOOK_TOKEN:-local-dev-token}');
    const restored = desiredFromRecord(record, { agents: [], env: { PATH_PREFIX: PREFIX }, current: state }).agents.get('desk') as DesiredAgent;
    expect((restored.config.session_data_webhook as { headers: Record<string, string> }).headers['x-token']).toBe('local-dev-token');
    expect(restored.sensitivePaths).toEqual(expect.arrayContaining(['session_data_webhook.headers']));

    const withToken = await loadTree({ 'voxform.yaml': withFallback }, { env: { HOOK_TOKEN: TOKEN, PATH_PREFIX: PREFIX } });
    const tokenAgent = (withToken.state as DesiredState).agents.get('desk') as DesiredAgent;
    expect(JSON.stringify(recordOf(tokenAgent, tokenAgent.config))).not.toContain(TOKEN);
  });

  it('reads the references from the environment again, and gives back the configuration as loaded', async () => {
    const env = { HOOK_TOKEN: TOKEN, PATH_PREFIX: PREFIX };
    const state = await loadClean(env);
    const agent = state.agents.get('desk') as DesiredAgent;
    const record = recordOf(agent, agent.config);
    const seen: string[] = [];
    const desired = desiredFromRecord(record, { agents: [], env, current: state, onSecret: (value) => seen.push(value) });
    const restored = desired.agents.get('desk') as DesiredAgent;
    const { settings: _ignored, ...voice } = agent.config.voice as Record<string, unknown>;
    expect(restored.config).toEqual({ ...agent.config, voice });
    expect(restored.name).toBe('Desk');
    expect(restored.id).toBe('ag_1');
    expect(restored.envReferences).toEqual(agent.envReferences);
    expect(restored.sensitivePaths).toEqual(expect.arrayContaining(['session_data_webhook.headers', 'tools.0.header', 'custom_llm_websocket']));
    expect(seen).toEqual(expect.arrayContaining([TOKEN, PREFIX]));
    expect(desired.phones.size + desired.campaigns.size + desired.knowledge.size + desired.credentials.size).toBe(0);
    expect(desired.environmentVariables).toEqual(['HOOK_TOKEN', 'PATH_PREFIX']);
  });

  it('refuses a variable that is not set, one VOXFORM_ENV_ALLOW does not allow, and a VOXFORM_* one, naming them', async () => {
    const env = { HOOK_TOKEN: TOKEN, PATH_PREFIX: PREFIX };
    const state = await loadClean(env);
    const record = recordOf(state.agents.get('desk') as DesiredAgent, {});
    const missing = restoreError(() => desiredFromRecord(record, { agents: [], env: { HOOK_TOKEN: TOKEN }, current: state }));
    expect(missing.code).toBe('rollback_env_invalid');
    expect(missing.message).toContain('PATH_PREFIX is not set; set it where this command runs');
    // A record is never changed: a default written anywhere would not reach it.
    expect(missing.message).not.toContain('default with');
    const refused = restoreError(() => desiredFromRecord(record, { agents: [], env: { ...env, VOXFORM_ENV_ALLOW: 'HOOK_TOKEN' }, current: state }));
    // A record cannot be edited: what the rollback's user can do is allow the variable.
    expect(refused.message).toContain('${env:PATH_PREFIX} is refused: PATH_PREFIX is not in VOXFORM_ENV_ALLOW, so the recorded configuration may not read it; (as the operator) add PATH_PREFIX to VOXFORM_ENV_ALLOW where this command runs');
    expect(refused.message).not.toContain('remove the reference');
    const version = record.agents.desk as HistoryRecord['agents'][string];
    const tampered = { ...record, agents: { desk: { ...version, config: { ...version.config, first_message: '${env:VOXFORM_API_KEY}' } } } };
    const reserved = restoreError(() => desiredFromRecord(tampered, { agents: [], env: { ...env, VOXFORM_API_KEY: 'key-never-read' }, current: state }));
    expect(reserved.code).toBe('rollback_env_invalid');
    expect(reserved.message).toContain("VOXFORM_* variables are voxform's own settings (the service key among them) and a recorded configuration never reads them: no apply records one, so this record was changed by hand; restore the agent from another record");
    expect(reserved.message).not.toContain('remove the reference');
    expect(reserved.message).not.toContain('key-never-read');
  });

  it('refuses an agent the record does not hold, and an agent whose secret was written literally', async () => {
    const { agent, state } = await loadDesk();
    const record = recordOf(agent, agent.config);
    const unknown = restoreError(() => desiredFromRecord(record, { agents: ['booking'], env: {}, current: state }));
    expect(unknown.code).toBe('rollback_agent_not_recorded');
    const literal = restoreError(() => desiredFromRecord(record, { agents: ['desk'], env: { HOOK_TOKEN: TOKEN, PATH_PREFIX: PREFIX }, current: state }));
    expect(literal.code).toBe('rollback_secret_unrecorded');
    expect(literal.message).toContain('config.session_data_webhook.headers.x-fixed');
    expect(literal.message).not.toContain('literal-header-secret-777');
  });

  it('refuses a recorded configuration the service would not take, before anything is planned: a list or an object for a prompt', async () => {
    const env = { HOOK_TOKEN: TOKEN, PATH_PREFIX: PREFIX };
    const state = await loadClean(env);
    const record = recordOf(state.agents.get('desk') as DesiredAgent, {});
    const version = record.agents.desk as HistoryRecord['agents'][string];
    for (const [config, said] of [
      [{ ...version.config, prompt: ['not', 'a', 'string'] }, 'its config.prompt must be string'],
      [{ ...version.config, prompt: { file: '/etc/passwd' } }, 'its config.prompt must be string'],
    ] as const) {
      const edited = { ...record, agents: { desk: { ...version, config } } };
      const refused = restoreError(() => desiredFromRecord(edited, { agents: [], env, current: state }));
      expect(refused.code).toBe('rollback_record_invalid');
      expect(refused.message).toContain(`Record ${record.id} cannot restore agent "desk": ${said}, which no apply records`);
      expect(refused.hint).toContain('--agent');
    }
    // The record as an apply wrote it restores.
    expect(desiredFromRecord(record, { agents: [], env, current: state }).agents.get('desk')).toBeDefined();
  });

  it('restores no agent whose name stands for another agent now (its `id:` changed), whole record or by name', async () => {
    const env = { HOOK_TOKEN: TOKEN, PATH_PREFIX: PREFIX };
    const state = await loadClean(env);
    const record = recordOf(state.agents.get('desk') as DesiredAgent, {});
    const names = new AgentNames([record], [['desk', 'ag_2']]);
    const byName = restoreError(() => desiredFromRecord(record, { agents: ['desk'], env, current: state, names }));
    expect(byName.code).toBe('rollback_agent_not_recorded');
    expect(byName.message).toContain('"desk" is agent ag_2 now; the "desk" recorded is another agent, ag_1');
    // The hint names what --agent may take: no name stands for the recorded agent now, so none is offered.
    expect(byName.hint).toBe('It holds no agent that has a name now: pick another record with `voxform history`.');
    const whole = restoreError(() => desiredFromRecord(record, { agents: [], env, current: state, names }));
    expect(whole.code).toBe('rollback_agent_not_recorded');
    expect(whole.message).toContain('holds no agent that has a name now: desk (ag_1; desk is ag_2 now)');
  });

  it('restores an agent named by its old key under the name it has now, and refuses an old key no name stands for now', async () => {
    const env = { HOOK_TOKEN: TOKEN, PATH_PREFIX: PREFIX };
    const state = await loadClean(env);
    const record = recordOf(state.agents.get('desk') as DesiredAgent, {});
    // `desk:` renamed `reception:`, the same id: both names stand for one agent, restored once, under its key now.
    const renamed = new AgentNames([record], [['reception', 'ag_1']]);
    const restored = desiredFromRecord(record, { agents: ['desk', 'reception'], env, current: state, names: renamed });
    expect([...restored.agents.keys()]).toEqual(['reception']);
    expect(restored.agents.get('reception')).toMatchObject({ address: 'agent.reception', localName: 'reception', id: 'ag_1' });
    // Renamed `lobby:` later, and `lobby:` given to another agent since: no name stands for ag_1 now.
    const lobby = { ...record, agents: { lobby: record.agents.desk! } };
    const unnamed = new AgentNames([lobby, record], [['lobby', 'ag_2']]);
    const refused = restoreError(() => desiredFromRecord(record, { agents: ['desk'], env, current: state, names: unnamed }));
    expect(refused.code).toBe('rollback_agent_not_recorded');
    expect(refused.message).toContain('holds "desk" as agent ag_1, which no name stands for now');
  });
});
