/** Errors that say where to look: a refused loopback address names `voxform emulator`; a test file outside the project names its root. */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorFromTransport } from '../../src/api/errors.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

function refused(origin: string) {
  const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  return errorFromTransport('connection', { method: 'GET', path: '/call-logs', attempts: 1, secret: 'vx-test-key-0123456789', origin, timeoutMs: 30_000, maxResponseBytes: 1024, cause });
}

/** A loopback port nothing listens on: one that was free a moment ago. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a refused connection', () => {
  it.each(['http://127.0.0.1:4010', 'http://localhost:4010', 'http://[::1]:4010'])('to %s says to start `voxform emulator`', (origin) => {
    expect(refused(origin).hint).toBe(
      `Nothing listens at ${origin} on this machine: start the local service there with \`voxform emulator\` (--port to choose its port), or pass --local for the embedded one.`,
    );
  });

  it('to another host keeps the general hint', () => {
    expect(refused('https://api.example.com').hint).toBe('Check the network and the base URL (--base-url, --region), or try again later.');
  });

  it('the CLI shows it, with the code', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const result = await runCliInProcess(['logs', '--base-url', url], { cwd: await tempDir({}), env: { VOXFORM_API_KEY: 'vx-test-key-0123456789' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error[api_unavailable]: GET /call-logs failed: could not reach the service at ${url} (connection refused)`);
    expect(result.stderr).toContain(`hint: Nothing listens at ${url} on this machine: start the local service there with \`voxform emulator\``);
  });
});

describe('voxform test PATH outside the project', () => {
  it('names the project root and how it was found', async () => {
    const dir = await tempDir({
      'project/voxform.yaml': 'version: 1\nagents:\n  front-desk:\n    id: "-OKdqbqetEcM4ak369ym"\n',
      'elsewhere/a.test.yaml': 'agent: front-desk\ntests:\n  - name: hi\n    turns:\n      - expect: [{ contains: Hello }]\n',
    });
    const project = path.join(dir, 'project');
    const result = await runCliInProcess(['test', '../elsewhere/a.test.yaml', '--local'], { cwd: project });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error[tests_unreadable]: ../elsewhere/a.test.yaml is outside the project, whose root is ${await realpath(project)} (the folder voxform runs in, which holds the manifest and is in no git work tree).\n` +
        '  hint: Test files are read only inside the project of the manifest (the first -f, when several are named): move it into that project, or run its own project\'s tests apart, naming that project\'s manifest first with -f.\n',
    );
  });
});
