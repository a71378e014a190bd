/**
 * `voxform ci run` end to end: the real CLI against the emulator, reporting to a local fake of
 * GitHub's and GitLab's REST APIs (test/helpers/fake-code-host.ts). One comment per kind and
 * environment, created and then edited in place; nobody else's comment touched, even one carrying
 * voxform's marker, nor voxform's own comment of another environment; labels; the job summary; the
 * apply's result on the review that merged the commit; and the token nowhere in what was written.
 * Each test runs the CLI several times in a row: more room than one run needs.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoedForms } from '../../src/secrets/redact.js';
import { startFakeCodeHost, type FakeCodeHost } from '../helpers/fake-code-host.js';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';

const GITHUB_TOKEN = 'ghs_planted-actions-token-5e1f0c';
const GITLAB_TOKEN = 'glpat-planted-project-token-9a7b';
const GITHUB_TOKEN_NAMELESS = 'ghp_planted-nameless-token-71c2';
const GITLAB_TOKEN_NAMELESS = 'glpat-planted-nameless-token-3e8f';
const MERGE_COMMIT = 'a'.repeat(40);
const BOT = 'github-actions[bot]';

let project: ExampleProject;
let fake: FakeCodeHost;
let work: string;

beforeAll(async () => {
  project = await startExampleProject();
  fake = await startFakeCodeHost();
  fake.tokens.set(GITHUB_TOKEN, undefined);
  fake.tokens.set(GITLAB_TOKEN, 'voxform-bot');
  work = await mkdtemp(path.join(tmpdir(), 'voxform-ci-'));
  await writeFile(path.join(project.dir, 'failing.test.yaml'), 'agent: front-desk\ntests:\n  - name: says a word it never says\n    turns:\n      - expect: [{ contains: never said by the agent }]\n');
});

afterAll(async () => {
  await fake.close();
  await project.close();
  await rm(work, { recursive: true, force: true });
});

function github(extra: Record<string, string> = {}): Record<string, string> {
  return {
    GITHUB_ACTIONS: 'true',
    GITHUB_API_URL: fake.url,
    GITHUB_SERVER_URL: 'https://github.example',
    GITHUB_REPOSITORY: 'acme/agents',
    GITHUB_RUN_ID: '4242',
    GITHUB_REF: 'refs/pull/7/merge',
    GITHUB_SHA: 'b'.repeat(40),
    GITHUB_TOKEN,
    GITHUB_STEP_SUMMARY: path.join(work, 'summary.md'),
    ...extra,
  };
}

function gitlab(extra: Record<string, string> = {}): Record<string, string> {
  return {
    GITLAB_CI: 'true',
    CI_API_V4_URL: `${fake.url}/api/v4`,
    CI_PROJECT_ID: '99',
    CI_MERGE_REQUEST_IID: '5',
    CI_COMMIT_SHA: 'c'.repeat(40),
    CI_JOB_URL: 'https://gitlab.example/acme/agents/-/jobs/77',
    GITLAB_TOKEN,
    CI_JOB_TOKEN: 'planted-job-token-3d2c1b',
    ...extra,
  };
}

/** Every place a token might surface: what the CLI printed, the comments, the summary. */
async function expectNoToken(texts: string[]): Promise<void> {
  const summary = await readFile(path.join(work, 'summary.md'), 'utf8').catch(() => '');
  const all = [...texts, summary, ...fake.comments.map((comment) => comment.body)].join('\n');
  for (const token of [GITHUB_TOKEN, GITLAB_TOKEN, GITHUB_TOKEN_NAMELESS, GITLAB_TOKEN_NAMELESS, 'planted-job-token-3d2c1b']) for (const form of echoedForms(token)) expect(all).not.toContain(form);
}

