/**
 * What `plan`, `apply` and `validate` load before their first request: only what they use. Each
 * package or folder named here cost start-up time on every run when it was loaded eagerly
 * (docs/plan.md, Speed): the YAML library (40 ms; loading manifests needed two constants of the
 * template catalog), the whole of undici (100 ms, where its pool alone takes 40 ms), and the
 * emulator, conversation and export code no such command runs.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { importGraph } from '../helpers/import-graph.js';

const src = path.join(repoRoot, 'src');

describe('start-up imports', () => {
  for (const command of ['plan', 'apply', 'validate']) {
    it(`\`${command}\` loads no YAML library, no whole undici, no emulator, conversation or export code`, () => {
      const entry = path.join(src, `cli/commands/${command}.ts`);
      const { modules, packages } = importGraph(entry);
      expect([...packages].filter((name) => name === 'yaml' || name === 'undici' || name === 'openai')).toEqual([]);
      const folders = [...modules].map((file) => path.relative(src, file).split(path.sep)[0]);
      expect(folders.filter((folder) => ['emulator', 'conversations', 'export'].includes(folder as string))).toEqual([]);
      // The graph is the real one: it reaches the manifest loader and, but for validate, the client
      // (loaded once the command connects).
      expect(modules).toContain(path.join(src, 'manifest/load.ts'));
      if (command !== 'validate') expect(importGraph(entry, true).modules).toContain(path.join(src, 'api/http.ts'));
    });
  }
});
