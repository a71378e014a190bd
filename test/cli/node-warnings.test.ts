/**
 * Node's own process warnings pass the printing rule (docs/security.md §8), as every write of every
 * command does: a library's warning (pg-connection-string's about `sslmode=require`) is a
 * `warning:` line of voxform's, never Node's raw `(node:PID) Warning: …`. runCli fails a run that
 * prints one of Node's.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { repoRoot, runCli, spawnCli, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

/** A loopback port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("Node's process warnings", () => {
  // `status` shows the state unreadable in its table; `state list` fails with the error.
  it.each([
    [['status'], /^State: .*\(unreadable: The state database .* failed: connect ECONNREFUSED/m],
    [['state', 'list'], /^error\[state_backend_failed\]: The state database .* failed: connect ECONNREFUSED/m],
  ])("%j with a --state URL of sslmode=require: a clean error, the driver's warning one warning: line", async (words, said) => {
    const url = `postgresql://voxform:planted-db-pw-7731@127.0.0.1:${await closedPort()}/ops?sslmode=require&connect_timeout=2`;
    const result = await runCli([...words, '--state', url], { cwd: await tempDir({}) });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout + result.stderr).toMatch(said);
    expect(result.stderr.match(/^warning: /gm)).toHaveLength(1);
    expect(result.stderr).not.toContain('(node:');
    expect(result.stderr).toMatch(/^warning: SECURITY WARNING: The SSL modes/m);
    expect(result.stdout + result.stderr).not.toContain('planted-db-pw-7731');
  });

  it('a warning of a kind (a deprecation) says its kind, so the suite and the benchmarks still find it; a plain one is a warning: line', async () => {
    const run = spawnCli(await tempDir({ 'voxform.yaml': 'version: 1\n' }), {}, ['validate'], { preload: path.join(repoRoot, 'test/helpers/emit-node-warnings.mjs') });
    expect(await run.exited).toBe(0);
    expect(run.output.stderr).toContain('warning: DeprecationWarning: an old API was called\n');
    expect(run.output.stderr).toContain('warning: a library has something to say\n');
    expect(run.output.stderr).not.toContain('(node:');
  });

  it.each([
    [{ NODE_NO_WARNINGS: '1' }, []],
    [{ NODE_OPTIONS: '--no-warnings' }, []],
    [{ NODE_OPTIONS: '--disable-warning=DeprecationWarning' }, ['warning: a library has something to say\n']],
    [{ NODE_OPTIONS: '--disable-warning="DeprecationWarning"' }, ['warning: a library has something to say\n']],
  ])('%j keeps them quiet as Node would: %j', async (env, said) => {
    const run = spawnCli(await tempDir({ 'voxform.yaml': 'version: 1\n' }), env, ['validate'], { preload: path.join(repoRoot, 'test/helpers/emit-node-warnings.mjs') });
    expect(await run.exited).toBe(0);
    expect(run.output.stderr.match(/^warning: .*\n/gm) ?? []).toEqual(said);
    expect(run.output.stderr).not.toContain('(node:');
  });
});
