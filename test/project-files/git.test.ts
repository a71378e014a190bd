/**
 * GitRepository.runBytes: a git run given input, whose output comes back byte for byte (what
 * `git cat-file --batch` writes of files that are not text), under the same rule as every git run:
 * the hardening options, the scrubbed environment, the cap on what is read. And cameWithCheckout:
 * whether a file holds the bytes the commit holds, so a pull request may have written it. And
 * openCommit: the operator's base revision, which a ref pushed by someone else must not stand in for.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cameWithCheckout, GIT_HARDENING, openCommit, openGitRepository, type GitRepository } from '../../src/project-files/git.js';
import { useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const REAL_GIT = execFileSync('sh', ['-c', 'command -v git']).toString().trim();
/** Bytes no line-reading answer keeps: not UTF-8, a NUL, blank lines, no newline at the end. */
const CONTENT = Buffer.from([0xff, 0xfe, 0x00, 0x0a, 0x0a, 0x0d, 0x0a, 0x41]);

async function repositoryWithBlob(): Promise<{ repository: GitRepository; object: string }> {
  const dir = await tempDir({ 'blob.bin': CONTENT });
  const env = { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
  execFileSync('git', ['init', '-q'], { cwd: dir, env });
  const object = execFileSync('git', ['hash-object', '-w', 'blob.bin'], { cwd: dir, env }).toString().trim();
  return { repository: (await openGitRepository(dir, env)) as GitRepository, object };
}

describe('runBytes', () => {
  it('gives git its input and answers its output unchanged', async () => {
    const { repository, object } = await repositoryWithBlob();
    const answer = await repository.runBytes(['cat-file', '--batch'], { input: `${object}\n${object}\n` });
    const one = Buffer.concat([Buffer.from(`${object} blob ${CONTENT.length}\n`), CONTENT, Buffer.from('\n')]);
    expect(answer).toEqual({ bytes: Buffer.concat([one, one]), cut: false });
  });

  it('reads no more than the cap: the answer is cut there, and says so', async () => {
    const { repository, object } = await repositoryWithBlob();
    const answer = await repository.runBytes(['cat-file', '--batch'], { input: `${object}\n`, maxOutput: 20 });
    expect(answer?.cut).toBe(true);
    expect(answer?.bytes).toEqual(Buffer.from(`${object} blob ${CONTENT.length}\n`).subarray(0, 20));
  });

  it('a git that fails is no answer', async () => {
    const { repository } = await repositoryWithBlob();
    expect(await repository.runBytes(['cat-file', '--no-such-option'], { input: 'x\n' })).toBeUndefined();
  });

  it('runs with the hardening options and the scrubbed environment, as every git run does', async () => {
    const bin = await tempDir();
    // A git that answers its arguments, its environment and its input (and runs the real one to open the repository).
    await writeFile(path.join(bin, 'git'), `#!/bin/sh\ncase "$*" in *--get-regexp*|*--git-dir*) exec "${REAL_GIT}" "$@";; esac\necho "ARGS: $*"; env; echo "INPUT:"; cat\n`);
    await chmod(path.join(bin, 'git'), 0o755);
    const dir = await tempDir();
    execFileSync('git', ['init', '-q'], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } });
    const repository = (await openGitRepository(dir, { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir, VOXFORM_API_KEY: 'vx_key_never_passed' })) as GitRepository;

    const said = (await repository.runBytes(['cat-file', '--batch'], { input: 'the input\n' }))?.bytes.toString() ?? '';
    expect(said.startsWith(`ARGS: ${GIT_HARDENING.join(' ')} cat-file --batch\n`)).toBe(true);
    expect(said).not.toContain('vx_key_never_passed');
    expect(said).toContain(`GIT_CEILING_DIRECTORIES=${path.dirname(repository.root)}`);
    expect(said.endsWith('INPUT:\nthe input\n')).toBe(true);
  });
});

