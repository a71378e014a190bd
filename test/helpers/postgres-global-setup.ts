/**
 * vitest global setup: one PostgreSQL server for the whole test run (test/helpers/postgres-server.ts).
 * It starts in the background, so a run of tests that need no database does not wait for it; the
 * tests that do wait through `postgresAdminUrl()` (test/helpers/postgres.ts), and fail with the
 * reason if it could not start. Stopped, its data removed, when the run ends.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startPostgres, type PostgresServer } from './postgres-server.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A JSON file that says `{ "adminUrl": … }` once the server is up, or `{ "error": … }`. */
    postgresStatusFile: string;
  }
}

let started: Promise<PostgresServer | undefined> | undefined;
let statusDir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  statusDir = await mkdtemp(path.join(tmpdir(), 'voxform-pg-status-'));
  const statusFile = path.join(statusDir, 'status.json');
  project.provide('postgresStatusFile', statusFile);
  started = startPostgres().then(
    async (server) => {
      await writeFile(statusFile, JSON.stringify({ adminUrl: server.adminUrl, source: server.source }));
      return server;
    },
    async (error: unknown) => {
      await writeFile(statusFile, JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
      return undefined;
    },
  );
}

export async function teardown(): Promise<void> {
  const server = await started;
  await server?.stop();
  if (statusDir) await rm(statusDir, { recursive: true, force: true });
}
