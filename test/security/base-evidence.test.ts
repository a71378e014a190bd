/**
 * With the file state committed in git (docs/ci.md), a pull request may delete or edit the deploy
 * ledger in its checkout: the evidence of which live values are secret. The base revision the
 * operator names (VOXFORM_BASE_REF) is the copy it cannot touch: its state and ledger are read too,
 * and add to the checkout's (docs/security.md, src/state/state-at-revision.ts).
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GITIGNORE_ENTRIES } from '../../src/templates/gitignore.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { commitAll, git, initRepository } from '../helpers/git.js';

const SECRET = 'planted-secret-123456';
const AGENT = '-OKdqbqetEcM4ak369ym';
const tempDir = useTempDirs();

function manifest(firstMessage: string, prompt = 'You are the receptionist of Acme Dental. Be brief.'): string {
  return ['version: 1', 'agents:', '  front-desk:', `    id: "${AGENT}"`, '    config:', `      prompt: "${prompt}"`, `      first_message: "${firstMessage}"`, ''].join('\n');
}

/**
 * A repository on `main` whose deploy read HOOK_TOKEN into the greeting, its state and ledger
 * committed. The embedded emulator's data stands in for the service: ignored, as the `.gitignore`
 * of `voxform init` has it, since what a committed one holds is the pull request's. Made once for
 * the file (`deployedProject` gives each test a copy): none of it names the folder it is in.
 */
let deployed: string | undefined;
beforeAll(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'voxform-base-evidence-'));
  deployed = dir;
  await writeFile(path.join(dir, 'voxform.yaml'), manifest('Welcome. Your code is ${env:HOOK_TOKEN}.'));
  await writeFile(path.join(dir, '.gitignore'), `${GITIGNORE_ENTRIES.join('\n')}\n`);
  initRepository(dir, 'init');
  const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env: { HOOK_TOKEN: SECRET } });
  expect(applied.code, applied.stderr).toBe(0);
  commitAll(dir, 'deployed');
});
afterAll(async () => {
  if (deployed) await rm(deployed, { recursive: true, force: true });
});

/** A copy of the deployed repository (above), a test's own; its folder. */
async function deployedProject(): Promise<string> {
  const dir = await tempDir();
  await cp(deployed!, dir, { recursive: true });
  return dir;
}

/** The pull request: the greeting no longer reads the variable, and the ledger is deleted. */
function pullRequestDeletingTheLedger(dir: string): Promise<void> {
  git(dir, 'checkout', '-qb', 'pr');
  git(dir, 'rm', '-rq', '.voxform/history');
  return writeFile(path.join(dir, 'voxform.yaml'), manifest('Welcome.'));
}

it('a pull request that deletes the committed ledger: with VOXFORM_BASE_REF the base\'s ledger keeps the deployed secret out of the plan in every format, the saved plan and plan show', async () => {
  const dir = await deployedProject();
  await pullRequestDeletingTheLedger(dir);
  const job = { VOXFORM_BASE_REF: 'main' };
  for (const format of ['text', 'markdown', 'json']) {
    const plan = await runCliInProcess(['plan', '--local', '--format', format], { cwd: dir, env: job });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('first_message');
    expect(plan.stdout + plan.stderr, format).not.toContain(SECRET);
  }
  const saved = await runCliInProcess(['plan', '--local', '--out', 'plan.json'], { cwd: dir, env: job });
  expect(saved.code, saved.stderr).toBe(0);
  expect(await readFile(path.join(dir, 'plan.json'), 'utf8')).not.toContain(SECRET);
  const shown = await runCliInProcess(['plan', 'show', 'plan.json'], { cwd: dir, env: job });
  expect(shown.code, shown.stderr).toBe(0);
  expect(shown.stdout).toContain('(sensitive)');
  expect(shown.stdout + shown.stderr).not.toContain(SECRET);
}, 120_000);

it('without VOXFORM_BASE_REF the checkout is the only evidence: the limit docs/security.md states', async () => {
  const dir = await deployedProject();
  await pullRequestDeletingTheLedger(dir);
  const plan = await runCliInProcess(['plan', '--local', '--format', 'markdown'], { cwd: dir });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toContain(SECRET);
}, 120_000);

