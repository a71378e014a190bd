/**
 * Files a manifest names stay inside the project: no absolute path, no `..` or symbolic link out
 * of it, regular files only, within a size cap. Each refusal is a diagnostic at the `file:` value,
 * and the refused file is never read: a planted value in it never shows up anywhere.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, symlink, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/index.js';
import { MAX_KNOWLEDGE_FILE_BYTES, MAX_MANIFEST_BYTES, MAX_PROMPT_BYTES_TOTAL, MAX_PROMPT_FILE_BYTES } from '../../src/project-files/limits.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { summarize } from '../manifest/helpers.js';

const tempDir = useTempDirs();
const PLANTED = 'planted-secret-7d1c9e0b5a';

function manifestWithPrompt(file: string): string {
  return `agents:\n  front-desk:\n    id: ag_1\n    config:\n      prompt: { file: ${JSON.stringify(file)} }\n`;
}

/** A project folder and, beside it (outside the project), a folder holding a planted secret. */
async function projectWithOutsideSecret(files: Record<string, string>): Promise<{ project: string; outside: string }> {
  const base = await tempDir({ 'outside/secret.md': `token=${PLANTED}\n` });
  const project = path.join(base, 'project');
  await mkdir(project);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(project, name)), { recursive: true });
    await writeFile(path.join(project, name), content);
  }
  return { project, outside: path.join(base, 'outside') };
}

async function load(cwd: string, paths: string[] = []) {
  const result = await loadManifests({ paths, cwd, env: {} });
  expect(JSON.stringify(result), 'a refused file must never be read').not.toContain(PLANTED);
  return result;
}