describe('voxform ci run on GitHub', () => {
  it('plan: one comment for the environment, created then edited in place; others untouched; labels and summary', async () => {
    // Before: enough comments to need a second page, a reviewer's comment that pastes voxform's
    // marker for staging, and voxform's own comment for production.
    for (let i = 0; i < 120; i++) fake.addComment(7, 'carol', `comment ${i}`);
    const pasted = fake.addComment(7, 'alice', '<!-- voxform:plan:env=staging -->\n<!-- voxform:status=no-changes -->\nI pasted this');
    const production = fake.addComment(7, BOT, '<!-- voxform:plan:env=production -->\n<!-- voxform:status=no-changes -->\n**voxform plan:** no changes');
    const before = fake.comments.map((comment) => ({ ...comment }));

    const first = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging'], github());
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('voxform ci: comment created on pull request #7; labels +voxform:changes -voxform:no-changes; job summary written.');
    const created = fake.comments.filter((comment) => comment.author === BOT && comment.body.startsWith('<!-- voxform:plan:env=staging -->'));
    expect(created).toHaveLength(1);
    const comment = created[0]!;
    expect(comment.body.split('\n').slice(0, 3)).toEqual(['<!-- voxform:plan:env=staging -->', '<!-- voxform:status=changes -->', expect.stringMatching(/^### voxform plan \(`staging`\): 3 to create, 4 to update/)]);
    expect(comment.body).toContain('_Saved plan: artifact `voxform-plan-staging` of [this run](https://github.example/acme/agents/actions/runs/4242); `voxform plan show plan.json` prints it whole._');
    expect(comment.body.length).toBeLessThanOrEqual(65_536);
    expect(fake.labelsOf(7)).toEqual(['voxform:changes']);
    expect(await readFile(path.join(work, 'summary.md'), 'utf8')).toContain('### voxform plan (`staging`)');

    const second = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging'], github());
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('comment updated on pull request #7');
    expect(fake.comments.filter((c) => c.author === BOT && c.body.startsWith('<!-- voxform:plan:env=staging -->'))).toEqual([{ ...comment, edits: 1, body: expect.any(String) }]);
    // Nobody else's comment, and no other environment's, was edited: not even the pasted marker.
    for (const old of before) expect(fake.comments.find((c) => c.id === old.id)).toEqual(old);
    expect(pasted.edits + production.edits).toBe(0);
    const writes = fake.requests.filter((request) => request.method === 'PATCH');
    expect(writes.map((request) => request.path)).toEqual([`/repos/acme/agents/issues/comments/${comment.id}`]);
    await expectNoToken([first.stdout, first.stderr, second.stdout, second.stderr]);
  }, 120_000);

  it('test: a failing test sets voxform:tests-failing, a passing run takes it off; the results are in the summary', async () => {
    const failing = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'test', '--env', 'staging', '--command-args', 'failing.test.yaml --skip-judge'], github());
    expect(failing.code, failing.stderr).toBe(1);
    expect(failing.stderr).toContain('voxform ci: comment created on pull request #7; labels +voxform:tests-failing; job summary written.');
    const comment = fake.comments.find((c) => c.author === BOT && c.body.startsWith('<!-- voxform:test:env=staging -->'))!;
    expect(comment.body).toContain('<!-- voxform:status=failing -->\n### voxform test (`staging`):');
    expect(comment.body).toContain('says a word it never says');
    expect(fake.labelsOf(7)).toEqual(['voxform:changes', 'voxform:tests-failing']);
    expect(await readFile(path.join(work, 'summary.md'), 'utf8')).toContain('says a word it never says');

    const passing = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'test', '--env', 'staging', '--command-args', 'example/tests/booking.test.yaml --skip-judge'], github());
    expect(passing.code, passing.stdout + passing.stderr).toBe(0);
    expect(passing.stderr).toContain('comment updated on pull request #7; labels -voxform:tests-failing');
    expect(fake.labelsOf(7)).toEqual(['voxform:changes']);
    expect(fake.comments.filter((c) => c.body.startsWith('<!-- voxform:test:env=staging -->'))).toHaveLength(1);
  }, 120_000);

  it('apply on main: the result is posted to the pull request that merged the commit, beside the plan', async () => {
    fake.merged.set(MERGE_COMMIT, 7);
    const apply = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'apply', '--env', 'staging'], github({ GITHUB_REF: 'refs/heads/main', GITHUB_SHA: MERGE_COMMIT }));
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toContain('voxform ci: comment created on pull request #7; job summary written.');
    const comment = fake.comments.find((c) => c.body.startsWith('<!-- voxform:apply:env=staging -->'))!;
    expect(comment.author).toBe(BOT);
    expect(comment.body.split('\n').slice(0, 5)).toEqual([
      '<!-- voxform:apply:env=staging -->',
      '<!-- voxform:status=applied -->',
      '### voxform apply (`staging`): ✅ applied',
      '',
      '[this run](https://github.example/acme/agents/actions/runs/4242) applied the reviewed plan.',
    ]);
    expect(comment.body).toContain('<details><summary>The reviewed plan</summary>');
    // The plan's comment stays as it was: the apply has its own.
    expect(fake.comments.filter((c) => c.author === BOT && c.review === 7).map((c) => c.body.split('\n', 1)[0])).toEqual([
      '<!-- voxform:plan:env=production -->',
      '<!-- voxform:plan:env=staging -->',
      '<!-- voxform:test:env=staging -->',
      '<!-- voxform:apply:env=staging -->',
    ]);
    // The deploy's record names the pull request too, though the push to main's variables do not: report names versions by it.
    const history = JSON.parse((await project.cliInProcess(['history', '--env', 'staging', '--format', 'json', '--limit', '1'])).stdout) as { records: Array<{ source: Record<string, unknown> }> };
    expect(history.records[0]?.source).toMatchObject({ commit: MERGE_COMMIT, pull_request: 7 });
    await expectNoToken([apply.stdout, apply.stderr]);
  }, 120_000);

  it('drift on a pull request: its output is a comment of its own, beside the plan', async () => {
    const drift = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'drift', '--env', 'staging'], github({ GITHUB_REF: 'refs/pull/11/merge' }));
    expect([0, 2], drift.stderr).toContain(drift.code);
    expect(drift.stderr).toContain('voxform ci: comment created on pull request #11; job summary written.');
    const comment = fake.comments.find((c) => c.review === 11 && c.body.startsWith('<!-- voxform:drift:env=staging -->'))!;
    expect(comment.author).toBe(BOT);
    expect(comment.body).toContain('### voxform drift');
    expect(fake.labelsOf(11)).toEqual([]);
  }, 120_000);

  it("a GitHub App's installation token (GET /user refuses it): its own comment is found by its bot login and edited, another bot's marker is not", async () => {
    const APP_TOKEN = 'ghs_planted-app-installation-token-4d1a';
    fake.tokens.set(APP_TOKEN, 'voxform-app[bot]');
    const other = fake.addComment(12, 'other-app[bot]', '<!-- voxform:plan:env=staging -->\n<!-- voxform:status=no-changes -->\nanother app');
    for (const expected of ['comment created on pull request #12', 'comment updated on pull request #12']) {
      const plan = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging', '--out-dir', 'app-plan'], github({ GITHUB_TOKEN: APP_TOKEN, GITHUB_REF: 'refs/pull/12/merge' }));
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stderr).toContain(expected);
      expect(plan.stdout + plan.stderr).not.toContain(APP_TOKEN);
    }
    expect(fake.comments.filter((c) => c.review === 12).map((c) => [c.author, c.edits])).toEqual([['other-app[bot]', 0], ['voxform-app[bot]', 1]]);
    expect(other.body).toContain('another app');
  }, 120_000);

  it('outside a pull request: the summary only, and no token needed', async () => {
    const before = fake.requests.length;
    const plan = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging', '--out-dir', 'main-plan'], github({ GITHUB_REF: 'refs/heads/main', GITHUB_TOKEN: '' }));
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toContain('voxform ci: no pull or merge request to comment on; job summary written.');
    expect(fake.requests.length).toBe(before);
  }, 120_000);

  it('a review to comment on without a token: ci_token_missing, before the command runs', async () => {
    const plan = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging'], github({ GITHUB_TOKEN: '' }));
    expect(plan.code).toBe(1);
    expect(plan.stderr.startsWith('error[ci_token_missing]: GITHUB_TOKEN is not set: voxform ci needs it to comment on the review and set its labels.'), plan.stderr).toBe(true);
    expect(plan.stdout).toBe('');
  }, 120_000);
});

