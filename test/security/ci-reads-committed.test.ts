/**
 * In a CI job, voxform reads only the files of the commit under review (docs/security.md §3): a file
 * a job's step wrote into the checkout (a `.env`, a cloud login's credentials) is the machine's, and
 * a manifest or test file naming it, or a committed link to it, must not get it quoted in the plan
 * comment or uploaded. Outside CI the work tree is the developer's own and is read as it is.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';
import { runCli, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { git, initRepository } from '../helpers/git.js';

const tempDir = useTempDirs();
const PLANTED = 'planted-ci-credential-5c2e91';
const CI = { CI: 'true' };

function manifest(agentConfig: string[], extra: string[] = []): string {
  return ['version: 1', 'agents:', '  front-desk:', '    id: -OKdqbqetEcM4ak369ym', '    name: Front desk', '    config:', ...agentConfig.map((line) => `      ${line}`), ...extra, ''].join('\n');
}

const TEST_FILE = ['agent: front-desk', 'tests:', '  - name: greets', '    turns:', '      - expect:', '          - contains: hello', ''].join('\n');

/** A project as a pull request commits it, then what a job's step writes beside it (`.env`, git-ignored). */
async function checkout(files: Record<string, string>, links: Record<string, string> = {}): Promise<string> {
  const project = await tempDir({ '.gitignore': '.env\n', ...files });
  for (const [link, target] of Object.entries(links)) {
    await mkdir(path.dirname(path.join(project, link)), { recursive: true });
    await symlink(target, path.join(project, link));
  }
  initRepository(project, 'pull request');
  await writeFile(path.join(project, '.env'), `API_TOKEN=${PLANTED}\n`);
  return project;
}

function output(result: { stdout: string; stderr: string }): string {
  return result.stdout + result.stderr;
}

