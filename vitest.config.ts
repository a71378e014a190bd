import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const testDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test');

/**
 * Test files that replace a module (`vi.mock`): a module graph shared with the files before them
 * would already hold the real module, so they run each in a fork of its own. Found by reading the
 * files, so a new one is never left out.
 */
function filesThatMock(): string[] {
  const files = readdirSync(testDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.test.ts'));
  return files.filter((file) => /\bvi\.mock\(/.test(readFileSync(path.join(testDir, file), 'utf8'))).map((file) => `test/${file.split(path.sep).join('/')}`);
}
const mocking = filesThatMock();

// End-to-end tests spawn the built CLI and an emulator on loopback: give them room on a 2-core CI machine.
const common = { testTimeout: 30_000, hookTimeout: 30_000, pool: 'forks' as const };

export default defineConfig({
  test: {
    // vitest's default is one fork fewer than the cores: a single fork on a 2-core CI machine, where
    // most test files spend their time waiting on a spawned CLI, an emulator or PostgreSQL, and the
    // other core would idle. One fork per core: every test is isolated by its own temporary folder,
    // port and database.
    maxWorkers: Math.max(2, availableParallelism()),
    // One real PostgreSQL server for the run, started in the background (see the file). Here, not
    // in the projects: each project would start one of its own.
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    projects: [
      // A fork runs file after file without starting afresh: starting a fork and importing the
      // sources again for each file leaves the forks idle for much of the run. Each test keeps to
      // its own folder, port and database, and puts back what it changes of the process (a spy,
      // an environment variable).
      { extends: false, test: { ...common, name: 'shared', include: ['test/**/*.test.ts'], exclude: mocking, isolate: false } },
      { extends: false, test: { ...common, name: 'isolated', include: mocking } },
    ],
  },
});
