/**
 * The published package, as a user gets it. The tarball is packed from a clean copy of the
 * repository's files (no dist/: `prepack` builds it), installed into an empty folder, and then: the
 * README's first hour — init, plan and apply against `voxform emulator` running from the install, a
 * second plan with no changes —, an HTML call report on the embedded emulator (its chart library comes
 * from the installed dependencies), and every documentation reference a user can meet: each
 * `docs/NAME.md` that a command's `--help` prints or the shipped code holds (error hints) is a file of
 * the installed package, and the README links only where a registry page can follow.
 *
 * Nothing is downloaded: the folder's lock file pins the dependencies to the versions of this
 * repository's lock file, so npm takes them from its cache, which `npm ci` filled (resolving versions
 * afresh would need the registry's package lists, which `npm ci` does not keep).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const REPOSITORY = 'https://github.com/voxform/voxform';
/** A page of the documentation as shipped code and help name it. */
const DOC_REFERENCE = /docs\/[a-z0-9-]+\.md/g;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false', ...env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const servers: ChildProcess[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.kill('SIGTERM');
});

/** Starts `voxform emulator --port 0` from the install; resolves to its URL and key once it listens. */
function startInstalledEmulator(bin: string, cwd: string): Promise<{ url: string; key: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['emulator', '--port', '0'], { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: 'pipe' });
    servers.push(child);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      const key = /private key +(\S+)/.exec(stdout)?.[1];
      if (url && key) resolve({ url, key });
    });
    child.on('error', reject);
    child.on('close', (code) => reject(new Error(`voxform emulator ended with ${code}: ${stdout}`)));
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

/** A clean clone of the working tree: its tracked and new files, without dist/; node_modules linked. */
async function cleanCopy(): Promise<string> {
  const copy = await tempDir();
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '' && existsSync(path.join(repoRoot, file)) && !file.startsWith('dist/'));
  for (const file of files) {
    await mkdir(path.dirname(path.join(copy, file)), { recursive: true });
    await copyFile(path.join(repoRoot, file), path.join(copy, file));
  }
  await symlink(await realpath(path.join(repoRoot, 'node_modules')), path.join(copy, 'node_modules'));
  return copy;
}

/**
 * Where the registry keeps a package's tarball. A lock entry without `resolved` (npm leaves it out
 * now and then) would make npm ask the registry for it; with it, the cache answers by integrity.
 */
