/**
 * Promise: of two `voxform apply` runs started together, exactly one runs — so nothing is imported
 * or created twice. A gate in front of the service holds every request until the loser has given
 * up, so the holder cannot finish (and free the lock) before the second run has tried: the outcome
 * never depends on timing.
 */
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';

let project: ExampleProject | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
  await project?.close();
  project = undefined;
});

/** A proxy that queues every request until `open()`, then forwards them all to `target`. */
async function startGate(target: string): Promise<{ url: string; open(): void }> {
  const upstream = new URL(target);
  let isOpen = false;
  const held: Array<() => void> = [];
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    out.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const send = () => forward(req, res, Buffer.concat(chunks));
      if (isOpen) send();
      else held.push(send);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open() {
      isOpen = true;
      for (const send of held.splice(0)) send();
    },
  };
}

function startApply(p: ExampleProject, baseUrl: string): Promise<{ code: number; stderr: string }> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/voxform.cjs'), 'apply', '--auto-approve'], {
    cwd: p.dir,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...p.env, VOXFORM_BASE_URL: baseUrl },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stderr })));
}

describe('two applies started together', () => {
  it.each(['no lock', 'the lock of a killed run'])('exactly one runs (%s left behind), and the number is imported once', async (leftover) => {
    project = await startExampleProject();
    const p = project;
    if (leftover !== 'no lock') {
      const lockDir = path.join(p.dir, '.voxform/state.json.lock');
      await mkdir(lockDir, { recursive: true });
      await writeFile(path.join(lockDir, 'holder-00000000deadbeef.json'), JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), user: 'ci', command: 'voxform apply', since: 'then' }));
    }
    const gate = await startGate(p.url);
    const runs = [startApply(p, gate.url), startApply(p, gate.url)];
    // The run that did not get the lock gives up without a single request getting through.
    const loser = await Promise.race(runs);
    expect(loser.code).toBe(1);
    expect(loser.stderr).toMatch(/error\[state_locked\]: The state file .* is locked by .*\(pid \d+, "voxform apply", since /);
    gate.open();
    const outcomes = await Promise.all(runs);
    expect(outcomes.map((o) => o.code).sort()).toEqual([0, 1]);
    const imports = p.requests.filter((r) => r.method === 'POST' && r.path === '/phones/import');
    expect(imports).toHaveLength(1);
    expect(p.emulator.control.state().phones.filter((phone) => phone.id === '+15551230002')).toHaveLength(1);
  });
});
