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

  // `voxform test` needs a model only for judge: checks and simulated callers: the OpenAI client
  // (about 110 ms to load) comes with the first request to one.
  it('`test` loads no OpenAI client until a model is asked', () => {
    const entry = path.join(src, 'cli/commands/test.ts');
    expect([...importGraph(entry).packages].filter((name) => name === 'openai')).toEqual([]);
    expect(importGraph(entry, true).packages).toContain('openai');
  });

  // `plan --local` and `apply --local` start the embedded emulator (src/cli/connection.ts). Each
  // library named here serves what no plan or apply does there: the whole of undici the tool
  // webhooks of a model-played session (100 ms to load), the OpenAI client the model itself
  // (110 ms), the YAML library seeds written in YAML and traffic profiles (40 ms). Loaded with the
  // emulator, they made `plan --local` of the example 1.3 × slower.
  it('the embedded emulator of --local loads no whole undici, no OpenAI client and no YAML library', () => {
    const emulator = path.join(src, 'emulator/index.ts');
    const { modules, packages } = importGraph(emulator);
    expect([...packages].filter((name) => ['undici', 'openai', 'yaml'].includes(name))).toEqual([]);
    expect(modules).toContain(path.join(src, 'emulator/server.ts'));
    // --local reads the model's settings without the `emulator` command's module (its traffic
    // profiles bring the YAML library).
    expect(importGraph(path.join(src, 'cli/connection.ts'), true).modules).not.toContain(path.join(src, 'cli/commands/emulator.ts'));
    // They are still there for what needs them, loaded when it runs.
    const later = importGraph(emulator, true).modules;
    for (const lazy of ['emulator/llm-agent.ts', 'emulator/llm-tools.ts', 'model/chat-model.ts']) expect(later).toContain(path.join(src, lazy));
  });
});