function registryTarball(lockKey: string, version: string): string {
  const name = lockKey.slice(lockKey.lastIndexOf('node_modules/') + 'node_modules/'.length);
  return `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${version}.tgz`;
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
  for (const [key, entry] of Object.entries(lock.packages)) if (key !== '' && !entry.dev && !entry.devOptional) packages[key] = { resolved: registryTarball(key, entry.version as string), ...entry };
  return {
    'package.json': JSON.stringify({ name: 'user-project', version: '1.0.0', private: true, dependencies }),
    'package-lock.json': JSON.stringify({ name: 'user-project', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2),
  };
}

/**
 * Every command's `--help`, printed by the installed package's own shell (one process for all): each
 * help's list of commands names the next ones to print.
 */
const PRINT_ALL_HELP = `
const { main } = require('./node_modules/voxform/dist/cli-bundle/main.cjs');
async function printHelp(words) {
  let text = '';
  const write = process.stdout.write;
  process.stdout.write = (chunk) => ((text += chunk), true);
  try {
    await main([...words, '--help']);
  } finally {
    process.stdout.write = write;
  }
  process.stdout.write(text);
  const commands = /\\nCommands:\\n([\\s\\S]*?)(?:\\n\\n|\\n?(?![\\s\\S]))/.exec(text)?.[1] ?? '';
  for (const [, name] of commands.matchAll(/^  (\\S+)/gm)) if (name !== 'help') await printHelp([...words, name]);
}
printHelp([]);
`;

describe('the packed tarball', () => {
  it('packs from a clean clone, installs offline into an empty folder, and the first hour works from it', async () => {
    const packDir = await tempDir();
    const packed = await run('npm', ['pack', '--silent', '--pack-destination', packDir], await cleanCopy());
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = path.join(packDir, packed.stdout.trim().split('\n').pop() ?? '');
    expect(path.basename(tarball)).toMatch(/^voxform-\d+\.\d+\.\d+\.tgz$/);

    const project = await tempDir(await userProject(tarball));
    const install = await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], project);
    expect(install.code, install.stderr).toBe(0);
    expect(packageWarnings(install.stdout + install.stderr)).toEqual([]);
    const bin = path.join(project, 'node_modules/.bin/voxform');

    // The README's first hour, against `voxform emulator` running from the install.
    const emulator = await startInstalledEmulator(bin, project);
    const service = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: emulator.key };
    const voxform = (...args: string[]) => run(bin, args, project, service);
    const init = await voxform('init', '--template', 'receptionist', '--var', 'agent_id=-OKspareAgent0000001', '--var', 'business=Acme Dental',
      '--var', 'business_description=a family dental practice', '--var', 'opening_hours=Monday to Friday 8am to 6pm', '--var', 'transfer_number=+15551230000');
    expect(init.code, init.stderr).toBe(0);
    const plan = await voxform('plan');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Plan: 0 to create, 1 to update, 0 unchanged');
    const apply = await voxform('apply', '--auto-approve');
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('Apply complete: 1 applied, 0 failed');
    const again = await voxform('plan');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('No changes.');
    const live = await voxform('get', 'agents');
    expect(live.code, live.stderr).toBe(0);
    expect(live.stdout).toMatch(/^-OKspareAgent0000001 +Acme Dental receptionist +agent\.receptionist +manifest +—$/m);

    // The call report's HTML inlines its chart library from the installed dependency.
    const local = await run(bin, ['apply', '--local', '--auto-approve'], project);
    expect(local.code, local.stderr).toBe(0);
    const report = await run(bin, ['report', '--local', '--format', 'html', '--out', 'report.html'], project);
    expect(report.code, report.stderr).toBe(0);
    expect(await readFile(path.join(project, 'report.html'), 'utf8')).toContain('uPlot');
    for (const step of [init, plan, apply, again, live, local, report]) expect(packageWarnings(step.stderr)).toEqual([]);

    const installed = path.join(project, 'node_modules/voxform');
    const files = await filesUnder(installed);
    const shipped = new Set(files.map((file) => path.relative(installed, file)));
    expect(shipped).toContain('LICENSE');
    expect(shipped).toContain('README.md');
    expect(shipped).toContain('action.yml');
    expect(shipped).toContain('templates/voxform.yml');
    // The command line runs from its bundle; tsc's output it was bundled from is not shipped: nothing loads it.
    expect(shipped).toContain('dist/cli-bundle/main.cjs');
    expect([...shipped].filter((file) => file.startsWith('dist/cli/'))).toEqual([]);
    // What the GitHub Action and the GitLab component run, installed with `version: X.Y.Z`: `voxform ci run`.
    const ci = await voxform('ci', 'run', '--help');
    expect(ci.code, ci.stderr).toBe(0);
    expect(ci.stdout).toContain('--provider <provider>');
    // No source map, and no compiled file pointing at one: the TypeScript sources are not shipped.
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
    for (const file of files.filter((name) => /\.c?js$/.test(name))) expect(await readFile(file, 'utf8'), file).not.toContain('sourceMappingURL');

    // Where a registry page sends people: the repository, its home page, its issues.
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ repository: { type: 'git', url: `git+${REPOSITORY}.git` }, homepage: `${REPOSITORY}#readme`, bugs: { url: `${REPOSITORY}/issues` } });

    // Every page a command's --help names is in the package, and the help says where the package keeps them.
    await writeFile(path.join(project, 'help.cjs'), PRINT_ALL_HELP);
    const help = await run(process.execPath, ['help.cjs'], project);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain(`in this package at ${await realpath(path.join(installed, 'docs'))}/`);
    const fromHelp = new Set(help.stdout.match(DOC_REFERENCE));
    expect([...fromHelp]).toEqual(expect.arrayContaining(['docs/completion.md', 'docs/traffic.md', 'docs/webhooks.md']));
    // Every page the shipped code names (error hints, messages) is in the package too.
    const fromCode = new Set<string>();
    for (const file of files.filter((name) => /\.c?js$/.test(name))) for (const reference of (await readFile(file, 'utf8')).match(DOC_REFERENCE) ?? []) fromCode.add(reference);
    expect(fromCode.size).toBeGreaterThan(10);
    expect([...fromHelp, ...fromCode].filter((reference) => !shipped.has(reference))).toEqual([]);

    // The README as a registry page shows it: every link absolute; those into the package name a file it ships.
    const readme = await readFile(path.join(installed, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
    expect(links.filter((link) => !/^https?:\/\//.test(link))).toEqual([]);
    const ownDocs = links.flatMap((link) => /^https:\/\/github\.com\/voxform\/voxform\/blob\/main\/(docs\/[^#]+)/.exec(link)?.[1] ?? []);
    expect(ownDocs.length).toBeGreaterThan(10);
    expect(ownDocs.filter((doc) => !shipped.has(doc))).toEqual([]);
    // The shipped pages' own relative links resolve inside the package.
    const brokenInDocs: string[] = [];
    for (const doc of [...shipped].filter((file) => file.startsWith('docs/') && file.endsWith('.md'))) {
      for (const match of (await readFile(path.join(installed, doc), 'utf8')).matchAll(/\]\(([^)\s#]+)[^)\s]*\)/g)) {
        const target = match[1] as string;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        if (!shipped.has(path.posix.normalize(path.posix.join(path.posix.dirname(doc), decodeURIComponent(target))))) brokenInDocs.push(`${doc}: ${target}`);
      }
    }
    expect(brokenInDocs).toEqual([]);

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
  }, 240_000);
});
