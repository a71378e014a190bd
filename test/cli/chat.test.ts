import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let env: Record<string, string>;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  env = { VOXFORM_API_KEY: emulator.apiKey, VOXFORM_BASE_URL: emulator.url };
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(async () => {
  await emulator.control.reset();
});

describe('voxform chat (stdin is not a terminal: one message per line)', () => {
  it('streams each reply, continues one session, and ends it at the end of input', async () => {
    const result = await runCli(['chat', '--agent', FRONT_DESK], { env, input: 'Hello\n\nWhat time do you open?\n' });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('[Front desk] You said: Hello\n[Front desk] You said: What time do you open?\n');
    expect(result.stderr).toBe('');
    const chats = emulator.control.state().sessions.filter((s) => s.kind === 'chat');
    expect(chats).toHaveLength(1);
    expect(chats[0]?.ended).toBe(true);
    const posts = emulator.control.requestLog().filter((e) => e.path === '/chat/completions');
    expect(posts).toHaveLength(3); // two messages, then end_of_session
  });

  it('an unknown agent is one clear sentence, exit 1, before any message is sent', async () => {
    const result = await runCli(['chat', '--agent', '-OKnoSuchAgent000000'], { env, input: 'Hello\n' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: GET /agents/-OKnoSuchAgent000000 failed: the service answered 404 Not found.\n  hint: Check the agent id in your manifest.\n');
    expect(emulator.control.requestLog().filter((e) => e.path === '/chat/completions')).toHaveLength(0);
  });

  it('empty input still ends the session cleanly', async () => {
    const result = await runCli(['chat', '--agent', FRONT_DESK], { env, input: '' });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
  });

  it('a missing key is one clear sentence, exit 1', async () => {
    const result = await runCli(['chat', '--agent', FRONT_DESK], { env: { VOXFORM_BASE_URL: emulator.url }, input: 'Hello\n' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: No API key: set VOXFORM_API_KEY to your private key (from the service’s dashboard), or use --local for the embedded emulator.\n');
  });
});
