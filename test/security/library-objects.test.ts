/**
 * A library caller may log what voxform hands back (`console.log(client)`) or serialize it: the API
 * key and the state database's password are in neither, at any depth.
 */
import { inspect } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClient, openStateBackend } from '../../src/index.js';
import { freshDatabase, PLANTED_DB_PASSWORD } from '../helpers/postgres.js';

const PLANTED_API_KEY = 'planted-library-api-key-6102';

/** Each way a caller may print `value`; every text must lack every form of `secret`. */
function expectNowhereIn(value: unknown, secret: string): void {
  const forms = [secret, encodeURIComponent(secret)];
  for (const text of [inspect(value, { depth: 10 }), JSON.stringify(value) ?? '']) {
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