describe('in a CI job, a file the commit does not hold is not read', () => {
  it('a prompt naming the .env a step wrote: refused in the plan comment, never quoted; read outside CI', async () => {
    const project = await checkout({ 'agents.yaml': manifest(['prompt: { file: .env }']) });
    const plan = await runCli(['plan', '--local', '--format', 'markdown'], { cwd: project, env: CI });
    expect(plan.code).toBe(1);
    expect(output(plan)).toContain('agents.yaml:7:23');
    expect(output(plan)).toContain('file_not_committed');
    expect(output(plan)).toContain('prompt file ".env" is not a file of the commit under review; commit it');
    expect(output(plan)).not.toContain(PLANTED);
    // The developer's own machine: the work tree is theirs, and the file reads as it is.
    const local = await runCliInProcess(['plan', '--local'], { cwd: project, env: {} });
    expect(local.code, local.stderr).toBe(0);
    expect(local.stdout).toContain(PLANTED);
  });

  it('a committed test file that is a link to the .env: refused by voxform test, never quoted', async () => {
    const project = await checkout({ 'agents.yaml': manifest(['prompt: Say hello.']) }, { 'tests/leak.test.yaml': '../.env' });
    const run = await runCliInProcess(['test', '--local'], { cwd: project, env: CI });
    expect(run.code).toBe(1);
    expect(output(run)).toContain('tests/leak.test.yaml is a symbolic link to .env, which is not a file of the commit under review');
    expect(output(run)).not.toContain(PLANTED);
  });

  it('a committed prompt a step rewrote is refused; one written again with the same bytes is read', async () => {
    const project = await checkout({ 'agents.yaml': manifest(['prompt: { file: prompts/front.md }']), 'prompts/front.md': 'Say hello.\n' });
    await writeFile(path.join(project, 'prompts/front.md'), 'Say hello.\n');
    const same = await runCliInProcess(['plan', '--local'], { cwd: project, env: CI });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain('Say hello.');
    await writeFile(path.join(project, 'prompts/front.md'), `Say hello. ${PLANTED}\n`);
    const changed = await runCliInProcess(['plan', '--local'], { cwd: project, env: CI });
    expect(changed.code).toBe(1);
    expect(output(changed)).toContain('prompt file "prompts/front.md" differs from the file the commit under review holds at its path');
    expect(output(changed)).not.toContain(PLANTED);
  });

  it('a file committed as a Git LFS pointer reads as the object it names, and as nothing else', async () => {
    const prompt = 'Say hello, from the large file store.\n';
    const pointer = (text: string) => `version https://git-lfs.github.com/spec/v1\noid sha256:${createHash('sha256').update(text).digest('hex')}\nsize ${Buffer.byteLength(text)}\n`;
    const project = await checkout({
      'agents.yaml': manifest(['prompt: { file: prompts/front.md }'], ['knowledge:', '  manual:', '    file: manual.txt', '    name: manual.txt']),
      'prompts/front.md': pointer(prompt),
      'manual.txt': pointer('The manual.\n'),
    });
    // What a checkout with LFS writes in place of each pointer.
    await writeFile(path.join(project, 'prompts/front.md'), prompt);
    await writeFile(path.join(project, 'manual.txt'), 'The manual.\n');
    const plan = await runCliInProcess(['plan', '--local'], { cwd: project, env: CI });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('from the large file store');
    await writeFile(path.join(project, 'manual.txt'), `The manual. ${PLANTED}\n`);
    const changed = await runCliInProcess(['plan', '--local'], { cwd: project, env: CI });
    expect(changed.code).toBe(1);
    expect(output(changed)).toContain('knowledge file "manual.txt" differs from the file the commit under review holds at its path');
  });

  it('a knowledge file naming the .env is refused before it is hashed or uploaded', async () => {
    const project = await checkout({ 'agents.yaml': manifest(['prompt: Say hello.'], ['knowledge:', '  notes:', '    file: .env', '    name: notes.txt']) });
    const plan = await runCliInProcess(['plan', '--local'], { cwd: project, env: CI });
    expect(plan.code).toBe(1);
    expect(output(plan)).toContain('knowledge file ".env" is not a file of the commit under review');
    const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env: CI });
    expect(apply.code).toBe(1);
    expect(output(apply)).toContain('file_not_committed');
  });

  it('a manifest a step wrote into a folder given with -f is refused at its name', async () => {
    const project = await checkout({ 'manifests/agents.yaml': manifest(['prompt: Say hello.']) });
    await writeFile(path.join(project, 'manifests/generated.yaml'), `agents:\n  ${PLANTED}: { id: x }\n`);
    const validate = await runCliInProcess(['validate', '-f', 'manifests'], { cwd: project, env: CI });
    expect(validate.code).toBe(1);
    expect(output(validate)).toContain('manifest manifests/generated.yaml is not a file of the commit under review');
    expect(output(validate)).not.toContain(PLANTED);
    const formatted = await runCliInProcess(['fmt', '--check', 'manifests'], { cwd: project, env: CI });
    expect(formatted.code).toBe(1);
    expect(output(formatted)).toContain('Cannot read manifests/generated.yaml: it is not a file of the commit under review');
    expect(output(formatted)).toContain('file_not_committed');
    expect(output(formatted)).not.toContain(PLANTED);
  });

  it('git that cannot be asked refuses the read: nothing vouches for the file, and the fix is to make git answer', async () => {
    const project = await checkout({ 'agents.yaml': manifest(['prompt: { file: prompts/front.md }']), 'prompts/front.md': 'Say hello.\n' });
    const plan = await runCliInProcess(['validate'], { cwd: project, env: { ...CI, PATH: '' } });
    expect(plan.code).toBe(1);
    expect(output(plan)).toContain('could not be checked against the commit under review (git could not be asked in ');
    expect(output(plan)).toContain('make git answer in the job: install it, and if the checkout belongs to another user');
    expect(output(plan)).toContain('safe.directory');
    expect(output(plan)).not.toContain('; commit it');
  });

  const RECEPTIONIST = ['--template', 'receptionist', '--var', 'business=Acme', '--var', 'business_description=a shop', '--var', 'opening_hours=9 to 5', '--var', 'transfer_number=+15551230000', '--var', 'agent_id=-OKdqbqetEcM4ak369ym'];

  it('init never lists what a committed manifest link to a step\'s file defines', async () => {
    const project = await checkout({ 'agents.yaml': manifest(['prompt: Say hello.']) }, { 'site/voxform.yaml': '../.env' });
    await writeFile(path.join(project, '.env'), `version: 1\nagents:\n  ${PLANTED}:\n    id: x\n`);
    const init = await runCliInProcess(['init', ...RECEPTIONIST, 'site'], { cwd: project, env: CI });
    expect(init.code).toBe(1);
    expect(output(init)).toContain('would_overwrite');
    expect(output(init)).not.toContain(PLANTED);
  });

  it('init and export never merge a step\'s file into the .gitignore a committed link names', async () => {
    const project = await checkout({ 'agents.yaml': manifest(['prompt: Say hello.']) }, { 'site/.gitignore': '../.env' });
    const init = await runCliInProcess(['init', ...RECEPTIONIST, 'site'], { cwd: project, env: CI });
    expect(init.code).toBe(1);
    expect(output(init)).toContain('cannot add its lines to .gitignore in site: it is a symbolic link to .env, which is not a file of the commit under review');
    expect(output(init)).not.toContain(PLANTED);
    const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env: CI });
    expect(apply.code, apply.stderr).toBe(0);
    const exported = await runCliInProcess(['export', '--agent', '-OKdqbqetEcM4ak369ym', '--local', '--out', 'site'], { cwd: project, env: CI });
    expect(exported.code).toBe(1);
    expect(output(exported)).toContain('is not a file of the commit under review');
    for (const name of await readdir(path.join(project, 'site'))) {
      const file = path.join(project, 'site', name);
      if ((await lstat(file)).isFile()) expect(await readFile(file, 'utf8')).not.toContain(PLANTED);
    }
  });

  it('fmt names a file the commit does not hold by its own code', async () => {
    const project = await checkout({ 'agents.yaml': manifest(['prompt: Say hello.']) });
    await writeFile(path.join(project, 'more.yaml'), 'version: 1\n');
    const formatted = await runCliInProcess(['fmt', '--check', 'more.yaml'], { cwd: project, env: CI });
    expect(formatted.code).toBe(1);
    expect(output(formatted)).toContain('file_not_committed');
    expect(output(formatted)).toContain('git status --ignored');
  });
});

