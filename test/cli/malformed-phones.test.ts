/**
 * A phone list holding a phone voxform cannot read (null, an id that is no string, an agent_id that
 * is neither a string nor null) stops every command that reads the list with one clear error naming
 * the phone (exit 1), never with an internal error; what voxform does not read of a phone stops
 * nothing. The service is the emulator behind a proxy that rewrites its `GET /phones` answer, which
 * the emulator itself never sends of that shape (its data file is checked).
 */
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { startRewritingProxy, type RewritingProxy } from '../helpers/rewriting-proxy.js';
import { SECRETS, useEmulator } from '../helpers/project.js';

const shared = useEmulator({ quiet: true, webhooks: 'loopback' });
const tempDir = useTempDirs();
const HINT = '  hint: The service sent a phone of another shape than its interface documents (docs/service-api.md, "Phones"): report it to the service.\n';

let proxy: RewritingProxy;

beforeAll(async () => {
  proxy = await startRewritingProxy(shared.emulator.url);
});
afterAll(async () => {
  await proxy.close();
});

/** The proxy answers `GET /phones` with what `change` makes of the emulator's phone list. */
function rewritePhones(change: (phones: Array<Record<string, unknown>>) => unknown): void {
  proxy.rewrite = ({ method, path }, text) => (method === 'GET' && path === '/phones' ? JSON.stringify(change(JSON.parse(text) as Array<Record<string, unknown>>)) : text);
}

async function exampleFolder(): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = await tempDir();
  await cp(path.join(repoRoot, 'agents.example.yaml'), path.join(dir, 'voxform.yaml'));
  await cp(path.join(repoRoot, 'example'), path.join(dir, 'example'), { recursive: true });
  return { dir, env: { ...SECRETS, VOXFORM_API_KEY: shared.emulator.apiKey, VOXFORM_BASE_URL: proxy.url } };
}

/** Each command that reads the phone list, and whether it runs as the built CLI or in this process (`status` reports the read as its key check, on stdout). */
const READERS: Array<[string[], 'built' | 'in process']> = [
  [['plan'], 'built'],
  [['apply', '--auto-approve'], 'in process'],
  [['drift'], 'in process'],
  [['get', 'phones'], 'built'],
  [['export', '--from-phones', '--out', 'exported'], 'in process'],
  [['status'], 'in process'],
];

describe('a phone list with a phone voxform cannot read', () => {
  it.each([
    ['a null phone', (phones: unknown[]) => [null, ...phones], 'phone [0] is null, where a phone (an object) belongs'],
    ['an agent_id that is a number', (phones: Array<Record<string, unknown>>) => phones.map((phone, index) => (index === 0 ? { ...phone, agent_id: 7 } : phone)), 'phone [0] (id "+15551230001"): agent_id is the number 7, where a string or null belongs'],
  ])('%s: every reader stops with api_error naming the phone, nothing applied', async (_, change, problem) => {
    rewritePhones(change as (phones: Array<Record<string, unknown>>) => unknown);
    const { dir, env } = await exampleFolder();
    const before = shared.emulator.control.state();
    for (const [args, how] of READERS) {
      const result = await (how === 'built' ? runCli : runCliInProcess)(args, { cwd: dir, env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(1);
      const message = `GET /phones failed: the service answered 200 with a phone voxform cannot read: ${problem}.`;
      if (args[0] === 'status') expect(result.stdout).toContain(`API key:     not checked: ${message}\n`);
      else expect(result.stderr, args.join(' ')).toContain(`error[api_error]: ${message}\n${HINT}`);
      expect(result.stdout + result.stderr).not.toContain('unexpected problem');
    }
    expect(shared.emulator.control.state()).toEqual(before);
  });

  it('reads a phone without an agent (agent_id null or empty) and fields of other shapes it does not read', async () => {
    rewritePhones((phones) => phones.map((phone, index) => (index === phones.length - 1 ? { ...phone, agent_id: null, tags: 'x', agent_config_override: [null] } : { ...phone, agent_id: '' })));
    const { dir, env } = await exampleFolder();
    const listed = await runCliInProcess(['get', 'phones', '--format', 'json'], { cwd: dir, env });
    expect(listed.code, listed.stderr).toBe(0);
    const phones = (JSON.parse(listed.stdout) as { phones: Array<{ phone: string; agent_id: string | null }> }).phones;
    expect(phones.map((phone) => phone.agent_id)).toEqual([null, null]);
    const plan = await runCliInProcess(['plan'], { cwd: dir, env });
    expect(plan.code, plan.stderr).toBe(0);
  });
});
