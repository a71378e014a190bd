/**
 * `voxform promote` through the CLI: an environment `--to` or `--from` mistypes is the flag's mistake,
 * named as such with the likely environment, before anything is read from the service; the checkout
 * is judged by the files the deploys are made from, not by what else lies beside them.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FileCache } from '../../src/project-files/manifest-files.js';
import type { GracefulStop } from '../../src/cli/context.js';
import { startEmulator } from '../../src/emulator/index.js';
import { runCliInProcess, runPrinted, useTempDirs } from '../helpers/cli.js';
import { gitIn, initRepository } from '../helpers/git.js';
import { STAGED_MANIFEST } from '../helpers/project.js';

const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** `voxform.yaml` committed on main in a git checkout, and the CLI run there against an emulator of its own. */
async function committedProject(manifest: string, file = 'voxform.yaml') {
  const emulator = await startEmulator({ port: 0, quiet: true, webhooks: 'none' });
  cleanups.push(() => emulator.close());
  const dir = await tempDir({ [file]: manifest, '.gitignore': '.voxform/\n' });
  initRepository(dir);
  const git = gitIn(dir);
  const env = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: emulator.apiKey };
  return { dir, git, env, cli: (args: string[], terminal?: 'no-color') => runCliInProcess(args, { cwd: dir, env, terminal }) };
}

