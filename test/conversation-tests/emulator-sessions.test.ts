import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { clientFor, FRONT_DESK } from '../emulator/helpers.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const sessionOf = (sse: string) => /"session_id":"([^"]+)"/.exec(sse)?.[1];

describe('emulator chat sessions under different configurations', () => {
  it('continues the session started with the same agent_config, not a same-looking one under another config', async () => {
    emulator = await startEmulator({ port: 0 });
    const client = clientFor(emulator);
    const chat = (agentConfig: Record<string, unknown> | undefined, messages: unknown[]) =>
      client.post('/chat/completions', { agent: { agent_id: FRONT_DESK, ...(agentConfig ? { agent_config: agentConfig } : {}) }, messages }).then((a) => a.text);
    const desired = { prompt: 'The proposed prompt.' };
    // The live conversation starts first, the desired one second (the most recently active).
    const liveSession = sessionOf(await chat(undefined, []));
    const desiredSession = sessionOf(await chat(desired, []));
    expect(liveSession).not.toBe(desiredSession);
    const greeting = { role: 'assistant', content: 'Hello, Acme Dental. How can I help you?' };
    const user = { role: 'user', content: 'Hi' };
    expect(sessionOf(await chat(undefined, [greeting, user]))).toBe(liveSession);
    expect(sessionOf(await chat(desired, [greeting, user]))).toBe(desiredSession);
  });
});