describe('files a manifest names must stay inside the project', () => {
  it('refuses an absolute path such as /proc/self/environ, at the file: value', async () => {
    const { project } = await projectWithOutsideSecret({ 'voxform.yaml': manifestWithPrompt('/proc/self/environ') });
    expect(summarize(await load(project))).toEqual([
      'voxform.yaml:5:23 file_outside_project prompt file "/proc/self/environ" is an absolute path; write it relative to the file that names it, inside the project: files a manifest names must be inside voxform.yaml/'.replace(
        'inside voxform.yaml/',
        `inside ${path.basename(project)}/`,
      ),
    ]);
  });

  it('refuses a ../ path that leaves the project, without listing the folder it points into', async () => {
    const { project } = await projectWithOutsideSecret({ 'voxform.yaml': manifestWithPrompt('../outside/secret.md') });
    const result = await load(project);
    expect(result.diagnostics.map((d) => [d.code, d.line, d.col])).toEqual([['file_outside_project', 5, 23]]);
    expect(result.diagnostics[0]?.message).toContain('is outside the project');
    // A missing file outside is "outside" too: no "did you mean" built from a listing of someone else's folder.
    const missing = await projectWithOutsideSecret({ 'voxform.yaml': manifestWithPrompt('../outside/secre.md') });
    expect((await load(missing.project)).diagnostics.map((d) => d.code)).toEqual(['file_outside_project']);
  });

  it('refuses a symbolic link that leads outside the project', async () => {
    const { project, outside } = await projectWithOutsideSecret({ 'voxform.yaml': manifestWithPrompt('prompts/front.md') });
    await mkdir(path.join(project, 'prompts'));
    await symlink(path.join(outside, 'secret.md'), path.join(project, 'prompts/front.md'));
    const result = await load(project);
    expect(summarize(result)).toEqual([
      `voxform.yaml:5:23 file_outside_project prompt file "prompts/front.md" is a symbolic link leading outside the project: files a manifest names must be inside ${path.basename(project)}/`,
    ]);
  });

  it('refuses every file of a folder that is a symbolic link leading outside, and a linked file beside plain ones', async () => {
    const manifest = ['agents:']
      .concat(['a', 'b'].map((name) => `  ${name}:\n    id: ag_${name}\n    config:\n      prompt: { file: linked/secret.md }`))
      .concat(['c', 'd'].map((name) => `  ${name}:\n    id: ag_${name}\n    config:\n      prompt: { file: prompts/${name}.md }`))
      .join('\n');
    const { project, outside } = await projectWithOutsideSecret({ 'voxform.yaml': `${manifest}\n`, 'prompts/c.md': 'Be kind.\n' });
    // A folder linked out of the project (its real path is looked up once per load, then reused),
    await symlink(outside, path.join(project, 'linked'));
    // and, in a folder whose other file is plain, a file linked out of it.
    await symlink(path.join(outside, 'secret.md'), path.join(project, 'prompts/d.md'));
    const result = await load(project);
    expect(result.diagnostics.map((d) => [d.code, d.line, d.message.includes('symbolic link')])).toEqual([
      ['file_outside_project', 5, true],
      ['file_outside_project', 9, true],
      ['file_outside_project', 17, true],
    ]);
  });

  it('follows a symbolic link that stays inside the project', async () => {
    const { project } = await projectWithOutsideSecret({ 'voxform.yaml': manifestWithPrompt('prompts/front.md'), 'common/front.md': 'Be kind.\n' });
    await mkdir(path.join(project, 'prompts'));
    await symlink('../common/front.md', path.join(project, 'prompts/front.md'));
    const result = await load(project);
    expect(summarize(result)).toEqual([]);
    expect(result.state?.agents.get('front-desk')?.config.prompt).toBe('Be kind.');
  });

  it('takes the git work tree as the root, so a manifest in a subfolder may name ../prompts', async () => {
    const { project } = await projectWithOutsideSecret({ 'config/agents.yaml': manifestWithPrompt('../prompts/front.md'), 'prompts/front.md': 'Hello.\n' });
    await mkdir(path.join(project, '.git'));
    const result = await load(path.join(project, 'config'), ['agents.yaml']);
    expect(summarize(result)).toEqual([]);
    // Without a work tree and run from the subfolder, the root is that folder: ../prompts is outside.
    const bare = await projectWithOutsideSecret({ 'config/agents.yaml': manifestWithPrompt('../prompts/front.md'), 'prompts/front.md': 'Hello.\n' });
    expect((await load(path.join(bare.project, 'config'), ['agents.yaml'])).diagnostics.map((d) => d.code)).toEqual(['file_outside_project']);
  });

  it('refuses a FIFO without opening it (opening one would hang)', async () => {
    const { project } = await projectWithOutsideSecret({ 'voxform.yaml': manifestWithPrompt('prompts/pipe.md') });
    await mkdir(path.join(project, 'prompts'));
    execFileSync('mkfifo', [path.join(project, 'prompts/pipe.md')]);
    expect(summarize(await load(project))).toEqual(['voxform.yaml:5:23 file_not_regular prompt file "prompts/pipe.md" is a FIFO (named pipe), not a regular file']);
  });

  it('refuses /dev/zero however it is named', async () => {
    const { project } = await projectWithOutsideSecret({ 'voxform.yaml': manifestWithPrompt('zero.md') });
    await symlink('/dev/zero', path.join(project, 'zero.md'));
    expect((await load(project)).diagnostics.map((d) => d.code)).toEqual(['file_outside_project']);
    await writeFile(path.join(project, 'voxform.yaml'), manifestWithPrompt('/dev/zero'));
    expect((await load(project)).diagnostics.map((d) => d.code)).toEqual(['file_outside_project']);
  });

  it('refuses a prompt file over its size limit', async () => {
    const { project } = await projectWithOutsideSecret({ 'voxform.yaml': manifestWithPrompt('big.md') });
    await writeFile(path.join(project, 'big.md'), 'x'.repeat(MAX_PROMPT_FILE_BYTES + 1));
    expect(summarize(await load(project))).toEqual(['voxform.yaml:5:23 file_too_large prompt file "big.md" is 2,097,153 bytes; the limit is 2 MiB (2,097,152 bytes)']);
  });

  it('refuses prompt files that together pass the budget of one load', async () => {
    const count = MAX_PROMPT_BYTES_TOTAL / MAX_PROMPT_FILE_BYTES + 1;
    const agents = Array.from({ length: count }, (_, i) => `  a${i}:\n    id: ag_${i}\n    config:\n      prompt: { file: p${i}.md }\n`).join('');
    const { project } = await projectWithOutsideSecret({ 'voxform.yaml': `agents:\n${agents}` });
    // Each as large as the per-file cap allows, of text (a file of NUL bytes is not text).
    const text = 'x'.repeat(MAX_PROMPT_FILE_BYTES);
    for (let i = 0; i < count; i++) await writeFile(path.join(project, `p${i}.md`), text);
    const result = await load(project);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['file_too_large']);
    expect(result.diagnostics[0]?.message).toMatch(/^prompt file "p\d+\.md" would take the prompt files of this manifest past 32 MiB together; that is the limit$/);
  });

  it('applies the same rules to knowledge files, with the upload limit as the size cap', async () => {
    const { project, outside } = await projectWithOutsideSecret({
      'voxform.yaml': 'knowledge:\n  faq: { file: docs/faq.md }\n  big: { file: docs/big.pdf }\n  abs: { file: /etc/hostname }\n',
    });
    await mkdir(path.join(project, 'docs'));
    await symlink(path.join(outside, 'secret.md'), path.join(project, 'docs/faq.md'));
    // Sparse: as large as the cap says, without writing 50 MiB.
    await writeFile(path.join(project, 'docs/big.pdf'), '');
    await truncate(path.join(project, 'docs/big.pdf'), MAX_KNOWLEDGE_FILE_BYTES + 1);
    const result = await load(project);
    expect(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.code}`)).toEqual(['2:16 file_outside_project', '3:16 file_too_large', '4:16 file_outside_project']);
  });

  it('keeps a template to its own folder', async () => {
    const dir = await tempDir({
      'voxform.yaml': 'agents:\n  front-desk:\n    id: ag_1\n    template: sneaky\n',
      'templates/sneaky/template.yaml': 'description: Reads a file beside it.\nagent:\n  config:\n    prompt: { file: ../../secret.md }\n',
      'secret.md': `token=${PLANTED}\n`,
    });
    const result = await loadManifests({ paths: [], cwd: dir, env: {}, templatesDir: path.join(dir, 'templates') });
    expect(JSON.stringify(result)).not.toContain(PLANTED);
    expect(summarize(result)).toEqual([
      'templates/sneaky/template.yaml:4:21 file_outside_project prompt file "../../secret.md" is outside the project: files a manifest names must be inside templates/sneaky/',
    ]);
  });

  it('refuses a manifest that is a link out of the project, at its first line', async () => {
    const { project, outside } = await projectWithOutsideSecret({});
    await symlink(path.join(outside, 'secret.md'), path.join(project, 'voxform.yaml'));
    expect(summarize(await load(project))).toEqual(['voxform.yaml:1:1 file_outside_project manifest voxform.yaml is a symbolic link leading outside the project']);
  });

  it.each([
    ['a FIFO', (file: string) => void execFileSync('mkfifo', [file]), 'file_not_regular manifest voxform.yaml is a FIFO (named pipe), not a regular file'],
    ['a link to /dev/zero', (file: string) => symlink('/dev/zero', file), 'file_outside_project manifest voxform.yaml is a symbolic link leading outside the project'],
  ])('takes a default voxform.yaml that is %s for the manifest, and refuses it at its name', async (_name, make, expected) => {
    const { project } = await projectWithOutsideSecret({ 'agents.yaml': 'agents:\n  desk: { id: ag_1 }\n' });
    await make(path.join(project, 'voxform.yaml'));
    expect(summarize(await load(project))).toEqual([`voxform.yaml:1:1 ${expected}`]);
  });

  it('refuses a manifest over the document size limit', async () => {
    const { project } = await projectWithOutsideSecret({});
    await writeFile(path.join(project, 'voxform.yaml'), `# ${'x'.repeat(MAX_MANIFEST_BYTES)}\n`);
    expect(summarize(await load(project))).toEqual(['voxform.yaml:1:1 file_too_large manifest voxform.yaml is 8,388,611 bytes; the limit is 8 MiB (8,388,608 bytes); split it into several files in a folder, which `-f FOLDER` reads as one manifest']);
  });
});

