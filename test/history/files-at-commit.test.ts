/**
 * filesAtCommit: which of a deploy's files a restored commit holds, as git answers, named as the
 * printed `git restore` names them; and gitRestoreCommand, the line made of them, pasted into a shell.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesAtCommit } from '../../src/history/files-at-commit.js';
import { gitRestoreCommand } from '../../src/cli/next-command.js';
import { useTempDirs } from '../helpers/cli.js';
import { terminalText } from '../../src/util/printable.js';

const tempDir = useTempDirs();

/** A repository in `project/` of a temp folder: a manifest, a prompt, and voxform's state, committed. */
async function repository() {
  const base = await tempDir({ 'project/voxform.yaml': 'v1\n', 'project/prompts/a b.md': 'v1\n', 'project/prompts/*': 'v1\n', 'project/.voxform/state.json': 'v1\n' });
  const dir = path.join(base, 'project');
  const env = { PATH: process.env.PATH ?? '', HOME: base, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env }).toString().trim();
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'v1');
  const file = (name: string) => path.join(dir, name);
  return { base, dir, env, git, file, commit: git('rev-parse', 'HEAD') };
}

describe('filesAtCommit', () => {
  it('the files the commit holds, from where the user is; a file new since is left out', async () => {
    const { dir, env, file, commit } = await repository();
    await writeFile(file('prompts/new.md'), 'v2\n');
    const files = [file('voxform.yaml'), file('prompts/a b.md'), file('prompts/new.md'), file('prompts/*')];
    expect(await filesAtCommit(dir, env, commit, files, dir)).toEqual({ held: ['voxform.yaml', 'prompts/a b.md', 'prompts/*'], given: ['voxform.yaml', 'prompts/a b.md', 'prompts/new.md', 'prompts/*'], gitFolder: undefined });
    expect((await filesAtCommit(dir, env, commit, files, file('prompts'))).held).toEqual(['../voxform.yaml', 'a b.md', '*']);
  });

  it('from outside the repository: paths from its root, with the folder for `git -C`; a file outside it is none of the commit\'s', async () => {
    const { base, dir, env, file, commit } = await repository();
    await writeFile(path.join(base, 'outside.md'), 'x\n');
    expect(await filesAtCommit(dir, env, commit, [file('voxform.yaml'), path.join(base, 'outside.md')], base)).toEqual({ held: ['voxform.yaml'], given: ['voxform.yaml'], gitFolder: 'project' });
  });

  it('unknown when git cannot answer: a commit not in this clone, no repository, a commit that is no full id', async () => {
    const { base, dir, env, file, commit } = await repository();
    const files = [file('voxform.yaml')];
    expect((await filesAtCommit(dir, env, 'f'.repeat(40), files, dir)).held).toBeUndefined();
    expect(await filesAtCommit(base, env, commit, [path.join(base, 'x.yaml')], base)).toEqual({ held: undefined, given: ['x.yaml'] });
    expect((await filesAtCommit(dir, env, '--all', files, dir)).held).toBeUndefined();
  });
});

describe('gitRestoreCommand', () => {
  it('pasted, puts back and commits those files alone: voxform\'s state, a staged change and a pattern-like name\'s neighbours stay', async () => {
    const { dir, env, git, file, commit } = await repository();
    await writeFile(file('prompts/other.md'), 'v1\n');
    git('add', '-A');
    git('commit', '-qm', 'other');
    for (const name of ['voxform.yaml', 'prompts/a b.md', 'prompts/*', 'prompts/other.md', '.voxform/state.json']) await writeFile(file(name), 'v2\n');
    git('commit', '-qam', 'v2');
    await writeFile(file('.voxform/state.json'), 'v3\n');
    await writeFile(file('README.md'), 'staged\n');
    git('add', 'README.md');

    const held = (await filesAtCommit(dir, env, commit, [file('voxform.yaml'), file('prompts/a b.md'), file('prompts/*')], dir)).held ?? [];
    const line = gitRestoreCommand(commit.slice(0, 12), held, "Return: it's kept", undefined);
    expect(line).toBe(`git restore --source=${commit.slice(0, 12)} -- voxform.yaml 'prompts/a b.md' ':(literal)prompts/*' && git commit -m 'Return: it'\\''s kept' -- voxform.yaml 'prompts/a b.md' ':(literal)prompts/*'`);
    const pasted = spawnSync('sh', ['-c', line], { cwd: dir, env, encoding: 'utf8' });
    expect(pasted.status, pasted.stderr).toBe(0);

    expect(git('show', '--name-only', '--format=%s', 'HEAD').split('\n').filter((line) => line !== '')).toEqual(["Return: it's kept", 'prompts/*', 'prompts/a b.md', 'voxform.yaml']);
    for (const name of ['voxform.yaml', 'prompts/a b.md', 'prompts/*']) expect(await readFile(file(name), 'utf8')).toBe('v1\n');
    expect(await readFile(file('prompts/other.md'), 'utf8')).toBe('v2\n');
    expect(await readFile(file('.voxform/state.json'), 'utf8')).toBe('v3\n');
    expect(git('diff', '--cached', '--name-only')).toBe('README.md');
  });

  it('names a file holding a control or invisible character in ANSI-C quotes: the printed line, escaped by no output rule, is the name bash reads', () => {
    const name = 'p/x\n\u001b[31mFORGED\u202e\u009b\t\'\\.md';
    const line = gitRestoreCommand('1c0a39b5e2d4', [name], 'm');
    const word = "$':(literal)p/x\\n\\033[31mFORGED\\342\\200\\256\\302\\233\t\\'\\\\.md'";
    expect(line).toBe(`git restore --source=1c0a39b5e2d4 -- ${word} && git commit -m m -- ${word}`);
    expect(terminalText(line, false)).toBe(line);
    const read = spawnSync('bash', ['-c', `printf %s ${word}`], { encoding: 'utf8' });
    expect(read.stdout).toBe(`:(literal)${name}`);
  });

  it("names a file holding `##[` (a CI log's workflow command) with its `[` escaped: printed as it is, bash reads the name", () => {
    const name = "p##[x it's.json";
    const line = gitRestoreCommand('1c0a39b5e2d4', [name], 'm');
    expect(terminalText(line, false)).toBe(line);
    const word = line.split(' -- ')[1]!.split(' && ')[0]!;
    expect(spawnSync('bash', ['-c', `printf %s ${word}`], { encoding: 'utf8' }).stdout).toBe(`:(literal)${name}`);
  });

  it('from outside the repository, both commands run in it with `git -C`', () => {
    expect(gitRestoreCommand('1c0a39b5e2d4', ['voxform.yaml'], 'm', 'my project')).toBe("git -C 'my project' restore --source=1c0a39b5e2d4 -- voxform.yaml && git -C 'my project' commit -m m -- voxform.yaml");
  });
});
