/**
 * The release workflow as a team lives it, in seeded order: prompt edits committed, staging and
 * production applied, staging promoted, agents edited in the dashboard (a greeting, or a webhook's
 * secret header), drift checked and healed, rollbacks. Whatever the order, what each step promises
 * holds: an apply or a promotion leaves nothing to plan; a promotion of a staging untouched since
 * its apply leaves no difference between the two; a dashboard edit is reported as changed outside
 * voxform until the environment is written again, and a heal leaves none; every step ends with its
 * result or a clear error; and no secret the run knows (the manifests' variables, the API key, a
 * header value set in the dashboard) is printed or left in a file of the project. The seed is in
 * the test name; VOXFORM_FUZZ_SEED repeats a run.
 */
import { appendFile, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/schema/types.gen.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import type { CliResult } from '../helpers/cli.js';
import { fuzzSeed } from '../helpers/fuzz-seed.js';
import { commitAll, git } from '../helpers/git.js';
import { callService, SECRETS, useExampleProjects, type ExampleProject } from '../helpers/project.js';

const SEED = fuzzSeed(20_261_204);
const ENVIRONMENTS = ['staging', 'production'] as const;
type Environment = (typeof ENVIRONMENTS)[number];
const AGENT_IDS: Record<Environment, Record<string, string>> = {
  staging: { 'front-desk': '-OKstagingFrontDesk01', booking: '-OKstagingBooking0001' },
  production: { 'front-desk': '-OKdqbqetEcM4ak369ym', booking: '-OKdqbqetEcM4ak369yn' },
};
const PROMPTS = ['example/prompts/front-desk.md', 'example/prompts/booking.md'];

const startProject = useExampleProjects();

/** One seeded run of the workflow, its steps and the invariants each must keep. */
class Workflow {
  private readonly draw: () => number;
  /**
   * Per environment, the agents changed in the dashboard since the environment was last written,
   * each with its greeting's path when the greeting was changed (else a header's value was).
   */
  private readonly editedOutside: Record<Environment, Map<string, string | undefined>> = { staging: new Map(), production: new Map() };
  /** Every secret of the run, a header value set in the dashboard too. */
  readonly secrets: string[];
  /** What the run did so far, one line a step: said with every failure. */
  readonly steps: string[] = [];
  /** Environments written by the last step, whose plan is checked after it. */
  readonly afterWrites: Environment[] = [];

  constructor(private readonly project: ExampleProject, seed: number) {
    this.draw = seededRandom(seed);
    this.secrets = [...Object.values(SECRETS), project.emulator.apiKey];
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.draw() * items.length)] as T;
  }

  /** Runs a command that must end with its result or a clear error, printing no secret. */
  private async run(args: string[], codes = [0, 1]): Promise<CliResult> {
    const result = await this.project.cliInProcess(args);
    const said = `${result.stdout}${result.stderr}`;
    this.steps.push(`${args.join(' ')} → ${result.code}${result.code === 1 ? ` ${/error\[(\w+)\]/.exec(said)?.[1] ?? ''}` : ''}`);
    const where = `${this.steps.join('\n')}\n${said}`;
    expect(codes, where).toContain(result.code);
    expect(said, where).not.toMatch(/internal_error|\n\s+at .+:\d+:\d+/);
    for (const secret of this.secrets) expect(said, where).not.toContain(secret);
    return result;
  }

  async edit(): Promise<void> {
    await appendFile(path.join(this.project.dir, this.pick(PROMPTS)), `Rule of step ${this.steps.length}.\n`);
    git(this.project.dir, 'commit', '-qam', `edit ${this.steps.length}`);
    this.steps.push('edit, commit');
  }

  /** An apply from the checkout: nothing in this workflow is one to refuse. */
  async apply(environment: Environment = this.pick(ENVIRONMENTS)): Promise<void> {
    await this.run(['apply', '--env', environment, '--auto-approve'], [0]);
    this.written(environment);
  }

  async promote(): Promise<void> {
    const stagingUntouched = this.editedOutside.staging.size === 0;
    if ((await this.run(['promote', '--to', 'production', '--auto-approve'])).code !== 0) return;
    this.written('production');
    if (!stagingUntouched) return;
    const diff = JSON.parse((await this.run(['diff', '--env', 'staging', '--env', 'production', '--format', 'json'], [0])).stdout) as { summary: { differences: number; unexpected: number } };
    expect(diff.summary, this.steps.join('\n')).toMatchObject({ differences: 0, unexpected: 0 });
  }

  /** Staging applied from this checkout, then promoted: the way a release goes. */
  async release(): Promise<void> {
    await this.apply('staging');
    await this.promote();
  }

  /** An agent's greeting, or its end-of-call webhook's secret header, changed in the dashboard. */
  async editInDashboard(): Promise<void> {
    const environment = this.pick(ENVIRONMENTS);
    const name = this.pick(Object.keys(AGENT_IDS[environment]));
    const agentPath = `/agents/${encodeURIComponent(AGENT_IDS[environment][name] as string)}`;
    const live = (await callService(this.project, 'GET', agentPath)) as Agent;
    const webhook = live.config.session_data_webhook;
    if (typeof webhook === 'object' && webhook !== null && this.draw() < 0.4) {
      const secret = `dashboard-secret-${this.steps.length}-7c1f`;
      this.secrets.push(secret);
      await callService(this.project, 'PUT', agentPath, { name: live.name, config: { session_data_webhook: { ...webhook, headers: { ...webhook.headers, 'x-hook-token': secret } } } });
      if (!this.editedOutside[environment].has(name)) this.editedOutside[environment].set(name, undefined);
      this.steps.push(`dashboard: a new header value for ${environment}'s ${name}`);
    } else {
      await callService(this.project, 'PUT', agentPath, { name: live.name, config: { first_message: `Hello from the dashboard (${this.steps.length})` } });
      this.editedOutside[environment].set(name, 'config.first_message');
      this.steps.push(`dashboard: a new greeting for ${environment}'s ${name}`);
    }
  }

  async drift(environment: Environment = this.pick(ENVIRONMENTS)): Promise<DriftReport> {
    const report = JSON.parse((await this.run(['drift', '--env', environment, '--format', 'json'], [0, 2])).stdout) as DriftReport;
    for (const [name, greeting] of this.editedOutside[environment]) {
      const fields = report.resources.find((resource) => resource.address === `agent.${name}`)?.fields ?? [];
      const changed = fields.filter((field) => (greeting === undefined || field.path === greeting) && ['outside', 'both'].includes(field.class));
      expect(changed, `${this.steps.join('\n')}\n${JSON.stringify(report.resources)}`).not.toEqual([]);
    }
    return report;
  }

  async heal(): Promise<void> {
    const environment = this.pick(ENVIRONMENTS);
    await this.run(['drift', '--env', environment, '--heal', '--auto-approve'], [0, 2]);
    this.editedOutside[environment].clear();
    const after = await this.drift(environment);
    expect(after.summary, this.steps.join('\n')).toMatchObject({ outside: 0, both: 0 });
  }

  async rollback(): Promise<void> {
    const environment = this.pick(ENVIRONMENTS);
    const commits = git(this.project.dir, 'log', '--format=%h').split('\n');
    const to = this.draw() < 0.5 ? 'previous' : this.pick(commits);
    if ((await this.run(['rollback', to, '--env', environment, '--auto-approve'])).code === 0) this.editedOutside[environment].clear();
  }

  async look(): Promise<void> {
    const environment = this.pick(ENVIRONMENTS);
    await this.run(this.pick([['history', '--env', environment], ['status'], ['diff', '--env', 'staging', '--env', 'production']]), [0, 1, 2]);
  }

  /** What was applied or promoted is what the manifests say: nothing to plan, nothing edited outside it since. */
  private written(environment: Environment): void {
    this.editedOutside[environment].clear();
    this.afterWrites.push(environment);
  }

  async planIsClean(environment: Environment): Promise<void> {
    await this.run(['plan', '--env', environment, '--detailed-exitcode'], [0]);
  }
}