describe('the project root is found from the path as written, not from where a link leads', () => {
  /** A project holding `manifests`, a committed link to a folder outside it with a manifest that quotes the planted value. */
  async function linkedManifests(options: { git: boolean; outsideIsRepository?: boolean }): Promise<string> {
    const { project, outside } = await projectWithOutsideSecret({ 'voxform.yaml': 'agents:\n  desk: { id: ag_1 }\n' });
    await writeFile(path.join(outside, 'settings.yaml'), `database:\n  password: ${PLANTED}\n`);
    if (options.git) await mkdir(path.join(project, '.git'));
    if (options.outsideIsRepository === true) await mkdir(path.join(outside, '.git'));
    await symlink(outside, path.join(project, 'manifests'));
    return project;
  }

  it.each([
    ['a folder linked out of a git work tree', { git: true }, ['-f', 'manifests']],
    ['a folder linked out of a folder in no work tree', { git: false }, ['-f', 'manifests']],
    ['a file through a folder linked out', { git: true }, ['-f', 'manifests/settings.yaml']],
    ['a folder linked to another git work tree', { git: true, outsideIsRepository: true }, ['-f', 'manifests']],
  ])('validate refuses %s without quoting it', async (_name, options, args) => {
    const project = await linkedManifests(options);
    const result = await runCliInProcess(['validate', ...args], { cwd: project });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${args[1]}:1:1  error[file_outside_project]: manifest ${args[1]} is a symbolic link leading outside the project`);
    expect(result.stdout + result.stderr).not.toContain(PLANTED);
  });

  it('refuses each *.yaml of a folder that is no regular file or leads out, as if named, in validate and fmt alike', async () => {
    const base = await tempDir({
      'outside/out.yaml': `x-secret: ${PLANTED}\n`,
      'project/.git/HEAD': 'ref: refs/heads/main\n',
      'project/m/a.yaml': 'version: 1\nagents:\n  front-desk:\n    id: ag_1\n    name: Front desk\n',
    });
    const project = path.join(base, 'project');
    execFileSync('mkfifo', [path.join(project, 'm/fifo.yaml')]);
    await symlink('/dev/zero', path.join(project, 'm/zero.yaml'));
    await symlink(path.join(base, 'outside/out.yaml'), path.join(project, 'm/out.yaml'));
    const validate = await runCliInProcess(['validate', '-f', 'm'], { cwd: project });
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain('m/fifo.yaml:1:1  error[file_not_regular]: manifest m/fifo.yaml is a FIFO (named pipe), not a regular file');
    expect(validate.stderr).toContain('m/out.yaml:1:1  error[file_outside_project]: manifest m/out.yaml is a symbolic link leading outside the project');
    expect(validate.stderr).toContain('m/zero.yaml:1:1  error[file_outside_project]: manifest m/zero.yaml is a symbolic link leading outside the project');
    expect(validate.stderr).toContain('3 errors in 3 files');
    const named = await runCliInProcess(['fmt', '--check', 'm/a.yaml', 'm/fifo.yaml', 'm/out.yaml', 'm/zero.yaml'], { cwd: project });
    const folder = await runCliInProcess(['fmt', '--check', 'm'], { cwd: project });
    expect(folder).toMatchObject({ code: 1, stdout: named.stdout, stderr: named.stderr });
    expect(folder.stderr.match(/error\[file_unreadable\]/g)).toHaveLength(3);
    expect(validate.stdout + validate.stderr + folder.stdout + folder.stderr).not.toContain(PLANTED);
  });

  it('ci run --command plan puts nothing of a folder linked out on the job summary', async () => {
    const project = await linkedManifests({ git: true });
    const summary = path.join(project, 'summary.md');
    await writeFile(summary, '');
    const result = await runCliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--command-args', '--local', '-f', 'manifests'], {
      cwd: project,
      env: { GITHUB_ACTIONS: 'true', GITHUB_REF: 'refs/heads/main', GITHUB_STEP_SUMMARY: summary },
    });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr + (await readFile(summary, 'utf8'))).not.toContain(PLANTED);
    expect(await readFile(summary, 'utf8')).toContain('file_outside_project');
  });

  it('keeps working for a project reached through a linked parent folder', async () => {
    const base = await tempDir({ 'real/project/voxform.yaml': manifestWithPrompt('prompts/front.md'), 'real/project/prompts/front.md': 'Be kind.\n' });
    await mkdir(path.join(base, 'real/project/.git'));
    await symlink(path.join(base, 'real'), path.join(base, 'linked'));
    const project = path.join(base, 'linked/project');
    expect(summarize(await load(project))).toEqual([]);
    expect(summarize(await load(base, ['linked/project/voxform.yaml']))).toEqual([]);
  });
});

describe('the pull-request comment cannot carry a file from outside the project', () => {
  it('plan --format markdown with prompt: { file: /proc/self/environ } prints a diagnostic, not the environment', async () => {
    const { project } = await projectWithOutsideSecret({ 'voxform.yaml': manifestWithPrompt('/proc/self/environ') });
    const result = await runCliInProcess(['plan', '--format', 'markdown', '--local'], { cwd: project, env: { CI_SECRET: PLANTED } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('voxform.yaml:5:23');
    expect(result.stderr).toContain('is an absolute path');
    expect(result.stdout + result.stderr).not.toContain(PLANTED);
    expect(result.stderr).not.toContain('unexpected problem');
  });

  it('plan --format markdown with a prompt linked to a file outside prints a diagnostic, not the file', async () => {
    const { project, outside } = await projectWithOutsideSecret({ 'voxform.yaml': manifestWithPrompt('prompt.md') });
    await symlink(path.join(outside, 'secret.md'), path.join(project, 'prompt.md'));
    const result = await runCliInProcess(['plan', '--format', 'markdown', '--local'], { cwd: project });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('voxform.yaml:5:23');
    expect(result.stdout + result.stderr).not.toContain(PLANTED);
  });
});

describe("the repository's .git and voxform's .voxform hold no file a manifest may name", () => {
  /** A git work tree whose `.git/config` holds a job token, as actions/checkout writes it. */
  async function checkout(files: Record<string, string>): Promise<string> {
    const { project } = await projectWithOutsideSecret(files);
    await mkdir(path.join(project, '.git'));
    await writeFile(path.join(project, '.git/config'), `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${PLANTED}\n`);
    await mkdir(path.join(project, '.voxform'));
    await writeFile(path.join(project, '.voxform/local.json'), `{"keys": "${PLANTED}"}\n`);
    return project;
  }

  it('plan --format markdown with prompt: { file: .git/config } prints a diagnostic at the path, not the token', async () => {
    const project = await checkout({ 'voxform.yaml': manifestWithPrompt('.git/config') });
    const result = await runCliInProcess(['plan', '--format', 'markdown', '--local'], { cwd: project });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`voxform.yaml:5:23  error[file_outside_project]: prompt file ".git/config" is inside .git, git's own folder (its config can hold the CI job's token): voxform reads no file there`);
    expect(result.stdout + result.stderr).not.toContain(PLANTED);
  });

  it.each([
    ['a prompt in .git', manifestWithPrompt('.git/config'), 'voxform.yaml:5:23 file_outside_project prompt file ".git/config" is inside .git'],
    ['a prompt that is a link into .git', manifestWithPrompt('prompts/linked.md'), 'voxform.yaml:5:23 file_outside_project prompt file "prompts/linked.md" is a symbolic link into .git'],
    ['a prompt in .voxform', manifestWithPrompt('.voxform/local.json'), 'voxform.yaml:5:23 file_outside_project prompt file ".voxform/local.json" is inside .voxform'],
    ['a knowledge file in .git', 'knowledge:\n  k: { file: .git/config }\n', 'voxform.yaml:2:14 file_outside_project knowledge file ".git/config" is inside .git'],
    ['a missing file in .git (no suggestion from it)', manifestWithPrompt('.git/confi'), 'voxform.yaml:5:23 file_outside_project prompt file ".git/confi" is inside .git'],
  ])('refuses %s, at the reference, without reading it', async (_name, manifest, expected) => {
    const project = await checkout({ 'voxform.yaml': manifest });
    await mkdir(path.join(project, 'prompts'));
    await symlink('../.git/config', path.join(project, 'prompts/linked.md'));
    const lines = summarize(await load(project));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });

  it('refuses a conversation test file in .git', async () => {
    const project = await checkout({ 'voxform.yaml': 'agents:\n  desk: { id: ag_1 }\n' });
    await writeFile(path.join(project, '.git/a.test.yaml'), `agent: desk\ntests: [{ name: "${PLANTED}", turns: [{ expect: [{ contains: x }] }] }]\n`);
    const result = await runCliInProcess(['test', '.git/a.test.yaml', '--local'], { cwd: project });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('.git/a.test.yaml is inside .git');
    expect(result.stdout + result.stderr).not.toContain(PLANTED);
  });
});
