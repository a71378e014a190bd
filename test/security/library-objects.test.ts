/**
 * A library caller may log what voxform hands back (`console.log(client)`, `console.dir` with
 * `showHidden`) or serialize it: the API key and the state database's password are in none of them,
 * at any depth, hidden properties included (the database driver keeps the password in one).
 */
import { inspect } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient, openStateBackend } from '../../src/index.js';
import { freshDatabase, PLANTED_DB_PASSWORD } from '../helpers/postgres.js';
import { runCliInProcess } from '../helpers/cli.js';

const PLANTED_API_KEY = 'planted-library-api-key-6102';

/** Each way a caller may print `value`; every text must lack every form of `secret`. */
function expectNowhereIn(value: unknown, secret: string): void {
  const forms = [secret, encodeURIComponent(secret)];
  for (const text of [inspect(value, { depth: 10 }), inspect(value, { showHidden: true, depth: Infinity }), JSON.stringify(value) ?? '']) {
    for (const form of forms) expect(text).not.toContain(form);
  }
}

describe('objects the library returns', () => {
  it('a client, and one made from it, show no API key', async () => {
    const client = createClient({ apiKey: PLANTED_API_KEY, baseUrl: 'http://127.0.0.1:1' });
    expectNowhereIn(client, PLANTED_API_KEY);
    expectNowhereIn(client.withSignal(new AbortController().signal), PLANTED_API_KEY);
    await client.close();
  });

  it('a PostgreSQL state backend shows no password, before it connects and once it has', async () => {
    const database = await freshDatabase();
    const backend = await openStateBackend({ env: { VOXFORM_STATE: database.url }, cwd: tmpdir(), registerSecret: () => undefined });
    try {
      expect(backend.kind).toBe('postgres');
      expectNowhereIn(backend, PLANTED_DB_PASSWORD);
      await backend.listWorkspaces();
      expectNowhereIn(backend, PLANTED_DB_PASSWORD);
    } finally {
      await backend.close();
    }
  });

  describe('a PostgreSQL state backend with its connections open', () => {
    it.each([
      ['in the URL', (url: string) => ({ VOXFORM_STATE: url })],
      ['in PGPASSWORD', (url: string) => ({ VOXFORM_STATE: url.replace(`:${encodeURIComponent(PLANTED_DB_PASSWORD)}@`, '@'), PGPASSWORD: PLANTED_DB_PASSWORD })],
    ])('shows no password given %s, nor does the connection it holds, nor a lock\'s', async (_where, envFor) => {
      const env = envFor((await freshDatabase()).url);
      const backend = await openStateBackend({ env, cwd: tmpdir(), registerSecret: () => undefined });
      try {
        await backend.listWorkspaces();
        const session = await (backend as unknown as { session: Promise<unknown> }).session;
        expectNowhereIn(session, PLANTED_DB_PASSWORD);
        expectNowhereIn(backend, PLANTED_DB_PASSWORD);
        const lock = await backend.acquireLock('default@http://127.0.0.1:1', { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
        expectNowhereIn(backend, PLANTED_DB_PASSWORD);
        await lock.release();
      } finally {
        await backend.close();
      }
    });

    it('nor does the error of a login the database refuses, as VOXFORM_DEBUG=1 prints it', async () => {
      const url = (await freshDatabase()).url.replace(encodeURIComponent(PLANTED_DB_PASSWORD), encodeURIComponent(`${PLANTED_DB_PASSWORD}-wrong`));
      const backend = await openStateBackend({ env: { VOXFORM_STATE: url }, cwd: tmpdir(), registerSecret: () => undefined });
      try {
        const error = await backend.listWorkspaces().then(() => undefined, (thrown: unknown) => thrown);
        expect(error).toMatchObject({ code: 'state_backend_failed' });
        expectNowhereIn(error, PLANTED_DB_PASSWORD);
        expectNowhereIn(backend, PLANTED_DB_PASSWORD);
      } finally {
        await backend.close();
      }
      const result = await runCliInProcess(['state', 'list'], { env: { VOXFORM_STATE: url, VOXFORM_DEBUG: '1' } });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('error[state_backend_failed]');
      for (const form of [PLANTED_DB_PASSWORD, encodeURIComponent(PLANTED_DB_PASSWORD)]) expect(result.stdout + result.stderr).not.toContain(form);
    });
  });

  it('a file state backend shows no password either', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-library-objects-'));
    try {
      const backend = await openStateBackend({ env: { VOXFORM_STATE: 'state.json' }, cwd: dir, registerSecret: () => undefined });
      expectNowhereIn(backend, PLANTED_DB_PASSWORD);
      await backend.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
