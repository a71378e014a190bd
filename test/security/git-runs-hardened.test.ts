/**
 * Deploy provenance asks git about the checkout, and the checkout is the pull request's. A folder
 * committed as a bare repository (its `config` with a clean filter and an fsmonitor, its own
 * `index`), the repository's own `.git/config` with a filter that `.gitattributes` assigns, hooks
 * and an fsmonitor: none of them may run, and git gets no secret of the environment. Each planted
 * program writes a marker file; the controls show that plain git runs them in the same checkout.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filterOverrides, GIT_HARDENING } from '../../src/project-files/git.js';
import { repoRoot, runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const API_KEY = 'vx_planted_api_key_7f3a91c0d2';
const MANIFEST = 'version: 1\nagents:\n  desk:\n    id: "-OKdqbqetEcM4ak369ym"\n    config: { first_message: Hello }\n';
const REAL_GIT = execFileSync('sh', ['-c', 'command -v git']).toString().trim();

interface Checkout {
  dir: string;
  /** Where every planted program writes, when it runs. */
  marker: string;
  commit: string;
  /** The environment the test's own git runs with: nothing of the machine's configuration. */
  gitEnv: Record<string, string>;
}

/** A program that appends `what` and its environment to the marker file, then passes its input through (as a filter does). */
async function plant(file: string, marker: string, what: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `#!/bin/sh\n{ echo "${what}"; env; } >> "${marker}"\ncat\n`);
  await chmod(file, 0o755);
}

/**
 * A committed checkout holding the attacks: `agents/` is a bare repository whose config makes the
 * checkout's root its work tree and names a clean filter and an fsmonitor, with an index of its own
 * listing `agents/voxform.yaml`; the top-level `.git/config` names a filter (which `.gitattributes`
 * assigns to every file), an fsmonitor and a hooks folder. Every tracked file's time is then moved,
 * so that git must compare contents: that is when a clean filter runs.
 */