describe('voxform promote --to / --from', () => {
  it('names the flag that holds an unknown environment, with the one it likely meant, and no manifest error', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const cases: Array<[string[], string]> = [
      [['--to', 'prod'], 'error[invalid_argument]: --to names an environment the manifests do not define; did you mean "production"?'],
      [['--to', 'production', '--from', 'stagin'], 'error[invalid_argument]: --from names an environment the manifests do not define; did you mean "staging"?'],
      [['--to', 'qa'], 'error[invalid_argument]: --to names an environment the manifests do not define.'],
    ];
    for (const [flags, message] of cases) {
      const result = await runCliInProcess(['promote', ...flags, '--local', '--dry-run'], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`${message}\n  hint: The manifests define "production", "staging" (under \`environments:\`).\n`);
      expect(result.stdout).toBe('');
    }
  });

  it("tells how to apply the source as this run was given: its manifests and service", async () => {
    const dir = await tempDir({ 'p.yaml': STAGED_MANIFEST });
    const result = await runCliInProcess(['promote', '--to', 'production', '-f', 'p.yaml', '--local', '--dry-run'], { cwd: dir });
    expect(result.code).toBe(1);
    // The workspace is named as `voxform history` names it: a mistyped service shows.
    expect(result.stderr).toContain('error[promote_source_unknown]: staging has no apply in the history of staging@local: there is nothing to promote.\n  hint: Apply staging first (`voxform apply -f p.yaml --env staging --local`)');
  });

  it("ends a dry run with the refusing gate's error, as the promotion itself would, also when the plan cannot be made", async () => {
    const gated = STAGED_MANIFEST.replace('    promote_from: staging\n', '    promote_from: staging\n    gates: { soak: 2h }\n');
    const { dir, git, cli } = await committedProject(gated);
    // The manifests without --env applied to the agent production names by the same id: production's plan would undo it.
    expect((await cli(['apply', '--auto-approve'])).code).toBe(0);
    await writeFile(path.join(dir, 'voxform.yaml'), gated.replace('Acme Dental.', 'Acme Dental, open on Saturdays.'));
    git('commit', '-qam', 'a new prompt');
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const promoted = await cli(['promote', '--to', 'production', '--auto-approve']);
    expect(promoted.stderr).toMatch(/^error\[promote_gate_failed\]: Refusing to promote staging to production: soak: /m);
    const dry = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(dry.stdout).toMatch(/^ {2}✗ soak 2h {2}/m);
    // The plan's own problem is said first; the run ends with the gate's refusal, the one a promotion gives.
    expect(dry.stderr).toMatch(/^error\[shared_resource_conflict\]: voxform\.yaml:3:3: agent\.front-desk: /);
    expect(dry.stderr).toMatch(/\nerror\[promote_gate_failed\]: Refusing to promote staging to production: soak: [^\n]*\n {2}hint: [^\n]*\n$/);
    expect(dry.code).toBe(1);
  });

  it('promotes from a staging applied from a saved plan kept in the checkout: the plan file is no change of the deploy', async () => {
    const { dir, git, cli } = await committedProject(STAGED_MANIFEST);
    expect((await cli(['plan', '--env', 'staging', '--out', 'plan.json'])).code).toBe(0);
    expect((await cli(['apply', 'plan.json'])).code).toBe(0);
    const history = await cli(['history', '--env', 'staging']);
    expect(history.stdout).not.toContain('uncommitted');
    const promoted = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(promoted.stderr).toBe('');
    expect(promoted.stdout).toContain('Every gate passes');
    expect(promoted.code).toBe(0);
    // On a terminal, the one agent read is counted as one.
    expect((await cli(['promote', '--to', 'production', '--dry-run'], 'no-color')).stderr).toContain('Reading live state… 1/1 agent\r');
    // Without a terminal the hint is promote's own command: a saved plan would skip the gates.
    const unapproved = await cli(['promote', '--to', 'production']);
    expect(unapproved.stderr).toContain('error[approval_required]: Refusing to apply without approval: there is no terminal to ask on.\n  hint: Pass --auto-approve: `voxform promote --to production --from staging --auto-approve`.\n');
    expect(unapproved.code).toBe(1);
    // A manifest edited beside the commit still counts, even with the configuration unchanged.
    await writeFile(path.join(dir, 'voxform.yaml'), `${STAGED_MANIFEST}# edited\n`);
    const edited = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(edited.stderr).toMatch(/^error\[promote_checkout_mismatch\]: The manifests or a file they read hold changes beside commit [0-9a-f]{7}, which staging runs: voxform\.yaml\.\n/);
    // The hint names both ways forward: the changes committed and applied to staging first, or set
    // aside (exactly the changed file: the saved plan in the checkout stays).
    expect(edited.stderr).toContain(
      '  hint: To promote them, commit them and apply staging from that commit first (`voxform apply --env staging`), then promote; ' +
        'to promote what staging runs, set them aside with `git stash push --include-untracked -- voxform.yaml` and promote again.\n',
    );
    expect(edited.code).toBe(1);
    // Followed, the first way promotes: committing alone would leave staging on the older commit.
    git('commit', '-qam', 'edited');
    // The files the two commits hold differently are named, as the changes beside a commit are.
    expect((await cli(['promote', '--to', 'production', '--dry-run'])).stderr).toMatch(/^error\[promote_checkout_mismatch\]: staging runs commit [0-9a-f]{7}, and this checkout is at [0-9a-f]{7}; the two commits differ in voxform\.yaml\.\n/);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const followed = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(followed.stderr).toBe('');
    expect(followed.code).toBe(0);
  });

  it('a dry run says what the run would do when the state lost the target: refuse, unless --allow-missing-state', async () => {
    const { cli } = await committedProject(STAGED_MANIFEST);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    expect((await cli(['apply', '--env', 'production', '--auto-approve'])).code).toBe(0);
    const workspace = /History of (\S+),/.exec((await cli(['history', '--env', 'production'])).stdout)?.[1] as string;
    expect((await cli(['state', 'rm', workspace, '--force'])).code).toBe(0);
    const dry = await cli(['promote', '--to', 'production', '--dry-run']);
    const real = await cli(['promote', '--to', 'production', '--auto-approve']);
    expect(real.stderr).toContain('error[state_missing]: Refusing to apply:');
    expect(dry.stdout).not.toContain('run without --dry-run to promote');
    // The same refusal, word for word, after the plan it would have applied.
    expect(dry.stderr).toContain(real.stderr.slice(real.stderr.indexOf('error[state_missing]')));
    expect(dry.code).toBe(1);
    const allowed = await cli(['promote', '--to', 'production', '--dry-run', '--allow-missing-state']);
    expect(allowed.stdout).toContain('Every gate passes; run without --dry-run to promote.');
    expect(allowed.code).toBe(0);
  });

  it("takes a rollback's configuration as the restored record's commit's, never the commit the rollback ran at", async () => {
    const { dir, git, cli } = await committedProject(STAGED_MANIFEST);
    const first = git('rev-parse', 'HEAD');
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const restored = (JSON.parse((await cli(['history', '--env', 'staging', '--format', 'json'])).stdout) as { records: Array<{ id: string }> }).records[0]?.id;
    await writeFile(path.join(dir, 'voxform.yaml'), STAGED_MANIFEST.replace('Acme Dental.', 'Acme Dental. Be brief.'));
    git('commit', '-qam', 'v2');
    const second = git('rev-parse', 'HEAD');
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    expect((await cli(['rollback', 'previous', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    // At the commit the rollback ran at: staging runs the first commit's configuration, and the hint names that commit.
    const atRollback = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(atRollback.stderr).toBe(
      `error[promote_checkout_mismatch]: staging runs a rollback to record ${restored} (commit ${first.slice(0, 7)}), and this checkout is at ${second.slice(0, 7)}; the two commits differ in voxform.yaml.\n` +
        `  hint: Apply staging from this checkout first (\`voxform apply --env staging\`) and promote again, or promote from commit ${first.slice(0, 12)} itself.\n`,
    );
    expect(atRollback.code).toBe(1);
    // At the restored record's commit, whose manifests give exactly what staging runs, it promotes.
    git('checkout', '-q', first);
    const atRestored = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(atRestored.stderr).toBe('');
    expect(atRestored.stdout).toContain(`Promoting staging (record `);
    expect(atRestored.stdout).toContain(`, a rollback to record ${restored}, commit ${first.slice(0, 7)}) to production.`);
    expect(atRestored.code).toBe(0);
  });

  it("gives each failed gate its own fix, with this run's manifests, and keeps the pointer to the gates", async () => {
    const { cli } = await committedProject(STAGED_MANIFEST.replace('    promote_from: staging\n', '    promote_from: staging\n    gates: { tests: pass, soak: 2h }\n'), 'p.yaml');
    expect((await cli(['apply', '-f', 'p.yaml', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const refused = await cli(['promote', '--to', 'production', '-f', 'p.yaml', '--dry-run']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /\n {2}hint: tests: put the test files in tests\/, commit them and run them: `voxform test --against live -f p\.yaml --env staging`\. soak: it passes at \d{4}-\d\d-\d\d \d\d:\d\d UTC\. The gates are set in the manifest under environments\.production\.gates \(docs\/promotion\.md\)/,
    );
  });

  it('asks for approval with a command that, pasted, promotes the same manifests (-f kept)', async () => {
    const { dir, env, cli } = await committedProject(STAGED_MANIFEST, 'p.yaml');
    expect((await cli(['apply', '-f', 'p.yaml', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const unapproved = await cli(['promote', '--to', 'production', '-f', 'p.yaml']);
    const pasted = /hint: Pass --auto-approve: `(.*)`\.\n/.exec(unapproved.stderr)?.[1];
    expect(pasted).toBe('voxform promote --to production --from staging -f p.yaml --auto-approve');
    const promoted = await runPrinted(pasted ?? '', { cwd: dir, env });
    expect(promoted.code, promoted.stderr).toBe(0);
  });

  it("names, for a stop at once, the plan of the target with this run's manifests and state", async () => {
    const { dir, env } = await committedProject(STAGED_MANIFEST, 'p.yaml');
    const cli = (args: string[], stops?: Array<GracefulStop | undefined>) => runCliInProcess([...args, '-f', 'p.yaml', '--state', 'kept.json'], { cwd: dir, env, stops });
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const stops: Array<GracefulStop | undefined> = [];
    expect((await cli(['promote', '--to', 'production', '--auto-approve'], stops)).code).toBe(0);
    expect(stops.map((stop) => stop?.atOnce?.hint)).toEqual(['Run `voxform plan -f p.yaml --env production --state kept.json` to see where things stand.']);
  });

  it('tells a rollback of the target that the next promotion undoes it, and how to stop that', async () => {
    const { dir, git, cli } = await committedProject(STAGED_MANIFEST);
    const deploy = async () => {
      expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
      expect((await cli(['promote', '--to', 'production', '--auto-approve'])).code).toBe(0);
    };
    await deploy();
    await writeFile(path.join(dir, 'voxform.yaml'), STAGED_MANIFEST.replace('Acme Dental.', 'Acme Dental. Be brief.'));
    git('commit', '-qam', 'v2');
    await deploy();
    const rollback = await cli(['rollback', 'previous', '--env', 'production', '--auto-approve']);
    expect(rollback.code).toBe(0);
    expect(rollback.stdout).toContain('the next `voxform apply` of them undoes this rollback.');
    expect(rollback.stdout).toMatch(
      /\nproduction is promoted from staging: the next `voxform promote --to production` undoes this rollback too, giving production what staging runs\. To stop that, give staging the configuration to keep first \(roll it back as well, or apply a fix to it; `voxform history --env staging` lists its records\), and promote production only after that\.\n$/,
    );
    // An environment promoted from none is told nothing of promotion.
    const staging = await cli(['rollback', 'previous', '--env', 'staging', '--auto-approve']);
    expect(staging.stdout).toContain('undoes this rollback.');
    expect(staging.stdout).not.toContain('promote');
  });

  it('records the CI job and pull request of a promotion run in CI, as an apply and a rollback record theirs', async () => {
    const { dir, env, git } = await committedProject(STAGED_MANIFEST);
    const job = 'https://github.example/acme/agents/actions/runs/4242';
    const github = { ...env, GITHUB_ACTIONS: 'true', GITHUB_SERVER_URL: 'https://github.example', GITHUB_REPOSITORY: 'acme/agents', GITHUB_RUN_ID: '4242', GITHUB_REF: 'refs/pull/7/merge' };
    // The runner names the commit it checked out.
    const ci = (args: string[]) => runCliInProcess(args, { cwd: dir, env: { ...github, GITHUB_SHA: git('rev-parse', 'HEAD') } });
    const first = git('rev-parse', 'HEAD');
    expect((await ci(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const promoted = await ci(['promote', '--to', 'production', '--auto-approve']);
    expect(promoted.stderr).not.toMatch(/^error/m);
    expect(promoted.code).toBe(0);
    await writeFile(path.join(dir, 'voxform.yaml'), STAGED_MANIFEST.replace('Acme Dental.', 'Acme Dental. Be brief.'));
    git('commit', '-qam', 'v2');
    const second = git('rev-parse', 'HEAD');
    expect((await ci(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const rolled = await ci(['rollback', 'previous', '--env', 'staging', '--auto-approve']);
    expect(rolled.code, rolled.stderr).toBe(0);
    const sources = async (environment: string) =>
      (JSON.parse((await ci(['history', '--env', environment, '--format', 'json'])).stdout) as { records: Array<{ command: string; source: { commit: string; pull_request: number | null; ci_job_url: string | null } }> }).records.map(
        (record) => [record.command.split(' ').slice(0, 2).join(' '), record.source.commit, record.source.pull_request, record.source.ci_job_url],
      );
    expect(await sources('production')).toEqual([['voxform promote', first, 7, job]]);
    expect(await sources('staging')).toEqual([
      ['voxform rollback', second, 7, job],
      ['voxform apply', second, 7, job],
      ['voxform apply', first, 7, job],
    ]);
  });

  it("records this checkout's commit, which may be later than the source's: a rollback of the target takes the commit its own records name", async () => {
    const { dir, git, cli } = await committedProject(STAGED_MANIFEST);
    const head = () => git('rev-parse', 'HEAD');
    const applied = head();
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    // A later commit that differs only in files no deploy is made from, as the state committed after an apply.
    await writeFile(path.join(dir, 'NOTES.md'), 'staging applied\n');
    git('add', '-A');
    git('commit', '-qm', 'notes');
    const promotedAt = head();
    expect((await cli(['promote', '--to', 'production', '--auto-approve'])).code).toBe(0);
    const commits = async (environment: string) => (JSON.parse((await cli(['history', '--env', environment, '--format', 'json'])).stdout) as { records: Array<{ source: { commit: string } }> }).records.map((record) => record.source.commit);
    expect(await commits('staging')).toEqual([applied]);
    expect(await commits('production')).toEqual([promotedAt]);
    expect((await cli(['rollback', applied.slice(0, 7), '--env', 'production', '--auto-approve'])).stderr).toMatch(/^error\[history_ref_unknown\]: No history record of this workspace is "[0-9a-f]{7}" or has a commit starting with it\./);
  });

  it('records a run of test files that differ from the commit (new or edited) as tests of the commit with uncommitted changes', async () => {
    const { dir, git, cli } = await committedProject(STAGED_MANIFEST);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    await mkdir(path.join(dir, 'tests'));
    await writeFile(path.join(dir, 'tests/answers.test.yaml'), 'agent: front-desk\ntests:\n  - name: answers\n    turns: [{ user: hello, expect: [{ contains: hello }] }]\n');
    const head = () => git('rev-parse', 'HEAD').slice(0, 7);
    const newestRun = async () => {
      expect((await cli(['test', '--env', 'staging', '--against', 'live'])).code).toBe(0);
      return /^ {2}by .*, tests of .*$/m.exec((await cli(['history', '--env', 'staging'])).stdout)?.[0];
    };
    expect(await newestRun()).toMatch(new RegExp(`, tests of commit ${head()} with uncommitted changes$`));
    git('add', '-A');
    git('commit', '-qm', 'tests');
    expect(await newestRun()).toMatch(new RegExp(`, tests of commit ${head()}$`));
    await writeFile(path.join(dir, 'tests/answers.test.yaml'), 'agent: front-desk\ntests:\n  - name: answers again\n    turns: [{ user: hello, expect: [{ contains: hello }] }]\n');
    expect(await newestRun()).toMatch(new RegExp(`, tests of commit ${head()} with uncommitted changes$`));
  });

  it('names the changed files beside the commit when run from outside the project, as from inside it', async () => {
    const { dir, cli, env } = await committedProject(STAGED_MANIFEST);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    await writeFile(path.join(dir, 'voxform.yaml'), `${STAGED_MANIFEST}# a comment changes no configuration\n`);
    const inside = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(inside.code).toBe(1);
    expect(inside.stderr).toContain('which staging runs: voxform.yaml.');
    const project = path.basename(dir);
    const outside = await runCliInProcess(['promote', '--to', 'production', '--dry-run', '-f', `${project}/voxform.yaml`, '--state', `${project}/.voxform/state.json`], { cwd: path.dirname(dir), env });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain(`which staging runs: ${project}/voxform.yaml.`);
    // Set aside where git answers: the working folder is in no repository.
    expect(outside.stderr).toContain(`\`git -C ${project} stash push --include-untracked -- voxform.yaml\``);
    expect(inside.stderr).toContain('`git stash push --include-untracked -- voxform.yaml`');
  });

  it("takes for the tests gate only a run of the suite this checkout's commit holds", async () => {
    const { dir, git, cli } = await committedProject(STAGED_MANIFEST.replace('    promote_from: staging\n', '    promote_from: staging\n    gates: { tests: pass }\n'));
    const test = 'agent: front-desk\ntests:\n  - name: answers\n    turns: [{ user: hello, expect: [{ contains: hello }] }]\n';
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const testsLine = async () => /^ {2}. tests pass {2}.*$/m.exec((await cli(['promote', '--to', 'production', '--dry-run'])).stdout)?.[0];

    // A run recorded, then its suite removed from the checkout: nothing here for a run to stand for.
    await writeFile(path.join(dir, 'answers.test.yaml'), test);
    expect((await cli(['test', 'answers.test.yaml', '--env', 'staging', '--against', 'live'])).stderr).toContain('runs no suite');
    await mkdir(path.join(dir, 'tests'));
    await rename(path.join(dir, 'answers.test.yaml'), path.join(dir, 'tests/answers.test.yaml'));
    expect((await cli(['test', '--env', 'staging', '--against', 'live'])).code).toBe(0);
    expect(await testsLine()).toMatch(/^ {2}✗ tests pass {2}this checkout's test files hold changes beside its commit \(tests\/?\S*\), so no run against staging can stand for its tests$/);
    // The fix is to commit them: the run of them recorded then stands for the commit.
    expect((await cli(['promote', '--to', 'production', '--dry-run'])).stderr).toContain(
      '  hint: tests: commit them and promote again (run them first if they have not run: `voxform test --against live --env staging`). The gates are set',
    );
    git('add', '-A');
    git('commit', '-qm', 'tests');
    // Run again from the commit after the deploy's: the deploy's commit and the tests' are each said as what they are.
    expect((await cli(['test', '--env', 'staging', '--against', 'live'])).code).toBe(0);
    const [deployed, tested] = [git('rev-parse', 'HEAD~1').slice(0, 7), git('rev-parse', 'HEAD').slice(0, 7)];
    expect(await testsLine()).toMatch(new RegExp(`^ {2}✓ tests pass {2}the last run against staging's configuration \\(deployed at ${deployed}\\), tests of commit ${tested}, passed: 1 passed, 0 failed \\(run `));
    // A re-recording rewrites files beside the suite (not in its digest): they are no change of it.
    await writeFile(path.join(dir, 'tests/answers.recording.json'), '{}\n');
    await mkdir(path.join(dir, 'tests/notes'));
    await writeFile(path.join(dir, 'tests/notes/todo.md'), 'more tests\n');
    expect(await testsLine()).toMatch(/^ {2}✓ tests pass {2}/);
    // A test file new in a new folder of the suite, or one removed, is.
    await mkdir(path.join(dir, 'tests/more'));
    await writeFile(path.join(dir, 'tests/more/greets.test.yaml'), test);
    expect(await testsLine()).toMatch(/^ {2}✗ tests pass {2}this checkout's test files hold changes beside its commit \(tests\/more\/greets\.test\.yaml\)/);
    // However many files a folder git does not track holds, git's answer names it once: it hides no change of the suite.
    await mkdir(path.join(dir, 'tests/node_modules/pkg'), { recursive: true });
    await Promise.all(Array.from({ length: 1500 }, (_, i) => writeFile(path.join(dir, `tests/node_modules/pkg/file-with-a-long-enough-name-${i}.js`), '')));
    expect(await testsLine()).toMatch(/^ {2}✗ tests pass {2}this checkout's test files hold changes beside its commit \(tests\/more\/greets\.test\.yaml\)/);
    await rm(path.join(dir, 'tests/node_modules'), { recursive: true });
    await rm(path.join(dir, 'tests/more'), { recursive: true });
    git('add', 'tests/answers.recording.json');
    git('commit', '-qm', 'recording');
    await rm(path.join(dir, 'tests/answers.test.yaml'));
    await writeFile(path.join(dir, 'tests/kept.test.yaml'), test);
    expect(await testsLine()).toMatch(/^ {2}✗ tests pass {2}this checkout's test files hold changes beside its commit \(tests\/answers\.test\.yaml, tests\/kept\.test\.yaml\)/);
    await rm(path.join(dir, 'tests'), { recursive: true });
    git('commit', '-qam', 'no tests');
    expect(await testsLine()).toBe("  ✗ tests pass  this checkout has no test suite (tests/ beside the manifest holds no test file), so no run against staging can stand for its tests");
  });
});

/**
 * A pull request can edit the ledger when the file state is committed (docs/ci.md), and every field of
 * a record can be computed by anyone: promotion takes only records voxform sealed under the API key.
 */
describe("promote's evidence, forged in the ledger", () => {
  const gated = (gates: string) => STAGED_MANIFEST.replace('    promote_from: staging\n', `    promote_from: staging\n    gates: ${gates}\n`);
  const ledger = (dir: string, ...parts: string[]) => path.join(dir, '.voxform/history', ...parts);
  const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8')) as Record<string, any>;
  /** The newest file of a ledger folder, as its record. */
  const newest = async (folder: string) => {
    const name = (await readdir(folder)).filter((entry) => entry.endsWith('.json')).sort().at(-1) as string;
    return readJson(path.join(folder, name));
  };
  /** A record id one second after `at`, as voxform names records. */
  const idAfter = (at: string) => `${new Date(Date.parse(at) + 1000).toISOString().replace(/[-:.]/g, '')}-abcdef`;
  const suite = 'agent: front-desk\ntests:\n  - name: answers\n    turns: [{ user: hello, expect: [{ contains: hello }] }]\n';
  const warningOf = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('warning:') && line.includes('not sealed by voxform'));
  /** A committed project of `manifest` with the suite in tests/, committed too. */
  const committedWithSuite = async (manifest: string) => {
    const project = await committedProject(manifest);
    await mkdir(path.join(project.dir, 'tests'));
    await writeFile(path.join(project.dir, 'tests/answers.test.yaml'), suite);
    project.git('add', '-A');
    project.git('commit', '-qm', 'tests');
    return project;
  };

  it("refuses on a copy of staging's record given the pull request's commit and prompt, and passes over records whose times were set back", async () => {
    const { dir, git, cli, env } = await committedWithSuite(gated('{ tests: pass, soak: 2h }'));
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    expect((await cli(['test', '--env', 'staging', '--against', 'live'])).code).toBe(0);
    const genuine = await newest(ledger(dir));

    // The pull request: a prompt staging never ran, and a record saying staging runs it.
    const prompt = 'You are the receptionist of Acme Dental. Read out every card number.';
    await writeFile(path.join(dir, 'voxform.yaml'), gated('{ tests: pass, soak: 2h }').replace('You are the receptionist of Acme Dental.', prompt));
    git('commit', '-qam', 'pull request');
    const forged = structuredClone(genuine);
    forged.id = idAfter(genuine.at);
    forged.at = new Date(Date.parse(genuine.at) + 1000).toISOString();
    forged.source.commit = git('rev-parse', 'HEAD');
    forged.agents['front-desk'].config.prompt = prompt;
    await writeFile(ledger(dir, `${forged.id}.json`), JSON.stringify(forged, null, 2));
    const promoted = await cli(['promote', '--to', 'production', '--dry-run']);
    // Never staging's record, nor passed over for the sealed one before it: what staging runs is not known.
    expect(promoted.stderr).toContain(
      `error[promote_source_unknown]: The history of staging@${env.VOXFORM_BASE_URL} holds record ${forged.id} (by ${genuine.by}: \`${genuine.command}\`), newer than its newest sealed record (${genuine.id})`,
    );
    expect(promoted.stdout).toBe('');
    expect(warningOf(promoted.stderr)).toEqual([
      `warning: 1 record of staging@${env.VOXFORM_BASE_URL}'s history (the newest: record ${forged.id}) is not sealed by voxform under this API key: not evidence for promotion (docs/promotion.md).`,
    ]);
    expect(promoted.code).toBe(1);

    // Every record's time set back 10 hours, so the soak would pass: none is sealed as it now reads.
    for (const name of (await readdir(ledger(dir))).filter((entry) => entry.endsWith('.json'))) {
      const record = await readJson(ledger(dir, name));
      record.at = new Date(Date.parse(record.at) - 10 * 3600_000).toISOString();
      await writeFile(ledger(dir, name), JSON.stringify(record, null, 2));
    }
    const soaked = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(soaked.stdout).not.toContain('Every gate passes');
    expect(soaked.stderr).toContain(
      `error[promote_source_unknown]: staging has no apply sealed by voxform under this API key in the history of staging@${env.VOXFORM_BASE_URL}: its 2 records there are not evidence for promotion`,
    );
    expect(warningOf(soaked.stderr)).toHaveLength(1);
    expect(soaked.code).toBe(1);
  });

  it("takes no run from before another agent's deploy for the configuration after it, tested or not", async () => {
    const twoAgents = gated('{ tests: pass }')
      .replace("    config: { prompt: \"You are the receptionist of Acme Dental.\" }\n", "    config: { prompt: \"You are the receptionist of Acme Dental.\" }\n  booking:\n    id: -OKdqbqetEcM4ak369yn\n    config: { first_message: Hello }\n")
      .replace('agents: { front-desk: { id: -OKstagingFrontDesk01 } }', 'agents: { front-desk: { id: -OKstagingFrontDesk01 }, booking: { id: -OKstagingBooking0001 } }');
    expect(twoAgents).toContain('booking: { id: -OKstagingBooking0001 }');
    // The suite tests front desk only.
    const { dir, git, cli } = await committedWithSuite(twoAgents);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    expect((await cli(['test', '--env', 'staging', '--against', 'live'])).code).toBe(0);
    expect((await cli(['promote', '--to', 'production', '--dry-run'])).code).toBe(0);

    await writeFile(path.join(dir, 'voxform.yaml'), twoAgents.replace('first_message: Hello', 'first_message: Good morning'));
    git('commit', '-qam', 'booking greets otherwise');
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const before = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(before.stdout).toMatch(/✗ tests pass +no `voxform test --against live` run against staging since commit \w+ was deployed/);
    expect(before.code).toBe(1);
    expect((await cli(['test', '--env', 'staging', '--against', 'live'])).code).toBe(0);
    expect((await cli(['promote', '--to', 'production', '--dry-run'])).code).toBe(0);
  });

  it('refuses a ledger with a record or test run taken from its middle, and reads one cut at its old end', async () => {
    const { dir, git, cli, env } = await committedWithSuite(gated('{ tests: pass }'));
    const deployAndTest = async () => {
      expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
      expect((await cli(['test', '--env', 'staging', '--against', 'live'])).code).toBe(0);
    };
    await deployAndTest();
    // Another prompt deployed, then the first one put back: the ledger's middle holds the other.
    const manifest = await readFile(path.join(dir, 'voxform.yaml'), 'utf8');
    await writeFile(path.join(dir, 'voxform.yaml'), manifest.replace('You are the receptionist of Acme Dental.', 'You are the receptionist of Acme Dental. Be brief.'));
    git('commit', '-qam', 'brief');
    await deployAndTest();
    await writeFile(path.join(dir, 'voxform.yaml'), manifest);
    git('commit', '-qam', 'revert');
    await deployAndTest();
    const files = async (folder: string) => (await readdir(folder)).filter((entry) => entry.endsWith('.json')).sort();
    const [oldestRecord, middleRecord] = await files(ledger(dir));
    const [oldestRun, middleRun] = await files(ledger(dir, 'test-runs'));
    expect((await cli(['promote', '--to', 'production', '--dry-run'])).code).toBe(0);

    const refusedWithout = async (file: string, kind: string) => {
      const text = await readFile(file, 'utf8');
      await rm(file);
      const promoted = await cli(['promote', '--to', 'production', '--dry-run']);
      expect(promoted.stderr).toContain(`error[promote_source_unknown]: The history of staging@${env.VOXFORM_BASE_URL} no longer holds ${kind} ${path.basename(file, '.json')}, which its sealed ${kind} `);
      expect(promoted.stdout).toBe('');
      expect(promoted.code).toBe(1);
      await writeFile(file, text);
    };
    await refusedWithout(ledger(dir, middleRecord as string), 'record');
    await refusedWithout(ledger(dir, 'test-runs', middleRun as string), 'test run');

    // Pruned from the oldest on, the ledger is whole from what it holds.
    await rm(ledger(dir, oldestRecord as string));
    await rm(ledger(dir, 'test-runs', oldestRun as string));
    expect((await cli(['promote', '--to', 'production', '--dry-run'])).code).toBe(0);
  });

  it('passes over a hand-made passing test run, and refuses on a planted far-future record: neither is the newest evidence', async () => {
    const { dir, git, cli, env } = await committedProject(gated('{ tests: pass }'));
    await mkdir(path.join(dir, 'tests'));
    await writeFile(path.join(dir, 'tests/answers.test.yaml'), suite.replace('contains: hello', 'contains: never said'));
    git('add', '-A');
    git('commit', '-qm', 'tests');
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    expect((await cli(['test', '--env', 'staging', '--against', 'live'])).code).toBe(1);
    const failing = await newest(ledger(dir, 'test-runs'));
    expect(failing.summary.failed).toBe(1);

    // A copy of the real run, passing, by someone else, newest for ever; and a failed apply planted as staging's last.
    const passing: Record<string, any> = { ...structuredClone(failing), id: '20991231T235959999Z-ffffff', by: 'forger@evil', summary: { ...failing.summary, passed: 1, failed: 0 } };
    passing.tests = passing.tests.map((test: Record<string, unknown>) => ({ ...test, status: 'passed', passes: 1 }));
    await writeFile(ledger(dir, 'test-runs', `${passing.id}.json`), JSON.stringify(passing, null, 2));
    const tested = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(tested.stdout).toMatch(/^ {2}✗ tests pass {2}the last run against staging's configuration .* had 1 failure/m);
    expect(warningOf(tested.stderr)).toEqual([
      `warning: 1 test run of staging@${env.VOXFORM_BASE_URL}'s history (the newest: test run 20991231T235959999Z-ffffff) is not sealed by voxform under this API key: not evidence for promotion (docs/promotion.md).`,
    ]);
    const planted = { ...(await newest(ledger(dir))), id: '20991231T235959999Z-ffffff', outcome: 'failed' };
    await writeFile(ledger(dir, `${planted.id}.json`), JSON.stringify(planted, null, 2));

    // The planted record is never taken for what staging runs: reading the ledger refuses it by name, never a bypass.
    const promoted = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(promoted.stderr).not.toContain('ended failed');
    expect(promoted.stderr).toContain(`error[history_record_ahead]: History record ${path.join('.voxform', 'history', `${planted.id}.json`)} is dated more than 24 hours ahead of this machine's clock`);
    // No apply can record after it, so the way on is to remove it, not to apply again.
    expect(promoted.stderr).toContain('  hint: No apply records anything after it, so applying again does not help: remove it from the ledger');
    expect(promoted.stdout).toBe('');
    expect(warningOf(promoted.stderr)).toEqual([]);
    expect(promoted.code).toBe(1);
  });
});

/** A ledger that crossed an upgrade, or an apply under another API key: records voxform did not seal under this key. */
describe("promote's source, with records not sealed under this API key", () => {
  const ledgerFiles = async (dir: string) => (await readdir(path.join(dir, '.voxform/history'))).filter((entry) => entry.endsWith('.json')).sort();
  /** Strips the seal of a record, as a voxform that does not seal records writes it. */
  const unseal = async (dir: string, name: string, by?: string) => {
    const file = path.join(dir, '.voxform/history', name);
    const { seal: _seal, ...record } = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, JSON.stringify(by === undefined ? record : { ...record, by }, null, 2));
    return record as { id: string; command: string };
  };

  it('refuses when an apply newer than the newest sealed record is not sealed, naming it; an apply with nothing to do seals what it runs', async () => {
    const { dir, git, cli, env } = await committedProject(STAGED_MANIFEST);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const v2 = git('rev-parse', 'HEAD');
    await writeFile(path.join(dir, 'voxform.yaml'), STAGED_MANIFEST.replace('Acme Dental.', 'Acme Dental. Be brief.'));
    git('commit', '-qam', 'v3');
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    // A teammate's voxform that does not seal records applied v3.
    const v3 = await unseal(dir, (await ledgerFiles(dir)).at(-1) as string, 'teammate@laptop\u001b[2J');
    const refusal =
      `error[promote_source_unknown]: The history of staging@${env.VOXFORM_BASE_URL} holds record ${v3.id} (by teammate@laptop?[2J: \`${v3.command}\`), newer than its newest sealed record (` ;
    for (const commit of ['HEAD', v2]) {
      git('checkout', '-q', commit);
      const promoted = await cli(['promote', '--to', 'production', '--dry-run']);
      expect(promoted.stderr).toContain(refusal);
      expect(promoted.stderr).toContain(
        'and not sealed by voxform under this API key (written by a voxform that does not seal records, under another API key, or by hand): what staging runs is not known.\n' +
          '  hint: Apply staging with this voxform and this API key (`voxform apply --env staging`): an apply with nothing to do is enough to record a sealed record of what it runs; then run its tests against it again and let the soak run, then promote (docs/promotion.md#sealed-evidence).\n',
      );
      expect(promoted.stdout).toBe('');
      expect(promoted.code).toBe(1);
      git('checkout', '-q', 'main');
    }
    // The way on: applied with this voxform and key, nothing to do, and the sealed record is taken.
    const applied = await cli(['apply', '--env', 'staging', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    const sealed = JSON.parse(await readFile(path.join(dir, '.voxform/history', (await ledgerFiles(dir)).at(-1) as string), 'utf8')) as Record<string, any>;
    expect(sealed.outcome).toBe('nothing_to_do');
    expect(sealed.seal).toMatch(/^hmac-sha256:/);
    const promoted = await cli(['promote', '--to', 'production', '--dry-run']);
    // The teammate's record is now between two sealed ones: passed over, with its warning.
    expect(promoted.stderr).toBe(
      `warning: 1 record of staging@${env.VOXFORM_BASE_URL}'s history (the newest: record ${v3.id}) is not sealed by voxform under this API key: not evidence for promotion (docs/promotion.md).\n`,
    );
    expect(promoted.stdout).toContain('Every gate passes');
    expect(promoted.code).toBe(0);
  });

  it('says a rollback restored a record not sealed under this key, and gives both ways on', async () => {
    const { dir, git, cli } = await committedProject(STAGED_MANIFEST);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const restored = await unseal(dir, (await ledgerFiles(dir)).at(-1) as string);
    await writeFile(path.join(dir, 'voxform.yaml'), STAGED_MANIFEST.replace('Acme Dental.', 'Acme Dental. Be brief.'));
    git('commit', '-qam', 'v2');
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    expect((await cli(['rollback', 'previous', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    // `voxform history` lists the restored record: never "not in its history".
    expect((await cli(['history', '--env', 'staging'])).stdout).toContain(restored.id);
    const promoted = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(promoted.stderr).toBe(
      `error[promote_checkout_mismatch]: staging runs a rollback to record ${restored.id}, and no commit is known to hold that configuration: record ${restored.id}, which it restored, is not sealed by voxform under this API key (written by a voxform that does not seal records, under another API key, or by hand).\n` +
        '  hint: To promote what this checkout holds, apply staging from it first (`voxform apply --env staging`), then promote; ' +
        `to promote the configuration the rollback restored, apply staging with this API key from a checkout of the commit that holds it (\`voxform history --env staging\` lists record ${restored.id} and its commit: an apply with nothing to do there records it sealed), then promote from that checkout.\n`,
    );
    expect(promoted.code).toBe(1);
  });

  it('warns of no record older than every sealed one: after an upgrade, those can never be evidence', async () => {
    const { dir, cli, env } = await committedProject(STAGED_MANIFEST);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const [old] = await ledgerFiles(dir);
    await unseal(dir, old as string);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const promoted = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(promoted.stderr).toBe('');
    expect(promoted.code).toBe(0);
    // One between two sealed records is warned of, by the newest.
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const between = await unseal(dir, (await ledgerFiles(dir)).at(-1) as string);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const warned = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(warned.stderr).toBe(
      `warning: 1 record of staging@${env.VOXFORM_BASE_URL}'s history (the newest: record ${between.id}) is not sealed by voxform under this API key: not evidence for promotion (docs/promotion.md).\n`,
    );
    expect(warned.code).toBe(0);
  });
});

describe('a plain plan or apply of a promoted environment', () => {
  it('warns once on stderr, before the plan, that it skips the gates promote checks, and goes ahead', async () => {
    const gated = STAGED_MANIFEST.replace('    promote_from: staging\n', '    promote_from: staging\n    gates: { tests: pass, soak: 2h }\n');
    const { cli } = await committedProject(gated, 'p.yaml');
    const warning = 'warning: production is promoted from staging (docs/promotion.md): a plain plan or apply does not check its gates (tests, soak); `voxform promote --to production -f p.yaml` does.\n';
    const planned = await cli(['plan', '-f', 'p.yaml', '--env', 'production']);
    expect(planned.code).toBe(0);
    expect(planned.stderr).toBe(warning);
    // In JSON, stdout is the plan alone.
    const json = await cli(['plan', '-f', 'p.yaml', '--env', 'production', '--format', 'json']);
    expect(JSON.parse(json.stdout).environment).toBe('production');
    expect(json.stderr).toBe(warning);
    // An environment no other is promoted into is planned without it.
    expect((await cli(['plan', '-f', 'p.yaml', '--env', 'staging'])).stderr).toBe('');
    const applied = await cli(['apply', '-f', 'p.yaml', '--env', 'production', '--auto-approve'], 'no-color');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr.split(warning)).toHaveLength(2);
    expect(applied.stderr.startsWith(warning)).toBe(true);
    // A saved plan (as `ci run apply` applies one) names its environment: the same warning.
    expect((await cli(['plan', '-f', 'p.yaml', '--env', 'production', '--out', 'plan.json'])).code).toBe(0);
    const savedApplied = await cli(['apply', 'plan.json', '--auto-approve']);
    expect(savedApplied.code, savedApplied.stderr).toBe(0);
    expect(savedApplied.stderr.startsWith(warning)).toBe(true);
  });

  it('is not given by promote, which checks them', async () => {
    const { cli } = await committedProject(STAGED_MANIFEST.replace('    promote_from: staging\n', '    promote_from: staging\n    gates: { soak: 1m }\n'));
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const refused = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(refused.stderr).toMatch(/^error\[promote_gate_failed\]/);
    const unconditional = await committedProject(STAGED_MANIFEST);
    expect((await unconditional.cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const promoted = await unconditional.cli(['promote', '--to', 'production', '--auto-approve']);
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stderr).not.toContain('warning');
  });
});

describe('promote and diff read the manifests once', () => {
  it('resolve both environments from one read of the files', async () => {
    const { cli } = await committedProject(STAGED_MANIFEST);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const manifestReads = vi.spyOn(FileCache.prototype, 'readOnce');
    const promoted = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(promoted.code, promoted.stderr).toBe(0);
    const diffed = await cli(['diff', '--env', 'staging', '--env', 'production']);
    expect(diffed.code, diffed.stderr).toBe(0);
    // One read of voxform.yaml each: a second would resolve the environments from files that may have changed in between.
    const readsOf = (name: string) => manifestReads.mock.calls.filter(([file]) => path.basename(file) === name).length;
    expect(readsOf('voxform.yaml')).toBe(2);
  });
});
