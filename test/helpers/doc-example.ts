/**
 * Documentation examples as a user runs them: the first TypeScript block of a section, compiled
 * against the `voxform` package (its exports point at dist/, built before the tests) under the
 * strictest compiler options, `exactOptionalPropertyTypes` included; and the manifests the docs show.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { loadSchemas } from '../../src/schema/load.js';
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

/**
 * The ```yaml blocks of README.md and docs/*.md that are manifests (only manifest sections at the
 * top), each as `[NAME, TEXT]`; a block indented under a list item is taken as the file it shows,
 * without that indentation.
 */
export function documentedManifests(): Array<[string, string]> {
  const sections = new Set(Object.keys((loadSchemas().manifest as { properties: object }).properties));
  const files = ['README.md', ...readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const found: Array<[string, string]> = [];
  for (const file of files) {
    const text = readFileSync(path.join(repoRoot, file), 'utf8');
    [...text.matchAll(/^( *)```ya?ml\n([\s\S]*?)^\1```/gm)].forEach((match, index) => {
      const indent = match[1] as string;
      const yaml = (match[2] as string).replace(new RegExp(`^${indent}`, 'gm'), '');
      const docs = parseAllDocuments(yaml).map((doc) => doc.toJS() as unknown);
      const isManifest = docs.every((doc) => doc !== null && typeof doc === 'object' && !Array.isArray(doc) && Object.keys(doc).length > 0 && Object.keys(doc).every((key) => sections.has(key)));
      if (isManifest) found.push([`${file} example ${index + 1}`, yaml]);
    });
  }
  return found;
}