it("the base's ledger only adds: a forged record there cannot narrow what the checkout's ledger keeps secret, and its places count too", async () => {
  const dir = await deployedProject();
  const history = path.join(dir, '.voxform', 'history');
  const [genuineName] = await readdir(history);
  const genuine = JSON.parse(await readFile(path.join(history, genuineName as string), 'utf8')) as { id: string; agents: Record<string, { config: Record<string, unknown>; maskedPaths: string[] }> };
  // On main, only a forged record: its greeting's shape would read a part of the secret as all of it,
  // and it claims the prompt came from a variable.
  const forged = structuredClone(genuine);
  forged.id = genuine.id.replace(/-[0-9a-f]{6}$/, '-ffffff');
  const agent = forged.agents['front-desk'] as { config: Record<string, unknown>; maskedPaths: string[] };
  agent.config.first_message = 'Welcome. Your code is planted-${env:HOOK_TOKEN}.';
  agent.config.prompt = '${env:PROMPT_TEXT}';
  agent.maskedPaths = ['first_message', 'prompt'];
  const aside = path.join(dir, 'genuine.json');
  await rename(path.join(history, genuineName as string), aside);
  await writeFile(path.join(history, `${forged.id}.json`), JSON.stringify(forged));
  git(dir, 'add', '-A', '.voxform');
  git(dir, 'commit', '-qm', 'a forged record on main');
  // The pull request holds the genuine record alone, and changes the greeting and the prompt.
  git(dir, 'checkout', '-qb', 'pr');
  git(dir, 'rm', '-q', `.voxform/history/${forged.id}.json`);
  await mkdir(history, { recursive: true });
  await rename(aside, path.join(history, genuineName as string));
  await writeFile(path.join(dir, 'voxform.yaml'), manifest('Welcome.', 'You are the receptionist of Acme Dental.'));

  const plan = await runCliInProcess(['plan', '--local', '--format', 'markdown'], { cwd: dir, env: { VOXFORM_BASE_REF: 'main' } });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toContain('first_message');
  // The checkout's genuine record still reads the whole secret: nothing of it is printed.
  expect(plan.stdout + plan.stderr).not.toContain('planted');
  expect(plan.stdout + plan.stderr).not.toContain('secret-123456');
  // The base's record adds the prompt's place: its live value is secret too.
  expect(plan.stdout).not.toContain('Be brief.');
  const withoutBase = await runCliInProcess(['plan', '--local', '--format', 'markdown'], { cwd: dir });
  expect(withoutBase.stdout).toContain('Be brief.');
  expect(withoutBase.stdout).not.toContain(SECRET);
}, 120_000);

it("with VOXFORM_BASE_REF a record the pull request adds to the ledger hides no word of its own: only the base's records read values off a live one", async () => {
  const dir = await deployedProject();
  git(dir, 'checkout', '-qb', 'pr');
  const history = path.join(dir, '.voxform', 'history');
  const [genuineName] = await readdir(history);
  const forged = JSON.parse(await readFile(path.join(history, genuineName as string), 'utf8')) as { id: string; agents: Record<string, { config: Record<string, unknown>; maskedPaths: string[] }> };
  // Read off the live prompt, this shape would make "receptionist" a secret.
  forged.id = forged.id.replace(/-[0-9a-f]{6}$/, '-ffffff');
  const agent = forged.agents['front-desk'] as { config: Record<string, unknown>; maskedPaths: string[] };
  agent.config.prompt = 'You are the ${env:ROLE} of Acme Dental. Be brief.';
  agent.maskedPaths = ['first_message', 'prompt'];
  await writeFile(path.join(history, `${forged.id}.json`), JSON.stringify(forged));
  await writeFile(path.join(dir, 'voxform.yaml'), manifest('Welcome.', 'You are the receptionist of Acme Dental. Never read a card number back.'));
  commitAll(dir, 'a forged record');

  for (const format of ['text', 'markdown', 'json']) {
    const plan = await runCliInProcess(['plan', '--local', '--format', format], { cwd: dir, env: { VOXFORM_BASE_REF: 'main' } });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout, format).toContain('You are the receptionist of Acme Dental. Never read a card number back.');
    expect(plan.stdout + plan.stderr, format).not.toContain(SECRET);
  }
  // Without it the checkout's ledger is the only evidence, the forged record included: the limit docs/security.md states.
  const withoutBase = await runCliInProcess(['plan', '--local', '--format', 'markdown'], { cwd: dir });
  expect(withoutBase.stdout).not.toContain('receptionist');
}, 120_000);

