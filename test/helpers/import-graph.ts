/**
 * The modules a source module loads when it is loaded: its static imports, followed through the
 * repository's own files (type-only imports left out), and the packages they name; with
 * `dynamic`, also what it loads later through `import()`. Start-up tests use it to keep slow
 * libraries out of commands that do not need them.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface ImportGraph {
  modules: Set<string>;
  packages: Set<string>;
}

export function importGraph(entry: string, dynamic = false): ImportGraph {
  const modules = new Set<string>([entry]);
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    const text = readFileSync(file, 'utf8');
    for (const specifier of importedSpecifiers(text, dynamic)) {
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

function importedSpecifiers(text: string, dynamic: boolean): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/^(import|export)\s+(type\s)?[^;]*?from\s+'([^']+)';|^import\s+'([^']+)';/gm)) {
    if (!match[2]) found.push((match[3] ?? match[4]) as string);
  }
  if (dynamic) for (const match of text.matchAll(/\bimport\('([^']+)'\)/g)) found.push(match[1] as string);
  return found;
}
