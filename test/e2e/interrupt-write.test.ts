/**
 * A command stopped by Ctrl-C while a request that creates something is on the wire says, after the
 * interrupted line, that the service may have acted on it and where to look: the stop does not wait
 * for the answer, so without it a key or a batch of calls would be made unseen. The test signals once
 * the request has arrived (the emulator holds it, or a server that never answers), so the stop always
 * falls while it is on the wire.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';

let project: ExampleProject;
beforeAll(async () => {
  project = await startExampleProject();
  project.emulator.control.setFaults([{ path: '/api_keys', method: 'POST', latencyMs: 60_000 }]);
});
afterAll(async () => {
  await project.close();
});

/** Runs the CLI, sends SIGINT once `arrived()` says the request is on the wire, and resolves to what it printed. */
async function interruptOnce(args: string[], arrived: () => boolean): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { child, output, exited } = spawnCli(project.dir, project.env, args);
  while (!arrived()) await new Promise((resolve) => setTimeout(resolve, 20));
  child.kill('SIGINT');
  return { code: await exited, ...output };
}

describe('Ctrl-C while a create is on the wire', () => {
  it('keys create: says the key may have been made, and where to look', async () => {
    const before = project.emulator.control.requestLog().length;
    const result = await interruptOnce(['keys', 'create', '--type', 'private', '--name', 'k'], () =>
      project.emulator.control.requestLog().slice(before).some((entry) => entry.method === 'POST' && entry.path === '/api_keys'),
    );
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n');
    expect(lines[0]).toBe('error[interrupted]: voxform stopped at your request.');
    expect(lines[1]).toBe('  hint: Check what the service did with each request cut short (api_outcome_unknown) before you run the command again, or it may be done twice.');
    expect(lines[2]).toMatch(/^error\[api_outcome_unknown\]: POST \/api_keys failed: the request was sent to http:\/\/127\.0\.0\.1:\d+, but voxform was interrupted before an answer came: the service may have acted on it\.$/);
    expect(lines[3]).toBe('  hint: Check before running it again, or it may be done twice: look for the new key in the service’s dashboard.');
  });

  it('emulator traffic --url --format json: one envelope on stdout, the calls that may have been added in its details', async () => {
    let arrived = false;
    const server: Server = createServer(() => void (arrived = true));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const result = await interruptOnce(['emulator', 'traffic', '--url', url, '--calls', '50', '--format', 'json'], () => arrived);
      expect(result.code).toBe(130);
      expect(result.stderr, result.stdout).toBe('');
      const { error } = JSON.parse(result.stdout) as { error: { code: string; hint: string; details: { unknown_outcomes: Array<{ code: string; hint: string }> } } };
      expect(error.code).toBe('interrupted');
      expect(error.hint).toContain('(api_outcome_unknown) before you run the command again');
      expect(error.details.unknown_outcomes.map((unknown) => unknown.code)).toEqual(['api_outcome_unknown']);
      expect(error.details.unknown_outcomes[0]?.hint).toContain(`\`voxform logs --base-url ${url} --stats\``);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('emulator traffic --url: says calls may have been added, and how to see them', async () => {
    let arrived = false;
    const server: Server = createServer(() => void (arrived = true));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const result = await interruptOnce(['emulator', 'traffic', '--url', url, '--calls', '50'], () => arrived);
      expect(result.code).toBe(130);
      expect(result.stderr).toContain(`error[api_outcome_unknown]: POST /_emulator/traffic failed: the request was sent to ${url}, but voxform was interrupted before an answer came`);
      expect(result.stderr).toContain(`\`voxform logs --base-url ${url} --stats\``);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