describe('cameWithCheckout', () => {
  it('is true for a file git tracks as the commit holds it, a name holding a pattern character too, and false for one it ignores or a folder outside any work tree', async () => {
    const files = { '.voxform/local.json': '{}', '.voxform/[ab]*.json': '{}', '.voxform/a.json': '{}', '.gitignore': '.voxform/a.json\n' };
    const dir = await tempDir(files);
    const env = { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
    const outside = await tempDir({ '.voxform/local.json': '{}' });
    expect(await cameWithCheckout(path.join(outside, '.voxform', 'local.json'), env)).toBe(false);
    execFileSync('git', ['init', '-q'], { cwd: dir, env });
    expect(await cameWithCheckout(path.join(dir, '.voxform', 'local.json'), env)).toBe(false);
    execFileSync('git', ['add', '.voxform/local.json', ':(literal).voxform/[ab]*.json'], { cwd: dir, env });
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', 'commit', '-qm', 'base'], { cwd: dir, env });
    expect(await cameWithCheckout(path.join(dir, '.voxform', 'local.json'), env)).toBe(true);
    expect(await cameWithCheckout(path.join(dir, '.voxform', '[ab]*.json'), env)).toBe(true);
    expect(await cameWithCheckout(path.join(dir, '.voxform', 'a.json'), env)).toBe(false);
  });

  it('is false for a tracked file changed since the commit, staged or not, and for one only staged: its text is not in git', async () => {
    const dir = await tempDir({ '.voxform/local.json': '{}', '.voxform/new.json': '{}' });
    const env = { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, env });
    const local = path.join(dir, '.voxform', 'local.json');
    git('init', '-q');
    git('add', '.voxform/local.json');
    // Staged, never committed: no commit holds it.
    expect(await cameWithCheckout(local, env)).toBe(false);
    git('commit', '-qm', 'base');
    expect(await cameWithCheckout(local, env)).toBe(true);
    // The operator's `apply --local` rewrote it, with a deployed secret in it.
    await writeFile(local, '{"agents":[]}');
    expect(await cameWithCheckout(local, env)).toBe(false);
    git('add', '.voxform/local.json');
    expect(await cameWithCheckout(local, env)).toBe(false);
    git('commit', '-qm', 'the new data');
    expect(await cameWithCheckout(local, env)).toBe(true);
    git('add', '.voxform/new.json');
    expect(await cameWithCheckout(path.join(dir, '.voxform', 'new.json'), env)).toBe(false);
  });

  it("decides by the file's bytes against the commit's: an index bit that silences git status changes nothing, and an untracked copy of the commit's bytes is the commit's", async () => {
    const dir = await tempDir({ '.voxform/local.json': '{}\r\n' });
    const env = { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, env });
    const local = path.join(dir, '.voxform', 'local.json');
    git('init', '-q');
    git('add', '.voxform/local.json');
    git('commit', '-qm', 'base');
    for (const flag of ['--skip-worktree', '--assume-unchanged']) {
      git('update-index', flag, '.voxform/local.json');
      await writeFile(local, '{"secret":"deployed"}');
      expect(git('status', '--porcelain').toString(), flag).toBe('');
      expect(await cameWithCheckout(local, env), flag).toBe(false);
      // The same length as the commit's, other bytes.
      await writeFile(local, '{}\n\n');
      expect(await cameWithCheckout(local, env), flag).toBe(false);
      await writeFile(local, '{}\r\n');
      expect(await cameWithCheckout(local, env), flag).toBe(true);
      git('update-index', flag.replace('--', '--no-'), '.voxform/local.json');
    }
    // No longer in the index, the commit's bytes all the same: its text is in git.
    git('rm', '-q', '--cached', '.voxform/local.json');
    expect(await cameWithCheckout(local, env)).toBe(true);
  });

  it('hashes the bytes as a repository of SHA-256 object ids names them', async () => {
    const dir = await tempDir({ '.voxform/local.json': '{}' });
    const env = { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, env });
    const local = path.join(dir, '.voxform', 'local.json');
    git('init', '-q', '--object-format=sha256');
    git('add', '.voxform/local.json');
    git('commit', '-qm', 'base');
    expect(await cameWithCheckout(local, env)).toBe(true);
    await writeFile(local, '[]');
    expect(await cameWithCheckout(local, env)).toBe(false);
  });

  it('is false when git cannot be asked: not on the PATH, failing, or unable to read the repository', async () => {
    const dir = await tempDir({ '.voxform/local.json': '{}' });
    const env = { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
    const local = path.join(dir, '.voxform', 'local.json');
    execFileSync('git', ['init', '-q'], { cwd: dir, env });
    execFileSync('git', ['add', '.voxform/local.json'], { cwd: dir, env });
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', 'commit', '-qm', 'base'], { cwd: dir, env });
    expect(await cameWithCheckout(local, env)).toBe(true);
    expect(await cameWithCheckout(local, { ...env, PATH: await tempDir() })).toBe(false);
    const failing = await tempDir({ git: '#!/bin/sh\nexit 128\n' });
    await chmod(path.join(failing, 'git'), 0o755);
    expect(await cameWithCheckout(local, { ...env, PATH: `${failing}:${env.PATH}` })).toBe(false);
    // The commit's objects gone: git opens the repository and cannot read HEAD's tree.
    await rm(path.join(dir, '.git', 'objects'), { recursive: true });
    await mkdir(path.join(dir, '.git', 'objects'));
    expect(await cameWithCheckout(local, env)).toBe(false);
  });
});

