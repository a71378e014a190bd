/**
 * Databases on the test run's PostgreSQL server (started once by test/helpers/postgres-global-setup.ts).
 * Each `freshDatabase()` is a new database owned by a new role that is no superuser, with a password
 * planted to prove it is never printed: what a managed PostgreSQL gives a team.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { MIGRATIONS } from '../../src/state/postgres/schema.js';

/** The planted database password: characters that must be percent-encoded in a URL included. */
export const PLANTED_DB_PASSWORD = 'pl@nted:Db%s3cret-4417';

/** The superuser URL of the run's server, once it is up; throws the reason it could not start. */
export async function postgresAdminUrl(): Promise<string> {
  const file = inject('postgresStatusFile');
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await readFile(file, 'utf8').then((text) => JSON.parse(text) as { adminUrl?: string; error?: string }, () => undefined);
    if (status?.adminUrl) return status.adminUrl;
    if (status?.error) throw new Error(`The test PostgreSQL server could not start: ${status.error}`);
    if (Date.now() > deadline) throw new Error('The test PostgreSQL server did not start within 120 s.');
    await delay(100);
  }
}

/** Runs SQL as the superuser. */
export async function asAdmin<T>(work: (client: pg.Client) => Promise<T>, database = 'postgres'): Promise<T> {
  const url = new URL(await postgresAdminUrl());
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database owned by a new role without superuser, as a `postgres://` URL with the planted password. */
export async function freshDatabase(): Promise<{ url: string; database: string; role: string }> {
  const suffix = randomBytes(5).toString('hex');
  const role = `vx_role_${suffix}`;
  const database = `vx_db_${suffix}`;
  await asAdmin(async (client) => {
    await client.query(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${client.escapeLiteral(PLANTED_DB_PASSWORD)}`);
    await client.query(`CREATE DATABASE ${database} OWNER ${role}`);
  });
  const admin = new URL(await postgresAdminUrl());
  return { url: `postgres://${role}:${encodeURIComponent(PLANTED_DB_PASSWORD)}@${admin.host}/${database}`, database, role };
}

/** A fresh database (`freshDatabase`) with the tables of schema `version`, as the voxform that knew up to it made them. */
export async function databaseAtSchema(version: number): Promise<{ url: string; database: string; role: string }> {
  const made = await freshDatabase();
  const client = new pg.Client({ connectionString: made.url });
  await client.connect();
  try {
    await client.query('CREATE TABLE voxform_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    for (const migration of MIGRATIONS.filter((m) => m.version <= version)) {
      await client.query(migration.sql);
      await client.query('INSERT INTO voxform_schema_version (version) VALUES ($1)', [migration.version]);
    }
  } finally {
    await client.end();
  }
  return made;
}

/** The schema versions a database records (none before its first migration). */
export async function schemaVersionsOf(database: string): Promise<number[]> {
  return asAdmin(async (client) => {
    const found = await client.query<{ version: number }>("SELECT version FROM voxform_schema_version ORDER BY 1").catch(() => ({ rows: [] }));
    return found.rows.map((row) => row.version);
  }, database);
}

/**
 * A TCP server on loopback that takes connections and never answers: a database that does not
 * respond. `close()` ends the connections it holds and the server.
 */
export async function silentDatabase(): Promise<{ port: number; server: Server; close: () => Promise<void> }> {
  const accepted: Socket[] = [];
  const server = createServer((socket) => void accepted.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = async () => {
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return { port: (server.address() as AddressInfo).port, server, close };
}