describe('voxform ci run when something fails', () => {
  const summary = () => readFile(path.join(work, 'summary.md'), 'utf8').catch(() => '');

  it('a plan that breaks mandatory policy: the comment and summary show the finding and the error, as the log does', async () => {
    const manifest = await readFile(path.join(project.dir, 'voxform.yaml'), 'utf8');
    await writeFile(path.join(project.dir, 'phone.yaml'), manifest.replace('How can I help you today?', 'How can I help you today? Or call 555-201-3344.'));
    await rm(path.join(work, 'summary.md'), { force: true });
    const plan = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging', '-f', 'phone.yaml', '--out-dir', 'policy-plan'], github({ GITHUB_REF: 'refs/pull/8/merge' }));
    expect(plan.code).toBe(1);
    const comment = fake.comments.find((c) => c.review === 8 && c.body.startsWith('<!-- voxform:plan:env=staging -->'))!;
    for (const body of [comment.body, await summary()]) {
      expect(body).toMatch(/phone\.yaml:\d+:\d+ +mandatory\[pii-phone-number\]: agent\.[a-z-]+: first_message holds a phone number/);
      expect(body).toContain('it breaks mandatory policy (above), and apply refuses such a plan.');
    }
    expect(comment.body).toContain('<!-- voxform:status=error -->\n### voxform plan (`staging`): failed');
  }, 120_000);

  it('a manifest the operator refuses: the comment shows each diagnostic at its place and the error, with no secret', async () => {
    const plan = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging', '--out-dir', 'refused-plan'], github({ GITHUB_REF: 'refs/pull/9/merge', VOXFORM_ENV_ALLOW: 'NOTHING_ELSE' }));
    expect(plan.code).toBe(1);
    const comment = fake.comments.find((c) => c.review === 9)!;
    expect(comment.body).toMatch(/voxform\.yaml:\d+:\d+ +error\[env_not_allowed\]: \$\{env:HOOK_TOKEN\} is refused/);
    expect(comment.body).toContain('error[manifest_invalid]: The manifests have');
    await expectNoToken([plan.stdout, plan.stderr]);
  }, 120_000);

  it('test files with mistakes: the log, comment and summary quote each at file:line:col with its frame, as a plan quotes a manifest, never JSON', async () => {
    await writeFile(path.join(project.dir, 'typo.test.yaml'), 'agent: front-desk\ntests:\n  - name: misspelt\n    turns:\n      - expect: [{ contians: x }]\n');
    await rm(path.join(work, 'summary.md'), { force: true });
    const run = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'test', '--env', 'staging', '--out-dir', 'typo-tests', '--command-args', 'typo.test.yaml'], github({ GITHUB_REF: 'refs/pull/10/merge' }));
    expect(run.code).toBe(1);
    const comment = fake.comments.find((c) => c.review === 10)!;
    for (const quoted of [run.stderr, comment.body, await summary()]) {
      expect(quoted).toContain('typo.test.yaml:5:20  error[unknown_field]: unknown field "contians" in tests[0].turns[0].expect[0]; did you mean "contains"?\n  3 |   - name: misspelt');
      expect(quoted).toContain('error[tests_invalid]: The test files have 1 error (listed above)');
      expect(quoted).not.toContain('"code"');
    }
    expect(run.stdout).not.toContain('"error"');
  }, 120_000);

  it('tests that did not run in an --out-dir an earlier step wrote a report to: "did not run", never the earlier results', async () => {
    const staging = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'test', '--env', 'staging', '--out-dir', 'shared', '--command-args', 'example/tests/booking.test.yaml --skip-judge'], github({ GITHUB_REF: 'refs/heads/main' }));
    expect(staging.code, staging.stderr).toBe(0);
    await rm(path.join(work, 'summary.md'), { force: true });
    const production = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'test', '--env', 'production', '--out-dir', 'shared', '--command-args', 'example/tests/booking.test.yaml --skip-judge'], github({ GITHUB_REF: 'refs/heads/main', VOXFORM_BASE_URL: 'http://127.0.0.1:1' }));
    expect(production.code).toBe(1);
    const written = await summary();
    expect(written).toContain('### voxform test (`production`): the tests did not run');
    expect(written).not.toContain('passed');
  }, 120_000);

  it('a plan that saved none in an --out-dir holding an earlier plan: the earlier plan is never reported', async () => {
    const first = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging', '--out-dir', 'shared-plan'], github({ GITHUB_REF: 'refs/heads/main' }));
    expect(first.code, first.stderr).toBe(0);
    expect(await readFile(path.join(project.dir, 'shared-plan', 'plan.json'), 'utf8')).toContain('"staging"');
    const broken = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'production', '--out-dir', 'shared-plan'], github({ GITHUB_REF: 'refs/heads/main', VOXFORM_BASE_URL: 'http://127.0.0.1:1' }));
    expect(broken.code).toBe(1);
    // The Action uploads plan.json whatever the step's outcome: staging's plan must not be kept as production's.
    await expect(readFile(path.join(project.dir, 'shared-plan', 'plan.json'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  }, 120_000);

  it('an apply of --env production given a plan made for staging, or with no environment: plan_stale, nothing applied, said under production', async () => {
    const staging = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging', '--out-dir', 'wired-wrong'], github({ GITHUB_REF: 'refs/heads/main' }));
    expect(staging.code, staging.stderr).toBe(0);
    const before = (await project.cliInProcess(['history', '--env', 'staging', '--format', 'json'])).stdout;
    await rm(path.join(work, 'summary.md'), { force: true });
    const apply = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'apply', '--env', 'production', '--out-dir', 'wired-wrong'], github({ GITHUB_REF: 'refs/heads/main', GITHUB_SHA: 'c'.repeat(40) }));
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('error[plan_stale]: The saved plan plan.json was made for the environment staging; this run applies --env production. Nothing was applied.');
    expect(apply.stderr).toContain('hint: Apply the plan `voxform ci run --command plan --env production` saved (kept in artifact `voxform-plan-production`), or give this run the plan\'s own --env.');
    expect(apply.stdout).not.toContain('Apply complete');
    expect((await project.cliInProcess(['history', '--env', 'staging', '--format', 'json'])).stdout).toBe(before);
    expect(await summary()).toContain('### voxform apply (`production`)');

    const unnamed = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--out-dir', 'wired-unnamed'], github({ GITHUB_REF: 'refs/heads/main' }));
    expect(unnamed.code, unnamed.stderr).toBe(0);
    const applyUnnamed = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'apply', '--env', 'staging', '--out-dir', 'wired-unnamed'], github({ GITHUB_REF: 'refs/heads/main', GITHUB_SHA: 'c'.repeat(40) }));
    expect(applyUnnamed.code).toBe(1);
    expect(applyUnnamed.stderr).toContain('The saved plan plan.json was made without an environment; this run applies --env staging.');
  }, 120_000);

  it('an --out-dir that is a file, or that holds a folder where the report goes: refused before the command runs, and reported, never a crash', async () => {
    await writeFile(path.join(project.dir, 'out-file'), 'not a folder\n');
    await mkdir(path.join(project.dir, 'odd-out', 'plan.json'), { recursive: true });
    const refusals = [
      ['out-file', 'error[path_is_file]: out-file is a file, where --out-dir needs a folder.\n  hint: Move it away, or choose another folder with --out-dir DIR.\n'],
      ['out-file/sub', 'error[path_is_file]: out-file is a file, where --out-dir needs a folder.\n  hint: Move it away, or choose another folder with --out-dir DIR.\n'],
      ['odd-out', `error[path_is_folder]: ${path.join('odd-out', 'plan.json')} is a folder, where voxform ci writes the plan.\n  hint: Move it away, or choose another folder with --out-dir DIR.\n`],
    ];
    for (const [outDir, refusal] of refusals) {
      const plan = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging', '--out-dir', outDir!], github({ GITHUB_REF: 'refs/heads/main' }));
      expect(plan.code, outDir).toBe(1);
      expect(plan.stderr, outDir).toBe(`${refusal}voxform ci: no pull or merge request to comment on; job summary written.\n`);
    }
  }, 120_000);

  it('an --out-dir the file system will not make (a name too long): refused, saying why, before the command runs, never a crash', async () => {
    const outDir = 'x'.repeat(300);
    await rm(path.join(work, 'summary.md'), { force: true });
    const plan = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging', '--out-dir', outDir], github({ GITHUB_REF: 'refs/heads/main' }));
    expect(plan.code).toBe(1);
    const refusal = `error[report_write_failed]: Cannot make the folder ${outDir} (--out-dir): a name in its path is too long; the command did not run.\n  hint: Choose a folder voxform may write with --out-dir DIR.\n`;
    expect(plan.stderr).toBe(`${refusal}voxform ci: no pull or merge request to comment on; job summary written.\n`);
    expect(await summary()).toContain(refusal.trimEnd());
  }, 120_000);

  it('an empty --out-dir: refused before the command runs, never taken for the project folder (whose plan.json stays)', async () => {
    await writeFile(path.join(project.dir, 'plan.json'), 'kept\n');
    try {
      for (const outDir of ['']) {
        const plan = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging', '--out-dir', outDir], github({ GITHUB_REF: 'refs/heads/main' }));
        expect(plan.code, JSON.stringify(outDir)).toBe(1);
        expect(plan.stderr, JSON.stringify(outDir)).toBe(
          'error[invalid_option]: --out-dir is empty: it takes a folder, and an empty value is never taken for the current folder or the default.\n  hint: Give a folder, or leave the option out; in a script, check that the variable it comes from is set.\n',
        );
        expect(await readFile(path.join(project.dir, 'plan.json'), 'utf8')).toBe('kept\n');
      }
    } finally {
      await rm(path.join(project.dir, 'plan.json'), { force: true });
    }
  }, 120_000);

  it('an apply in a job whose variables its report needs are bad (a commit that is no commit, no token, no project): refused before it applies, so nothing changed', async () => {
    const plan = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging', '--out-dir', 'bad-env'], github({ GITHUB_REF: 'refs/heads/main' }));
    expect(plan.code, plan.stderr).toBe(0);
    const deploys = async () => (JSON.parse((await project.cliInProcess(['history', '--env', 'staging', '--format', 'json'])).stdout) as { records: unknown[] }).records.length;
    const before = await deploys();
    const refusals: Array<[Record<string, string>, string]> = [
      [{ GITHUB_SHA: 'not-a-commit' }, 'error[ci_environment_invalid]: GITHUB_SHA is not a commit: '],
      [{ GITHUB_TOKEN: '' }, 'error[ci_token_missing]: GITHUB_TOKEN is not set: '],
      [{ GITHUB_REPOSITORY: 'acme' }, 'error[ci_environment_invalid]: GITHUB_REPOSITORY is not OWNER/NAME: '],
    ];
    for (const [variables, refusal] of refusals) {
      const apply = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'apply', '--out-dir', 'bad-env'], github({ GITHUB_REF: 'refs/heads/main', ...variables }));
      expect(apply.code, refusal).toBe(1);
      expect(apply.stderr.startsWith(refusal), apply.stderr).toBe(true);
      expect(apply.stdout, refusal).toBe('');
    }
    expect(await deploys()).toBe(before);
  }, 120_000);

  it('a drift check that fails: the summary shows the error sentence, not an empty block', async () => {
    await rm(path.join(work, 'summary.md'), { force: true });
    const drift = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'drift', '--env', 'stagingg'], github({ GITHUB_REF: 'refs/heads/main' }));
    expect(drift.code).toBe(1);
    expect(await summary()).toContain('error[invalid_argument]: --env names an environment the manifests do not define; did you mean "staging"?');
  }, 120_000);

  it('the code host unreachable after an apply: the summary is written all the same, and the job fails saying why', async () => {
    await rm(path.join(work, 'summary.md'), { force: true });
    const apply = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'apply', '--out-dir', 'no-plan-here'], github({ GITHUB_REF: 'refs/heads/main', GITHUB_API_URL: 'http://127.0.0.1:9' }));
    expect(apply.code).toBe(1);
    expect(await summary()).toContain('### voxform apply: ❌ failed (exit 1)');
    expect(apply.stderr).toContain('voxform ci: no comment posted (the error below says why); job summary written.');
    expect(apply.stderr).toContain('error[ci_request_failed]: GitHub did not answer');
  }, 120_000);

  it('a job summary that cannot be written: the comment is posted all the same, and the job fails saying why', async () => {
    const plan = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging', '--out-dir', 'no-summary'], github({ GITHUB_REF: 'refs/pull/10/merge', GITHUB_STEP_SUMMARY: path.join(work, 'missing', 'summary.md') }));
    expect(plan.code).toBe(1);
    expect(fake.comments.filter((c) => c.review === 10 && c.body.startsWith('<!-- voxform:plan:env=staging -->'))).toHaveLength(1);
    expect(plan.stderr).toContain('voxform ci: comment created on pull request #10; labels ');
    expect(plan.stderr).toContain('error[ci_summary_failed]: Cannot write the job summary');
  }, 120_000);

  it('labels the host refuses after the comment is posted: the comment is reported posted and the labels not, on GitHub and GitLab alike', async () => {
    const runs = [
      { provider: 'github', review: 14, route: 'POST /repos/acme/agents/issues/14/labels', env: github({ GITHUB_REF: 'refs/pull/14/merge' }), posted: 'comment created on pull request #14', refused: 'GitHub refused POST /repos/acme/agents/issues/14/labels with 500' },
      { provider: 'gitlab', review: 15, route: 'PUT /api/v4/projects/99/merge_requests/15', env: gitlab({ CI_MERGE_REQUEST_IID: '15' }), posted: 'note created on merge request !15', refused: 'GitLab refused PUT /api/v4/projects/99/merge_requests/15 with 500' },
    ] as const;
    for (const { provider, review, route, env, posted, refused } of runs) {
      fake.refusals.push({ status: 500, body: { message: 'Internal Server Error' }, route });
      const plan = await project.cliInProcess(['ci', 'run', '--provider', provider, '--command', 'plan', '--env', 'staging', '--out-dir', `refused-labels-${provider}`], env);
      expect(plan.code, plan.stderr).toBe(1);
      expect(fake.comments.filter((c) => c.review === review && c.body.startsWith('<!-- voxform:plan:env=staging -->'))).toHaveLength(1);
      // Staging's plan has changes or not, as earlier tests left it: either label is refused the same.
      expect(plan.stderr, provider).toMatch(new RegExp(`voxform ci: ${posted}; labels \\+voxform:[a-z-]+ -voxform:[a-z-]+ not set \\(the error below says why\\)`));
      expect(plan.stderr, provider).not.toMatch(/no (comment|note) posted/);
      expect(plan.stderr, provider).toContain(`error[ci_request_failed]: ${refused}`);
      expect(fake.labelsOf(review)).toEqual([]);
    }
    expect(fake.refusals).toEqual([]);
  }, 120_000);

  it('a pull request from a fork (read-only token): the refused comment\'s hint says so, not to grant a permission the fork cannot have', async () => {
    const READ_ONLY = 'ghs_planted-fork-readonly-token-6c3d';
    fake.tokens.set(READ_ONLY, undefined);
    fake.readOnly.add(READ_ONLY);
    const event = path.join(work, 'fork-event.json');
    await writeFile(event, JSON.stringify({ pull_request: { number: 13, head: { repo: { fork: true, full_name: 'mallory/agents' } }, base: { repo: { full_name: 'acme/agents' } } } }));
    await rm(path.join(work, 'summary.md'), { force: true });
    const plan = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--env', 'staging', '--out-dir', 'fork-plan'], github({ GITHUB_TOKEN: READ_ONLY, GITHUB_REF: 'refs/pull/13/merge', GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event }));
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('error[ci_request_failed]: GitHub refused POST /repos/acme/agents/issues/13/comments with 403: Resource not accessible by integration.\n  hint: This pull request comes from a fork: GitHub gives its jobs a read-only token');
    expect(plan.stderr).not.toContain('pull-requests: write');
    expect(await summary()).toContain('voxform plan (`staging`)');
  }, 120_000);

  it('refuses --command-args that hold an option ci run sets itself, before running anything', async () => {
    const before = fake.requests.length;
    // --env and --to: what the review's marker, the artifact and the summary are named by is ci run's --env.
    for (const [args, option] of [['--out ../mine.json', '--out'], ['--format=json', '--format'], ['--detailed-exitcode', '--detailed-exitcode'], ['--local --env production', '--env'], ['--to=production', '--to']] as const) {
      const plan = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'plan', '--command-args', args, '--out-dir', 'owned'], github());
      expect(plan.code).toBe(1);
      // Said as ci run's own error, on stderr: the --format inside --command-args is not ci run's.
      expect(plan.stdout).toBe('');
      expect(plan.stderr).toContain(`error[invalid_argument]: --command-args cannot hold ${option}: `);
    }
    expect(fake.requests.length).toBe(before);
  }, 120_000);

  it('refuses --command promote without --env, as a missing required option', async () => {
    const promote = await project.cliInProcess(['ci', 'run', '--provider', 'github', '--command', 'promote', '--out-dir', 'owned'], github());
    expect(promote.code).toBe(1);
    expect(promote.stderr).toContain('error[invalid_argument]: `voxform ci run --command promote` needs --env: the environment promoted to.');
  }, 120_000);
});