describe('openCommit', () => {
  const refuse = (why: string, hint?: string) => new Error(`${why}${hint === undefined ? '' : ` | ${hint}`}`);
  const noRepository = { why: 'no repository' };

  /** A repository with the remote branch origin/main at `base`, and a tag of the same name at `pr`. */
  async function repositoryWithNamesakes(): Promise<{ dir: string; env: Record<string, string>; base: string; pr: string }> {
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\n' });
    const env = { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@example.com', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@example.com' };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env }).toString().trim();
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    const base = git('rev-parse', 'HEAD');
    git('commit', '-q', '--allow-empty', '-m', 'pull request');
    const pr = git('rev-parse', 'HEAD');
    git('update-ref', 'refs/remotes/origin/main', base);
    git('tag', 'origin/main', pr);
    git('tag', pr.slice(0, 7), base);
    return { dir, env, base, pr };
  }

  it('refuses a short name that a pushed tag shares with the base branch, instead of taking the tag as git would', async () => {
    const { dir, env } = await repositoryWithNamesakes();
    await expect(openCommit(dir, env, 'origin/main', refuse, noRepository)).rejects.toThrow(
      'is ambiguous: refs/remotes/origin/main and refs/tags/origin/main both answer to it, and git would take one of them silently | Name the base by its full ref (such as refs/remotes/origin/main) or by its commit id.',
    );
    await expect(openCommit(dir, env, 'origin/main~1', refuse, noRepository)).rejects.toThrow('is ambiguous');
  });

  it('reads a name holding "@" whole: "@" alone may stand in a ref, only "@{" starts a suffix', async () => {
    const { dir, env, base, pr } = await repositoryWithNamesakes();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env }).toString().trim();
    git('branch', 'rel@x', base);
    expect((await openCommit(dir, env, 'rel@x', refuse, noRepository)).commit).toBe(base);
    git('tag', 'rel@x', pr);
    await expect(openCommit(dir, env, 'rel@x', refuse, noRepository)).rejects.toThrow('is ambiguous: refs/heads/rel@x and refs/tags/rel@x both answer to it');
    expect((await openCommit(dir, env, 'refs/heads/rel@x@{0}', refuse, noRepository)).commit).toBe(base);
  });

  it('takes a full ref name and a full commit id as themselves, whatever tags exist', async () => {
    const { dir, env, base, pr } = await repositoryWithNamesakes();
    expect((await openCommit(dir, env, 'refs/remotes/origin/main', refuse, noRepository)).commit).toBe(base);
    expect((await openCommit(dir, env, 'refs/tags/origin/main', refuse, noRepository)).commit).toBe(pr);
    expect((await openCommit(dir, env, pr, refuse, noRepository)).commit).toBe(pr);
  });

  it('refuses a short commit id that a tag is named after', async () => {
    const { dir, env, pr } = await repositoryWithNamesakes();
    await expect(openCommit(dir, env, pr.slice(0, 7), refuse, noRepository)).rejects.toThrow(`is ambiguous: the object ${pr} and refs/tags/${pr.slice(0, 7)} both answer to it`);
  });

  it('takes a repository git refuses to open (its owner is another user) for no repository, not for a missing commit', async () => {
    const bin = await tempDir();
    // The answers of a git that refuses the repository: no folder of its own, the operator's filters listed all the same.
    await writeFile(path.join(bin, 'git'), `#!/bin/sh\ncase "$*" in *--get-regexp*) exit 1;; *--git-dir*) echo "fatal: detected dubious ownership" >&2; exit 128;; esac\nexec "${REAL_GIT}" "$@"\n`);
    await chmod(path.join(bin, 'git'), 0o755);
    const { dir, env } = await repositoryWithNamesakes();
    await expect(openCommit(dir, { ...env, PATH: `${bin}:${env.PATH}` }, 'refs/remotes/origin/main', refuse, noRepository)).rejects.toThrow('no repository');
  });
});
