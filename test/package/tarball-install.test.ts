/**
 * The published package, as a user gets it: `npm pack`, installed from the tarball into an empty
 * folder, then the first steps of the README (init, apply on the embedded emulator, plan) and an
 * HTML call report (its chart library comes from the installed dependencies). Nothing is
 * downloaded: the folder's lock file pins the dependencies to the versions of this repository's
 * lock file, so npm takes them from its cache, which `npm ci` filled (resolving versions afresh
 * would need the registry's package lists, which `npm ci` does not keep).
 */
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false' }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Warnings about the package, leaving out npm's complaints about the machine's own npm configuration. */
function packageWarnings(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => /warn/i.test(line))
    .filter((line) => !/Unknown (user|global|project|env) config/.test(line));
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * A user's folder depending on the tarball, with a lock file: voxform from the tarball, and every
 * package it needs at run time as this repository's lock file has it (its dev-only ones left out).
 */
async function userProject(tarball: string): Promise<Record<string, string>> {
  const lock = JSON.parse(await readFile(path.join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> };
  const own = lock.packages[''] as { version: string; license: string; dependencies: Record<string, string>; bin: unknown; engines: unknown };
  const dependencies = { voxform: `file:${tarball}` };
  const packages: Record<string, unknown> = {
    '': { name: 'user-project', version: '1.0.0', dependencies },
    'node_modules/voxform': { version: own.version, resolved: `file:${tarball}`, license: own.license, dependencies: own.dependencies, bin: own.bin, engines: own.engines },
  };
  for (const [key, entry] of Object.entries(lock.packages)) if (key !== '' && !entry.dev && !entry.devOptional) packages[key] = entry;
  return {
    'package.json': JSON.stringify({ name: 'user-project', version: '1.0.0', private: true, dependencies }),
    'package-lock.json': JSON.stringify({ name: 'user-project', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2),
  };
}

describe('the packed tarball', () => {
  it('installs into an empty folder without warnings, and init, apply --local and plan work from it', async () => {
    const packDir = await tempDir();
    const packed = await run('npm', ['pack', '--silent', '--pack-destination', packDir], repoRoot);
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = path.join(packDir, packed.stdout.trim().split('\n').pop() ?? '');

    const project = await tempDir(await userProject(tarball));
    const install = await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], project);
    expect(install.code, install.stderr).toBe(0);
    expect(packageWarnings(install.stdout + install.stderr)).toEqual([]);

    const voxform = (...args: string[]) => run(path.join(project, 'node_modules/.bin/voxform'), args, project);
    const init = await voxform('init', '--template', 'receptionist', '--var', 'agent_id=-OKspareAgent0000001', '--var', 'business=Acme Dental',
      '--var', 'business_description=a family dental practice', '--var', 'opening_hours=Monday to Friday 8am to 6pm', '--var', 'transfer_number=+15551230000');
    expect(init.code, init.stderr).toBe(0);
    const apply = await voxform('apply', '--local', '--auto-approve');
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Apply complete: 1 applied, 0 failed');
    const plan = await voxform('plan', '--local');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes.');
    // The call report's HTML inlines its chart library from the installed dependency.
    const report = await voxform('report', '--local', '--format', 'html', '--out', 'report.html');
    expect(report.code, report.stderr).toBe(0);
    expect(await readFile(path.join(project, 'report.html'), 'utf8')).toContain('uPlot');
    for (const step of [init, apply, plan, report]) expect(packageWarnings(step.stderr)).toEqual([]);

    const installed = path.join(project, 'node_modules/voxform');
    const files = await filesUnder(installed);
    expect(files.map((file) => path.relative(installed, file))).toEqual(expect.arrayContaining(['LICENSE', 'action.yml', 'templates/voxform.yml']));
    // What the GitHub Action and the GitLab component run, installed with `version: X.Y.Z`: `voxform ci run`.
    const ci = await voxform('ci', 'run', '--help');
    expect(ci.code, ci.stderr).toBe(0);
    expect(ci.stdout).toContain('--provider <provider>');
    // No source map, and no compiled file pointing at one: the TypeScript sources are not shipped.
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    for (const file of files.filter((name) => name.endsWith('.js'))) expect(await readFile(file, 'utf8'), file).not.toContain('sourceMappingURL');

    // `exports` lets users reach the package's own metadata and its schemas.
    const probe = path.join(project, 'probe.mjs');
    await writeFile(probe, [
      "import { createRequire } from 'node:module';",
      'const require = createRequire(import.meta.url);',
      "console.log(require('voxform/package.json').name);",
      "console.log(require.resolve('voxform/schemas/manifest.schema.json'));",
    ].join('\n'));
    const resolved = await run(process.execPath, [probe], project);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(resolved.stdout).toContain('voxform\n');
    expect(resolved.stdout).toContain(path.join('node_modules', 'voxform', 'schemas', 'manifest.schema.json'));
  }, 120_000);
});
