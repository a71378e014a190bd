import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // End-to-end tests spawn the built CLI and an emulator on loopback: give them room on a 2-core CI machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // vitest's default is one fork fewer than the cores: a single fork on a 2-core CI machine, where
    // most test files spend their time waiting on a spawned CLI, an emulator or PostgreSQL, and the
    // other core idles. One fork per core (measured on 2 cores: 7 min 38 s → 4 min 54 s, every test
    // isolated by its own temporary folder, port and database).
    maxWorkers: Math.max(2, availableParallelism()),
    // One real PostgreSQL server for the run, started in the background (see the file).
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
  },
});
