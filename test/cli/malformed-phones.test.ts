/**
 * A phone list holding a phone voxform cannot read (null, an id that is no string, an agent_id that
 * is neither a string nor null) stops every command that reads the list with one clear error naming
 * the phone (exit 1), never with an internal error; what voxform does not read of a phone stops
 * nothing. The service is the emulator behind a proxy that rewrites its `GET /phones` answer, which
 * the emulator itself never sends of that shape (its data file is checked).
 */
import { describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { useRewritingService } from '../helpers/rewriting-proxy.js';

const service = useRewritingService();
const HINT = '  hint: The service sent a phone of another shape than its interface documents (docs/service-api.md, "Phones"): report it to the service.\n';

/** The proxy answers `GET /phones` with what `change` makes of the emulator's phone list. */
function rewritePhones(change: (phones: Array<Record<string, unknown>>) => unknown): void {
  service.proxy.rewrite = ({ method, path }, text) => (method === 'GET' && path === '/phones' ? JSON.stringify(change(JSON.parse(text) as Array<Record<string, unknown>>)) : text);
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
    const { dir, env } = await service.example();
    const before = service.emulator.control.state();
    for (const [args, how] of READERS) {
      const result = await (how === 'built' ? runCli : runCliInProcess)(args, { cwd: dir, env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(1);
      const message = `GET /phones failed: the service answered 200 with a phone voxform cannot read: ${problem}.`;
      if (args[0] === 'status') expect(result.stdout).toContain(`API key:     not checked: ${message}\n`);
      else expect(result.stderr, args.join(' ')).toContain(`error[api_error]: ${message}\n${HINT}`);
      expect(result.stdout + result.stderr).not.toContain('unexpected problem');
    }
    expect(service.emulator.control.state()).toEqual(before);
  });

  it('reads a phone without an agent (agent_id null or empty) and fields of other shapes it does not read', async () => {
    rewritePhones((phones) => phones.map((phone, index) => (index === phones.length - 1 ? { ...phone, agent_id: null, tags: 'x', agent_config_override: [null] } : { ...phone, agent_id: '' })));
    const { dir, env } = await service.example();
    const listed = await runCliInProcess(['get', 'phones', '--format', 'json'], { cwd: dir, env });
    expect(listed.code, listed.stderr).toBe(0);
    const phones = (JSON.parse(listed.stdout) as { phones: Array<{ phone: string; agent_id: string | null }> }).phones;
    expect(phones.map((phone) => phone.agent_id)).toEqual([null, null]);
    const plan = await runCliInProcess(['plan'], { cwd: dir, env });
    expect(plan.code, plan.stderr).toBe(0);
  });
});
