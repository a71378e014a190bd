/**
 * Documentation examples as a user runs them: the first TypeScript block of a section, compiled
 * against the `voxform` package (its exports point at dist/, built before the tests) under the
 * strictest compiler options, `exactOptionalPropertyTypes` included.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './cli.js';

const run = promisify(execFile);

/** The first ```ts block after `heading` in `file` (relative to the repository). */
export async function typescriptExample(file: string, heading: string): Promise<string> {
  const text = await readFile(path.join(repoRoot, file), 'utf8');
  const at = text.indexOf(heading);
  const match = at >= 0 ? /```ts\n([\s\S]*?)```/.exec(text.slice(at)) : null;
  if (!match?.[1]) throw new Error(`${file} has no TypeScript example under "${heading}"`);
  return match[1];
}

/**
 * Writes `source` as `NAME.ts` into `dir` with `voxform` installed beside it (a link to this
 * package), compiles it, and resolves to the compiler's output ('' when clean) and the script.
 */
export async function compileExample(dir: string, name: string, source: string): Promise<{ diagnostics: string; script: string }> {
  await writeFile(path.join(dir, `${name}.ts`), source);
  await writeFile(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  await mkdir(path.join(dir, 'node_modules'), { recursive: true });
  await symlink(repoRoot, path.join(dir, 'node_modules/voxform'), 'dir');
  const compilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    noPropertyAccessFromIndexSignature: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    target: 'ES2022',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    typeRoots: [path.join(repoRoot, 'node_modules/@types')],
    outDir: 'out',
  };
  await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: [`${name}.ts`] }));
  const tsc = path.join(repoRoot, 'node_modules/.bin/tsc');
  const compiled = await run(tsc, ['-p', path.join(dir, 'tsconfig.json')], { cwd: dir }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
  return { diagnostics: compiled.stdout, script: path.join(dir, `out/${name}.js`) };
}
