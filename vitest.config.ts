import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // End-to-end tests spawn the built CLI and an emulator on loopback: give them room on a 2-core CI machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One real PostgreSQL server for the run, started in the background (see the file).
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
  },
});