interface DriftReport {
  summary: { outside: number; both: number };
  resources: Array<{ address: string; fields: Array<{ path: string; class: string }> }>;
}

/** The steps of a run, each kind as often as it says; the seed gives their order. */
const STEPS: Array<['edit' | 'apply' | 'promote' | 'release' | 'editInDashboard' | 'drift' | 'heal' | 'rollback' | 'look', number]> = [
  ['edit', 4],
  ['apply', 4],
  ['promote', 2],
  ['release', 4],
  ['editInDashboard', 6],
  ['drift', 3],
  ['heal', 3],
  ['rollback', 3],
  ['look', 1],
];

/** STEPS in a seeded order (Fisher–Yates). */
function stepsInOrder(seed: number): Array<(typeof STEPS)[number][0]> {
  const draw = seededRandom(seed);
  const steps = STEPS.flatMap(([name, count]) => Array.from({ length: count }, () => name));
  for (let i = steps.length - 1; i > 0; i--) {
    const j = Math.floor(draw() * (i + 1));
    [steps[i], steps[j]] = [steps[j] as (typeof steps)[number], steps[i] as (typeof steps)[number]];
  }
  return steps;
}

/** Every file of the project but git's objects, as text. */
async function projectFiles(dir: string): Promise<Array<{ file: string; text: string }>> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile() && !entry.parentPath.includes(`${path.sep}.git${path.sep}objects`));
  return Promise.all(files.map(async (entry) => ({ file: path.join(entry.parentPath, entry.name), text: await readFile(path.join(entry.parentPath, entry.name), 'latin1') })));
}

describe(`the release workflow in seeded order (seed ${SEED})`, () => {
  it('keeps every step\'s promise, and no secret reaches output or the project\'s files', async () => {
    const project = await startProject();
    await appendFile(path.join(project.dir, 'voxform.yaml'), '  production:\n    promote_from: staging\n');
    git(project.dir, 'init', '-q');
    commitAll(project.dir, 'agents');
    const workflow = new Workflow(project, SEED);
    await workflow.apply('production');
    await workflow.apply('staging');
    for (const step of stepsInOrder(SEED + 1)) {
      workflow.afterWrites.length = 0;
      await workflow[step]();
      for (const environment of workflow.afterWrites) await workflow.planIsClean(environment);
    }
    for (const { file, text } of await projectFiles(project.dir)) {
      for (const secret of workflow.secrets) expect(text, `${file} holds a secret`).not.toContain(secret);
    }
  });
});
