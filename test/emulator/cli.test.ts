import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEmulatorFlags, runEmulator } from '../../src/cli/commands/emulator.js';
import type { CommandContext } from '../../src/cli/context.js';
import { checkSeed, DEFAULT_PUBLIC_KEY, startEmulator } from '../../src/emulator/index.js';
import { VoxformError } from '../../src/errors.js';
import { SecretRegistry } from '../../src/secrets/redact.js';
import { repoRoot } from '../helpers/cli.js';
import { clientFor, FRONT_DESK } from './helpers.js';

function fakeContext(cwd: string) {
  const out = { stdout: '', stderr: '' };
  const cleanups: Array<() => Promise<void> | void> = [];
  const ctx: CommandContext = {
    cwd,
    env: {},
    stdout: { write: (t) => void (out.stdout += t), isTTY: false, columns: undefined },
    stderr: { write: (t) => void (out.stderr += t), isTTY: false, columns: undefined },
    stdin: process.stdin,
    color: false,
    secrets: new SecretRegistry(),
    confirm: undefined,
    onExit: (c) => void cleanups.push(c),
    interrupted: () => new Promise<never>(() => undefined),
    writeSent: () => () => undefined,
  };
  return { ctx, out, cleanups };
}

describe('voxform emulator flags', () => {
  it.each([
    [{ port: 'abc' }, /The value given to --port is not a whole number from 0 to 65,535/],
    [{ port: '0x10' }, /The value given to --port is not a whole number/],
    [{ port: '70000' }, /--port/],
    [{ latency: 'fast' }, /--latency must be milliseconds/],
    [{ latency: '50-10' }, /--latency range must be MIN-MAX/],
    // Past Node's longest timer a delay fires after 1 ms instead: the flag would be ignored.
    [{ latency: '99999999999' }, /--latency must be at most 2147483647 ms/],
    [{ latency: '10-2147483648' }, /--latency must be at most 2147483647 ms/],
    [{ failRate: '1.5' }, /--fail-rate must be a fraction/],
    [{ failRate: 'half' }, /--fail-rate/],
  ])('%j is refused', (flags, message) => {
    let error: unknown;
    try {
      parseEmulatorFlags(flags, '/tmp');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(VoxformError);
    expect((error as VoxformError).message).toMatch(message);
  });

  it('reads ports, ranges, rates and paths relative to the working folder', () => {
    expect(parseEmulatorFlags({ port: '0', host: '127.0.0.1', data: 'local.json', seed: 'seed.yaml', latency: '10-50', failRate: '0.2' }, '/work/x')).toEqual({
      port: 0,
      host: '127.0.0.1',
      dataFile: '/work/x/local.json',
      seed: '/work/x/seed.yaml',
      latencyMs: [10, 50],
      failRate: 0.2,
    });
    expect(parseEmulatorFlags({}, '/').port).toBe(4010);
    expect(parseEmulatorFlags({ latency: '25' }, '/').latencyMs).toBe(25);
  });
});

describe('voxform emulator', () => {
  it('prints the URL, the key and how to use them, serves until stopped, then shuts down cleanly', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-cli-'));
    const { ctx, out, cleanups } = fakeContext(dir);
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const running = runEmulator({ port: '0', host: '127.0.0.1', data: 'local.json', latency: '1' }, ctx, stopped);
    try {
      const url = await (async () => {
        for (let i = 0; i < 200 && !/listening on (\S+)/.test(out.stdout); i++) await new Promise((r) => setTimeout(r, 10));
        return /listening on (\S+)/.exec(out.stdout)?.[1] as string;
      })();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(out.stdout).toContain('vxlocalDefaultPrivateKey00000001');
      expect(out.stdout).toContain(`export VOXFORM_BASE_URL=${url}`);
      expect(out.stdout).toContain('export VOXFORM_API_KEY=vxlocalDefaultPrivateKey00000001');
      expect(cleanups).toHaveLength(1);
      const client = clientFor({ url, apiKey: 'vxlocalDefaultPrivateKey00000001', close: async () => undefined, control: undefined as never });
      expect((await client.put(`/agents/${FRONT_DESK}`, { name: 'From the CLI', config: {} })).status).toBe(200);
      expect(out.stderr).toMatch(/PUT \/agents\/-OKdqbqetEcM4ak369ym → 200/);
    } finally {
      stop();
    }
    // With --data it says the file is flushed, as its help promises; the line to start it again is
    // this one, as typed (docs/plan.md, Interrupts): the port clients were told, the account, its latency.
    await expect(running).rejects.toMatchObject({
      code: 'interrupted',
      message: `voxform emulator stopped at your request; its data file ${path.join(dir, 'local.json')} is flushed and holds every change.`,
      hint: 'Run `voxform emulator --port 0 --data local.json --latency 1` again to start it with that account.',
    });
    expect(out.stderr).toMatch(/voxform emulator: shutting down\n$/);
    const data = JSON.parse(await readFile(path.join(dir, 'local.json'), 'utf8'));
    expect(data.agents.find((a: { id: string }) => a.id === FRONT_DESK).name).toBe('From the CLI');
    await rm(dir, { recursive: true, force: true });
  });

  it('reports a port in use as one clear error', async () => {
    const { ctx } = fakeContext('/tmp');
    const first = await (await import('../../src/emulator/index.js')).startEmulator();
    try {
      const port = new URL(first.url).port;
      await expect(runEmulator({ port }, ctx, new Promise(() => undefined))).rejects.toMatchObject({ code: 'emulator_port_in_use' });
    } finally {
      await first.close();
    }
  });

  it('refuses a data file it cannot write at the start, instead of serving a 500 for every change', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-cli-'));
    try {
      const { ctx, out } = fakeContext(dir);
      const refused = runEmulator({ port: '0', data: 'no-such-folder/acct.json' }, ctx, new Promise(() => undefined));
      await expect(refused).rejects.toMatchObject({
        code: 'emulator_data_unwritable',
        message: `The emulator cannot write its data file ${path.join(dir, 'no-such-folder/acct.json')}: its folder does not exist. It did not start.`,
      });
      expect(out.stdout).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports an address it cannot listen on with a hint, as every bad input', async () => {
    const { ctx } = fakeContext('/tmp');
    const refused = runEmulator({ port: 0, host: 'no such host' }, ctx, new Promise(() => undefined));
    await expect(refused).rejects.toMatchObject({ code: 'emulator_listen_failed', message: expect.stringMatching(/^The emulator cannot listen on no such host:0: /) });
    await expect(refused).rejects.toMatchObject({ hint: 'Pick another --host (an address of this machine, such as 127.0.0.1, or 0.0.0.0 for every one) or --port (0 picks a free one).' });
  });

  const built = existsSync(path.join(repoRoot, 'dist/cli-bundle/main.cjs'));
  it.skipIf(!built)('the built CLI stops on SIGTERM after flushing its data file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-cli-'));
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/voxform.cjs'), 'emulator', '--port', '0', '--data', 'data.json'], { cwd: dir, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      for (let i = 0; i < 500 && !/listening on (\S+)/.test(stdout); i++) await new Promise((r) => setTimeout(r, 10));
      const url = /listening on (\S+)/.exec(stdout)?.[1];
      expect(url, stdout).toBeTruthy();
      const client = clientFor({ url: url as string, apiKey: 'vxlocalDefaultPrivateKey00000001', close: async () => undefined, control: undefined as never });
      expect((await client.put(`/agents/${FRONT_DESK}`, { name: 'Before SIGTERM', config: {} })).status).toBe(200);
      child.kill('SIGTERM');
      const code = await exited;
      // The emulator stops gracefully on a signal: closed, data flushed, and says so with exit 130.
      expect(code).toBe(130);
      const data = JSON.parse(await readFile(path.join(dir, 'data.json'), 'utf8'));
      expect(data.agents.find((a: { id: string }) => a.id === FRONT_DESK).name).toBe('Before SIGTERM');
    } finally {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('voxform emulator --traffic on an account with no agents', () => {
  it('starts, and says no call was added because the account has no agents, not "0 synthetic calls added"', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-cli-'));
    try {
      await writeFile(path.join(dir, 'keys-only.json'), JSON.stringify({ keys: [{ type: 'private', key: 'abcdefabcdefabcdefabcdefabcdef12', name: 'ci' }] }));
      const { ctx, out } = fakeContext(dir);
      let stop!: () => void;
      const running = runEmulator({ port: '0', seed: 'keys-only.json', traffic: 'light' }, ctx, new Promise<void>((resolve) => (stop = resolve)));
      for (let i = 0; i < 200 && !/Ctrl-C/.test(out.stdout); i++) await new Promise((r) => setTimeout(r, 10));
      stop();
      await expect(running).rejects.toMatchObject({ code: 'interrupted' });
      const url = /listening on (\S+)/.exec(out.stdout)?.[1] as string;
      expect(out.stdout).toContain('\n  traffic      none added: the account has no agents\n');
      expect(out.stdout).not.toContain('synthetic calls added');
      expect(out.stderr).toContain(
        `warning: --traffic added no call: the emulator's account has no agents. Give it agents (\`voxform apply --base-url ${url}\` with its key in VOXFORM_API_KEY, or --seed FILE with agents: docs/emulator.md, "Seeds"), then add calls with \`voxform emulator traffic --url ${url}\`.\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the banner never suggests a key that will be refused', () => {
  it('shows no key and no VOXFORM_API_KEY line when the data file names a public key as its private key', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-cli-'));
    try {
      // A data file as an emulator wrote it, then edited: the key it would print is a public key.
      const first = await startEmulator({ dataFile: path.join(dir, 'data.json') });
      await first.close();
      const data = JSON.parse(await readFile(path.join(dir, 'data.json'), 'utf8'));
      data.seed_private_key = DEFAULT_PUBLIC_KEY;
      await writeFile(path.join(dir, 'data.json'), JSON.stringify(data));

      const { ctx, out } = fakeContext(dir);
      let stop!: () => void;
      const running = runEmulator({ port: '0', data: 'data.json' }, ctx, new Promise<void>((resolve) => (stop = resolve)));
      for (let i = 0; i < 200 && !/Ctrl-C/.test(out.stdout); i++) await new Promise((r) => setTimeout(r, 10));
      stop();
      await expect(running).rejects.toMatchObject({ code: 'interrupted' });
      expect(out.stdout).toContain('listening on');
      expect(out.stdout).not.toContain(DEFAULT_PUBLIC_KEY);
      expect(out.stdout).not.toContain('VOXFORM_API_KEY');
      expect(out.stdout).toContain('private key  (none to show');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('says the key is the one VOXFORM_API_KEY holds already, instead of an export line the redaction would break', async () => {
    const key = (await startEmulator().then(async (probe) => (await probe.close(), probe.apiKey))) as string;
    const { ctx, out } = fakeContext('/tmp');
    ctx.env = { VOXFORM_API_KEY: key };
    ctx.secrets.add(key);
    let stop!: () => void;
    const running = runEmulator({ port: '0' }, ctx, new Promise<void>((resolve) => (stop = resolve)));
    for (let i = 0; i < 200 && !/Ctrl-C/.test(out.stdout); i++) await new Promise((r) => setTimeout(r, 10));
    stop();
    await expect(running).rejects.toMatchObject({ code: 'interrupted' });
    expect(out.stdout).toContain('  private key  the one VOXFORM_API_KEY holds here');
    expect(out.stdout).toContain('  export VOXFORM_BASE_URL=');
    expect(out.stdout).not.toContain('export VOXFORM_API_KEY');
    expect(out.stdout).not.toContain('(sensitive)');
  });

  it('the key it prints is accepted where only a private key is', async () => {
    const emulator = await startEmulator();
    try {
      expect(emulator.apiKey).not.toBe('');
      expect((await clientFor(emulator).get('/phones')).status).toBe(200);
    } finally {
      await emulator.close();
    }
  });

  it('a seed that lists one key twice, or a hash that is not its key, is refused with the place named', () => {
    const twice = { keys: [{ type: 'private', key: 'sameKey000000000000000000000001' }, { type: 'public', key: 'sameKey000000000000000000000001' }] };
    expect(() => checkSeed(twice, 'twice.yaml')).toThrow(/keys\[1\]: is the same key as keys\[0\]/);
    const mismatch = { keys: [{ type: 'private', key: 'someKey000000000000000000000001', hash: 'a'.repeat(64) }] };
    expect(() => checkSeed(mismatch, 'mismatch.yaml')).toThrow(/keys\[0\]\.hash: is not the sha256 of `key`/);
  });
});