it('a base revision git cannot read stops the plan with state_base_unreadable, exit 1', async () => {
  const dir = await deployedProject();
  await pullRequestDeletingTheLedger(dir);
  const plan = await runCliInProcess(['plan', '--local'], { cwd: dir, env: { VOXFORM_BASE_REF: 'origin/no-such-branch' } });
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain('error[state_base_unreadable]: the base revision "origin/no-such-branch" (VOXFORM_BASE_REF) is not a commit of this repository');
  expect(plan.stdout + plan.stderr).not.toContain(SECRET);
}, 120_000);

it('export reads the base revision\'s ledger too: the deployed greeting is written as a reference, never as its value', async () => {
  const dir = await deployedProject();
  await pullRequestDeletingTheLedger(dir);
  const exported = await runCliInProcess(['export', '--local', `--agent=${AGENT}`, '--out', 'ex'], { cwd: dir, env: { VOXFORM_BASE_REF: 'main' } });
  expect(exported.code, exported.stderr).toBe(0);
  const written = await readFile(path.join(dir, 'ex', 'voxform.yaml'), 'utf8');
  expect(written).toMatch(/first_message: .*\$\{env:FRONT_DESK_FIRST_MESSAGE\}/);
  expect(written + exported.stdout + exported.stderr).not.toContain(SECRET);
}, 120_000);

it("export: a pull request that edits the committed record under its own id (the greeting's place dropped) hides nothing of the base's copy", async () => {
  const dir = await deployedProject();
  git(dir, 'checkout', '-qb', 'pr');
  const history = path.join(dir, '.voxform', 'history');
  const [recordName] = await readdir(history);
  const record = JSON.parse(await readFile(path.join(history, recordName as string), 'utf8')) as { agents: Record<string, { config: Record<string, unknown>; maskedPaths: string[] }> };
  const agent = record.agents['front-desk'] as { config: Record<string, unknown>; maskedPaths: string[] };
  agent.config.first_message = 'Welcome.';
  agent.maskedPaths = [];
  await writeFile(path.join(history, recordName as string), JSON.stringify(record));
  git(dir, 'commit', '-qam', 'the record edited under its id');

  const exported = await runCliInProcess(['export', '--local', `--agent=${AGENT}`, '--out', 'ex'], { cwd: dir, env: { VOXFORM_BASE_REF: 'main' } });
  expect(exported.code, exported.stderr).toBe(0);
  const written = await readFile(path.join(dir, 'ex', 'voxform.yaml'), 'utf8');
  expect(written + exported.stdout + exported.stderr).not.toContain(SECRET);
}, 120_000);

it('state_base_unreadable and a base state refused: a hint that fits the cause, and VOXFORM_BASE_REF printed with its control characters escaped', async () => {
  const dir = await tempDir({ 'voxform.yaml': manifest('Welcome.'), '.voxform/state.json': 'not json\n' });
  initRepository(dir, 'a damaged state on the base');
  git(dir, 'checkout', '-qb', 'pr');
  git(dir, 'rm', '-q', '.voxform/state.json');

  const damaged = await runCliInProcess(['plan', '--local'], { cwd: dir, env: { VOXFORM_BASE_REF: 'main' } });
  expect(damaged.code).toBe(1);
  expect(damaged.stderr).toBe(
    'error[state_invalid]: The state file .voxform/state.json at main is not valid JSON.\n' +
      "  hint: That is the base revision's copy, not the checkout's: name another base revision in VOXFORM_BASE_REF, or fix the state file on the base branch.\n",
  );

  const noGit = await runCliInProcess(['plan', '--local'], { cwd: dir, env: { VOXFORM_BASE_REF: 'main', PATH: path.join(dir, 'no-git-here') } });
  expect(noGit.code).toBe(1);
  expect(noGit.stderr).toContain('error[state_base_unreadable]: the base revision "main" (VOXFORM_BASE_REF) cannot be read: git is not installed here, or cannot read the repository');
  expect(noGit.stderr).toContain('  hint: Install git, or put it on PATH, for voxform reads the base revision with it; if it is there, check that `git status` works in this checkout.\n');

  const forged = await runCliInProcess(['plan', '--local'], { cwd: dir, env: { VOXFORM_BASE_REF: 'main\nerror[forged]: x' } });
  expect(forged.code).toBe(1);
  expect(forged.stderr).toContain('error[state_base_unreadable]: the base revision "main\\nerror[forged]: x" (VOXFORM_BASE_REF) is not a commit of this repository');
  expect(forged.stderr).not.toContain('\nerror[forged]');
}, 120_000);
