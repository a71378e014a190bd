import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { apply, createClient, fingerprintKey, loadManifests, plan, startEmulator } from '../src/index.js';
import { repoRoot } from './helpers/cli.js';
import { SECRETS, startExampleProject, type ExampleProject } from './helpers/project.js';

const run = promisify(execFile);

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('the library', () => {
  it('runs the whole pipeline: load, plan, apply, plan again with no changes', async () => {
    const emulator = await startEmulator({ quiet: true });
    const client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
    const key = fingerprintKey(emulator.apiKey);
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-lib-'));
    try {
      const { state: desired, diagnostics } = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: SECRETS });
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const stateFile = path.join(dir, 'state.json');
      const first = await plan({ desired: desired!, client, stateFile, serviceId: 'local', fingerprintKey: key });
      expect(first.summary).toMatchObject({ create: 3, update: 4 });
      const asked: number[] = [];
      const outcome = await apply({
        desired: desired!,
        client,
        stateFile,
        serviceId: 'local',
        fingerprintKey: key,
        confirm: async (fresh) => (asked.push(fresh.summary.create + fresh.summary.update), true),
        parallelism: 4,
      });
      expect(asked).toEqual([7]);
      expect(outcome.status).toBe('applied');
      expect(outcome.failed).toEqual([]);
      expect(outcome.applied).toHaveLength(7);
      const second = await plan({ desired: desired!, client, stateFile, serviceId: 'local', fingerprintKey: key });
      expect(second.summary).toEqual({ create: 0, update: 0, unchanged: 7, drifted: 0 });
    } finally {
      await client.close();
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to apply a fresh plan with changes without approval', async () => {
    const emulator = await startEmulator({ quiet: true });
    const client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
    const key = fingerprintKey(emulator.apiKey);
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-lib-'));
    try {
      const { state: desired } = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: SECRETS });
      await expect(apply({ desired: desired!, client, stateFile: path.join(dir, 'state.json'), serviceId: 'local', fingerprintKey: key })).rejects.toMatchObject({
        code: 'approval_required',
      });
      expect(emulator.control.requestLog().filter((r) => r.method !== 'GET')).toEqual([]);
    } finally {
      await client.close();
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** The first TypeScript block of the README's "As a library" section. */
async function readmeLibraryExample(): Promise<string> {
  const readme = await readFile(path.join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## As a library'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('README.md has no TypeScript example under "As a library"');
  return match[1];
}

describe('the README library example', () => {
  it('compiles under the strictest options (exactOptionalPropertyTypes included) and plans and applies against the emulator', async () => {
    project = await startExampleProject();
    const dir = project.dir;
    await writeFile(path.join(dir, 'example.ts'), await readmeLibraryExample());
    await writeFile(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    await mkdir(path.join(dir, 'node_modules'), { recursive: true });
    // `voxform` as a user installs it: the package (its exports point at dist/, built before the tests).
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
    await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['example.ts'] }));
    const tsc = path.join(repoRoot, 'node_modules/.bin/tsc');
    const compiled = await run(tsc, ['-p', path.join(dir, 'tsconfig.json')], { cwd: dir }).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    expect(compiled.stdout).toBe('');

    const env = { PATH: process.env.PATH ?? '', ...project.env };
    const { stdout } = await run(process.execPath, [path.join(dir, 'out/example.js')], { cwd: dir, env });
    expect(stdout).toContain('Plan: 3 to create, 4 to update, 0 unchanged');
    expect(stdout).toContain('applied agent.front-desk');
    expect(stdout).toContain('applied: 7 applied, 0 failed');
    for (const secret of Object.values(SECRETS)) expect(stdout).not.toContain(secret);
    const again = await project.cli(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);
  });
});