describe('voxform ci run on GitLab', () => {
  it('plan (no environment): one note, created then edited in place; labels set on the merge request; apply reports on the merged one', async () => {
    fake.addComment(5, 'dave', '<!-- voxform:plan -->\nnot voxform');
    const first = await project.cliInProcess(['ci', 'run', '--provider', 'gitlab', '--command', 'plan', '--out-dir', 'gl'], gitlab());
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('voxform ci: note created on merge request !5; labels +voxform:changes -voxform:no-changes.');
    const second = await project.cliInProcess(['ci', 'run', '--provider', 'gitlab', '--command', 'plan', '--out-dir', 'gl'], gitlab());
    expect(second.stderr).toContain('note updated on merge request !5');
    const notes = fake.comments.filter((c) => c.review === 5);
    expect(notes.map((c) => [c.author, c.body.split('\n', 1)[0], c.edits])).toEqual([
      ['dave', '<!-- voxform:plan -->', 0],
      ['voxform-bot', '<!-- voxform:plan -->', 1],
    ]);
    expect(notes[1]!.body).toContain('_Saved plan: the job artifacts of [this run](https://gitlab.example/acme/agents/-/jobs/77)');
    expect(fake.labelsOf(5)).toEqual(['voxform:changes']);
    expect(fake.requests.filter((r) => r.path.startsWith('/api/v4/')).every((r) => r.token === GITLAB_TOKEN)).toBe(true);

    fake.merged.set('d'.repeat(40), 5);
    const apply = await project.cliInProcess(['ci', 'run', '--provider', 'gitlab', '--command', 'apply', '--out-dir', 'gl'], gitlab({ CI_MERGE_REQUEST_IID: '', CI_COMMIT_SHA: 'd'.repeat(40) }));
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr).toContain('voxform ci: note created on merge request !5.');
    expect(fake.comments.find((c) => c.review === 5 && c.body.startsWith('<!-- voxform:apply -->'))?.body).toContain('✅ applied');
    await expectNoToken([first.stdout, first.stderr, second.stdout, second.stderr, apply.stdout, apply.stderr]);
  }, 120_000);

  it("an --out-dir in the checkout that the merge request blocks (a file named voxform-ci): the note says the plan failed and why, and the previous push's labels go", async () => {
    // The component's --out-dir, in the project folder: the job's artifact is uploaded from there.
    const outDir = path.join(project.dir, 'blocked-ci', 'default');
    const env = gitlab({ CI_MERGE_REQUEST_IID: '16', CI_PROJECT_DIR: project.dir });
    const before = await project.cliInProcess(['ci', 'run', '--provider', 'gitlab', '--command', 'plan', '--out-dir', outDir], env);
    expect(before.code, before.stderr).toBe(0);
    expect(fake.labelsOf(16)).toHaveLength(1);
    await rm(path.join(project.dir, 'blocked-ci'), { recursive: true });
    await writeFile(path.join(project.dir, 'blocked-ci'), 'committed by the merge request\n');
    try {
      const blocked = await project.cliInProcess(['ci', 'run', '--provider', 'gitlab', '--command', 'plan', '--out-dir', outDir], env);
      expect(blocked.code).toBe(1);
      const refusal = 'error[path_is_file]: blocked-ci is a file, where --out-dir needs a folder.\n  hint: Move it away, or choose another folder with --out-dir DIR.\n';
      expect(blocked.stderr).toBe(`${refusal}voxform ci: note updated on merge request !16; labels -voxform:changes -voxform:no-changes.\n`);
      const notes = fake.comments.filter((c) => c.review === 16);
      expect(notes).toHaveLength(1);
      expect(notes[0]!.body).toContain('<!-- voxform:status=error -->\n### voxform plan: failed');
      expect(notes[0]!.body).toContain(refusal.trimEnd());
      expect(fake.labelsOf(16)).toEqual([]);
    } finally {
      await rm(path.join(project.dir, 'blocked-ci'), { force: true });
    }
  }, 120_000);
});

