/**
 * What `plan`, `apply` and `validate` load before their first request: only what they use. Each
 * package or folder named here cost start-up time on every run when it was loaded eagerly
 * (docs/plan.md, Speed): the YAML library (40 ms; loading manifests needed two constants of the
 * template catalog), the whole of undici (100 ms, where its pool alone takes 40 ms), and the
 * emulator, conversation and export code no such command runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

const src = path.join(repoRoot, 'src');

/**
 * The modules a module loads when it is loaded (static imports, type-only ones left out), and the
 * packages; with `dynamic`, also those it loads later through `import()`.
 */
function importGraph(entry: string, dynamic = false): { modules: Set<string>; packages: Set<string> } {
  const modules = new Set<string>([entry]);
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    const text = readFileSync(file, 'utf8');
    const dynamicImports = dynamic ? text.matchAll(/\bimport\('([^']+)'\)/g) : [];
    const specifiers = [
      ...[...text.matchAll(/^(import|export)\s+(type\s)?[^;]*?from\s+'([^']+)';|^import\s+'([^']+)';/gm)].flatMap((match) => (match[2] ? [] : [(match[3] ?? match[4]) as string])),
      ...[...dynamicImports].map((match) => match[1] as string),
    ];
    for (const specifier of specifiers) {
      if (specifier.startsWith('node:')) continue;
      if (!specifier.startsWith('.')) {
        packages.add(specifier);
        continue;
      }
      const target = path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (!existsSync(target) || modules.has(target)) continue;
      modules.add(target);
      queue.push(target);
    }
  }
  return { modules, packages };
}

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