describe('what a checkout writes for the commit is the commit\'s', () => {
  it('a text file checked out with CRLF line endings (eol=crlf) reads as the LF file committed', async () => {
    const project = await checkout({
      'agents.yaml': manifest(['prompt: { file: prompts/front.md }'], ['knowledge:', '  manual:', '    file: manual.txt', '    name: manual.txt']),
      'prompts/front.md': 'Say hello.\nThen help.\n',
      'manual.txt': 'The manual.\nPage two.\n',
      '.gitattributes': '*.md text eol=crlf\n*.txt text eol=crlf\n',
    });
    // What a checkout writes under those attributes: git converts each LF.
    await rm(path.join(project, 'prompts/front.md'));
    await rm(path.join(project, 'manual.txt'));
    git(project, 'checkout', '--', 'prompts/front.md', 'manual.txt');
    expect(await readFile(path.join(project, 'manual.txt'), 'utf8')).toBe('The manual.\r\nPage two.\r\n');
    const plan = await runCliInProcess(['plan', '--local'], { cwd: project, env: CI });
    expect(plan.code, plan.stderr).toBe(0);
    // Other bytes than the line endings are still not the commit's.
    await writeFile(path.join(project, 'manual.txt'), 'The manual.\r\nPage 2.\r\n');
    const changed = await runCliInProcess(['plan', '--local'], { cwd: project, env: CI });
    expect(changed.code).toBe(1);
    expect(output(changed)).toContain('knowledge file "manual.txt" differs from the file the commit under review holds at its path');
  });

  it('the templates voxform ships are its own, wherever it is installed in the checkout', async () => {
    const project = await checkout({ 'agents.yaml': ['version: 1', 'agents:', '  desk:', '    id: -OKdqbqetEcM4ak369ym', '    template: desk', '    vars: { business: Acme }', ''].join('\n') });
    const templates = path.join(project, 'node_modules/voxform/templates');
    await mkdir(path.join(templates, 'desk'), { recursive: true });
    await writeFile(path.join(templates, 'desk/template.yaml'), ['description: A front desk.', 'variables:', '  business: { description: The business name, required: true }', 'agent:', '  name: "{{business}} desk"', '  config:', '    prompt: { file: prompt.md }', ''].join('\n'));
    await writeFile(path.join(templates, 'desk/prompt.md'), 'Greet callers of {{business}}.\n');
    const loaded = await loadManifests({ paths: [], cwd: project, env: CI, templatesDir: templates });
    expect(loaded.diagnostics.filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);
    expect(loaded.state?.sourceFiles).toContain(path.join(templates, 'desk/prompt.md'));
  });
});

describe('what the operator says decides', () => {
  it('the files of the commit read as always in CI', async () => {
    const project = await checkout({ 'agents.yaml': manifest(['prompt: { file: prompts/front.md }']), 'prompts/front.md': 'Say hello.\n', 'tests/front.test.yaml': TEST_FILE });
    const plan = await runCliInProcess(['plan', '--local'], { cwd: project, env: CI });
    expect(plan.code, plan.stderr).toBe(0);
    const formatted = await runCliInProcess(['fmt', '--check'], { cwd: project, env: CI });
    expect(formatted.stderr).toContain('not in the canonical layout');
    expect(formatted.stderr).not.toContain('commit under review');
  });

  it.each([
    ['CI=false', { CI: 'false' }],
    ['CI=0', { CI: '0' }],
    ['VOXFORM_TRUST_UNCOMMITTED_FILES=1 in a CI job', { CI: 'true', VOXFORM_TRUST_UNCOMMITTED_FILES: '1' }],
  ])('%s: a file the job wrote is read', async (_name, env) => {
    const project = await checkout({ 'agents.yaml': manifest(['prompt: { file: prompts/front.md }']) });
    await mkdir(path.join(project, 'prompts'));
    await writeFile(path.join(project, 'prompts/front.md'), 'Built by a step.\n');
    const plan = await runCliInProcess(['plan', '--local'], { cwd: project, env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Built by a step.');
  });

  it('export checks the manifest it just wrote in a CI job too: its files are voxform\'s own', async () => {
    const project = await checkout({ 'agents.yaml': manifest(['prompt: Say hello.']) });
    const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env: CI });
    expect(apply.code, apply.stderr).toBe(0);
    const exported = await runCliInProcess(['export', '--agent', '-OKdqbqetEcM4ak369ym', '--local', '--out', 'exported'], { cwd: project, env: CI });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).not.toContain('does not load here');
  });

  it('a project in no git work tree has no commit to hold its files: read as it is', async () => {
    const project = await tempDir({ 'agents.yaml': manifest(['prompt: { file: prompts/front.md }']), 'prompts/front.md': 'Say hello.\n' });
    const plan = await runCliInProcess(['plan', '--local'], { cwd: project, env: CI });
    expect(plan.code, plan.stderr).toBe(0);
  });
});