/**
 * A token whose user GET /user does not name (a host or proxy answering 200 with no login or
 * username): voxform would never recognise its own comments and add one every run, so it refuses
 * before posting anything, run after run.
 */
async function refusedWithoutUser(provider: 'github' | 'gitlab', env: Record<string, string>, review: number, expected: string): Promise<void> {
  const before = fake.comments.length;
  const requestsBefore = fake.requests.length;
  for (let run = 0; run < 2; run++) {
    const result = await project.cliInProcess(['ci', 'run', '--provider', provider, '--command', 'plan', '--out-dir', `nameless-${provider}`], env);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`error[ci_request_failed]: ${expected}`);
    expect(result.stderr).not.toContain('comment created');
    await expectNoToken([result.stdout, result.stderr]);
  }
  expect(fake.comments.length).toBe(before);
  // It asked who the token is and wrote nothing: no note, no label, on this review or any.
  expect(fake.requests.slice(requestsBefore).filter((request) => request.method !== 'GET' && request.path !== '/graphql')).toEqual([]);
  expect(fake.labelsOf(review)).toEqual([]);
}

describe('voxform ci run with a token whose user the host does not name', () => {
  it('GitLab: GET /api/v4/user answering with no username is refused, and no note is posted', async () => {
    fake.tokens.set(GITLAB_TOKEN_NAMELESS, 'nameless-bot');
    fake.userAnswers.set(GITLAB_TOKEN_NAMELESS, {});
    await refusedWithoutUser('gitlab', gitlab({ GITLAB_TOKEN: GITLAB_TOKEN_NAMELESS, CI_MERGE_REQUEST_IID: '9' }), 9, "GitLab answered GET /api/v4/user with no username, so voxform cannot tell its own comments from others'; nothing was posted.");
  }, 120_000);

  it('GitHub: a viewer query answered with no login is refused, not taken for the Actions token', async () => {
    fake.tokens.set(GITHUB_TOKEN_NAMELESS, 'nameless-app[bot]');
    fake.userAnswers.set(GITHUB_TOKEN_NAMELESS, { data: { viewer: null }, errors: [{ message: 'Resource not accessible by integration' }] });
    await refusedWithoutUser('github', github({ GITHUB_TOKEN: GITHUB_TOKEN_NAMELESS, GITHUB_REF: 'refs/pull/8/merge' }), 8, "GitHub answered the GraphQL query `query { viewer { login } }` with no login (Resource not accessible by integration), so voxform cannot tell its own comments from others'; nothing was posted.");
  }, 120_000);
});