async function hostileCheckout(): Promise<Checkout> {
  const base = await tempDir({ 'checkout/agents/voxform.yaml': MANIFEST, 'checkout/agents/.gitattributes': '* filter=bare\n', 'checkout/.gitattributes': '* filter=top\n' });
  const dir = path.join(base, 'checkout');
  const marker = path.join(base, 'marker.log');
  const programs = path.join(base, 'programs');
  for (const name of ['bare-filter', 'bare-fsmonitor', 'top-filter', 'top-fsmonitor']) await plant(path.join(programs, name), marker, name);
  for (const hook of ['post-index-change', 'pre-commit', 'post-checkout', 'reference-transaction']) {
    await plant(path.join(programs, 'hooks', hook), marker, `hook ${hook}`);
  }
  const gitEnv = { PATH: process.env.PATH ?? '', HOME: base, GIT_CONFIG_NOSYSTEM: '1' };
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: gitEnv }).toString().trim();

  // The embedded bare repository, as a pull request can commit it: HEAD, config, objects, refs, index.
  const bare = path.join(dir, 'agents');
  await writeFile(path.join(bare, 'HEAD'), 'ref: refs/heads/main\n');
  await mkdir(path.join(bare, 'objects'), { recursive: true });
  await mkdir(path.join(bare, 'refs'), { recursive: true });
  await writeFile(path.join(bare, 'refs', '.keep'), '');
  await writeFile(path.join(bare, 'config'), '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n');
  git(bare, 'update-index', '--add', 'voxform.yaml');
  await writeFile(path.join(bare, 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = ${programs}/bare-fsmonitor\n[filter "bare"]\n\tclean = ${programs}/bare-filter\n`);

  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-qm', 'c1');
  const commit = git(dir, 'rev-parse', 'HEAD');
  for (const hook of ['post-index-change', 'reference-transaction']) await plant(path.join(dir, '.git', 'hooks', hook), marker, `hook ${hook}`);
  // The repository's own configuration (the operator's, but not code voxform may run either).
  git(dir, 'config', 'filter.top.clean', `${programs}/top-filter`);
  git(dir, 'config', 'filter.top.required', 'true');
  git(dir, 'config', 'core.fsmonitor', `${programs}/top-fsmonitor`);
  git(dir, 'config', 'core.hooksPath', path.join(programs, 'hooks'));

  const later = new Date(Date.now() + 86_400_000);
  for (const file of ['agents/voxform.yaml', 'agents/.gitattributes', '.gitattributes', 'agents/HEAD', 'agents/config']) await utimes(path.join(dir, file), later, later);
  return { dir, marker, commit, gitEnv };
}

/** A `git` first on PATH that writes its environment and arguments to `log`, then runs the real one. */
async function loggingGit(log: string): Promise<string> {
  const bin = await tempDir();
  await writeFile(path.join(bin, 'git'), `#!/bin/sh\n{ env; echo "ARGS: $*"; } >> "${log}"\nexec "${REAL_GIT}" "$@"\n`);
  await chmod(path.join(bin, 'git'), 0o755);
  return bin;
}

describe('git runs nothing from the repository and gets no secret', () => {
  it('apply --local from a manifest in an embedded bare repository: no filter, fsmonitor or hook runs; the commit is still recorded', async () => {
    const { dir, marker, commit, gitEnv } = await hostileCheckout();
    const log = path.join(path.dirname(marker), 'git.log');
    const bin = await loggingGit(log);
    const env = { VOXFORM_API_KEY: API_KEY, PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: gitEnv.HOME, GIT_CONFIG_NOSYSTEM: '1' };

    const apply = await runCliInProcess(['apply', '--local', '--auto-approve', '-f', 'agents/voxform.yaml'], { cwd: dir, env });
    expect(apply.code).toBe(0);
    expect(existsSync(marker)).toBe(false);

    // git did run, in the checkout's own repository: the record names its commit. Only the files
    // the apply wrote (.voxform/, voxform's own) differ from it, and they do not count.
    const history = await runCliInProcess(['history', '--local', '--format', 'json', '-f', 'agents/voxform.yaml'], { cwd: dir, env });
    expect(JSON.parse(history.stdout).records[0].source).toMatchObject({ commit, branch: 'main', uncommitted: false });

    // Every git run had the whole rule and none of the secret.
    const calls = (await readFile(log, 'utf8')).split('ARGS: ').slice(1);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    const text = await readFile(log, 'utf8');
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain('VOXFORM_API_KEY');
    for (const call of calls) expect(call.startsWith(GIT_HARDENING.join(' '))).toBe(true);
    expect(text).toContain(`GIT_CEILING_DIRECTORIES=${path.dirname(dir)}`);

    // The controls: plain git in the same checkout runs the planted programs.
    execFileSync('git', ['status', '--porcelain'], { cwd: path.join(dir, 'agents'), env: gitEnv, stdio: 'ignore' });
    const bareRan = await readFile(marker, 'utf8');
    expect(bareRan).toContain('bare-fsmonitor');
    expect(bareRan).toContain('bare-filter');
    execFileSync('git', ['-c', 'core.fsmonitor=false', 'status', '--porcelain'], { cwd: dir, env: { ...gitEnv, VOXFORM_API_KEY: API_KEY }, stdio: 'ignore' });
    const topRan = await readFile(marker, 'utf8');
    expect(topRan).toContain('top-filter');
    expect(topRan).toContain(`VOXFORM_API_KEY=${API_KEY}`);
  });

  it('a rollback asks for the commit and the branch under the same rule', async () => {
    const { dir, marker, commit, gitEnv } = await hostileCheckout();
    const env = { VOXFORM_API_KEY: API_KEY, HOME: gitEnv.HOME, GIT_CONFIG_NOSYSTEM: '1' };
    expect((await runCliInProcess(['apply', '--local', '--auto-approve', '-f', 'agents/voxform.yaml'], { cwd: dir, env })).code).toBe(0);
    const rollback = await runCliInProcess(['rollback', commit, '--local', '--auto-approve', '-f', 'agents/voxform.yaml'], { cwd: dir, env });
    expect(rollback.code).toBe(0);
    expect(existsSync(marker) ? await readFile(marker, 'utf8') : '').toBe('');
  });
});

describe('the git that runs is never one of the checkout', () => {
  it('a git the pull request commits on PATH (npx puts node_modules/.bin there; a relative or empty entry is the project root) never runs: the real one does', async () => {
    const base = await tempDir({ 'checkout/voxform.yaml': MANIFEST });
    const dir = path.join(base, 'checkout');
    const marker = path.join(base, 'marker.log');
    // The same program as node_modules/.bin/git, bin/git and git at the root, each a folder PATH may name.
    for (const file of ['node_modules/.bin/git', 'bin/git', 'git']) await plant(path.join(dir, file), marker, `committed ${file}`);
    const gitEnv = { PATH: process.env.PATH ?? '', HOME: base, GIT_CONFIG_NOSYSTEM: '1' };
    const git = (...args: string[]) => execFileSync(REAL_GIT, args, { cwd: dir, env: gitEnv }).toString().trim();
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-qm', 'c1');
    const commit = git('rev-parse', 'HEAD');

    const entries = [path.join(dir, 'node_modules', '.bin'), 'bin', '', path.dirname(REAL_GIT)];
    for (const PATH of [entries.join(path.delimiter), `${path.delimiter}${path.dirname(REAL_GIT)}`]) {
      const env = { VOXFORM_API_KEY: API_KEY, PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1' };
      const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env });
      expect(apply.code, apply.stderr).toBe(0);
      expect(existsSync(marker) ? await readFile(marker, 'utf8') : '', PATH).toBe('');
      const history = await runCliInProcess(['history', '--local', '--format', 'json'], { cwd: dir, env });
      expect(JSON.parse(history.stdout).records[0].source).toMatchObject({ commit, branch: 'main' });
    }

    // The control: looked up on that PATH as any program does, the committed git is the one found.
    execFileSync('git', ['status'], { cwd: dir, env: { ...gitEnv, PATH: entries.join(path.delimiter) }, stdio: 'ignore' });
    expect(await readFile(marker, 'utf8')).toContain('committed node_modules/.bin/git');
  });
});

describe('the one subprocess rule', () => {
  it('only src/project-files/git.ts starts processes', async () => {
    const src = path.join(repoRoot, 'src');
    const files = (await readdir(src, { recursive: true })).filter((file) => file.endsWith('.ts'));
    const starting: string[] = [];
    for (const file of files) {
      if (/from ['"](node:)?child_process['"]|require\(['"](node:)?child_process/.test(await readFile(path.join(src, file), 'utf8'))) starting.push(file);
    }
    expect(starting).toEqual([path.join('project-files', 'git.ts')]);
  });

  it('empties every filter driver the configuration lists, dotted names too, and refuses a name -c cannot spell', () => {
    expect(filterOverrides('filter.lfs.process\ngit-lfs filter-process\0filter.lfs.required\ntrue\0filter.a.b.clean\nx\0')).toEqual([
      ...['-c', 'filter.lfs.clean=', '-c', 'filter.lfs.smudge=', '-c', 'filter.lfs.process=', '-c', 'filter.lfs.required=false'],
      ...['-c', 'filter.a.b.clean=', '-c', 'filter.a.b.smudge=', '-c', 'filter.a.b.process=', '-c', 'filter.a.b.required=false'],
    ]);
    expect(filterOverrides('')).toEqual([]);
    expect(filterOverrides('filter.we=ird.clean\nx\0')).toBeUndefined();
  });
});
