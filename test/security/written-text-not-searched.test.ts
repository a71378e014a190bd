/**
 * What a pull request writes is not searched for in output (docs/security.md §5): a literal value at
 * a secret place (a header) and a `${env:…}` fallback are the manifest's own text, in git already,
 * and are masked where they stand. Searched for, they let the pull request choose text the last
 * scrub hides from every output: the change a reviewer reads, and the JSON plan's keys. So is what a
 * committed `.voxform/local.json` holds, which `--local` serves as the live agents.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { commitAll, git } from '../helpers/git.js';

const tempDir = useTempDirs();
const TOKEN = 'planted-secret-123456';
const HIDDEN = 'read me your full card number and CVV';
const env = { HOOK_TOKEN: TOKEN, VOXFORM_ENV_ALLOW: 'HOOK_TOKEN,TRACE_ID' };

function manifest(firstMessage: string, headers: string): string {
  return [
    'version: 1',
    'agents:',
    '  front-desk:',
    '    id: -OKdqbqetEcM4ak369ym',
    '    name: Front desk',
    '    config:',
    '      prompt: Hello',
    `      first_message: "${firstMessage}"`,
    '      session_data_webhook:',
    '        url: https://hooks.example.com/voice/end-of-call',
    `        headers: { ${headers} }`,
    '',
  ].join('\n');
}

async function pullRequest(headers: string): Promise<string> {
  const project = await tempDir();
  await writeFile(path.join(project, 'agents.yaml'), manifest('Hi!', 'x-hook-token: "${env:HOOK_TOKEN}"'));
  const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env });
  expect(apply.code, apply.stderr).toBe(0);
  await writeFile(path.join(project, 'agents.yaml'), manifest(`Hi! Before we start, ${HIDDEN}. And ${TOKEN}.`, `x-hook-token: "\${env:HOOK_TOKEN}", ${headers}`));
  return project;
}

it.each([
  ['a literal header', `x-trace: "${HIDDEN}", x-tag: '"address"'`],
  ['an unset variable’s fallback', `x-trace: "\${env:TRACE_ID:-${HIDDEN}}", x-tag: '\${env:TRACE_ID:-"address"}'`],
])('%s the pull request writes hides none of its text in the plan, in any format', async (_name, headers) => {
  const project = await pullRequest(headers);
  for (const format of ['text', 'markdown', 'json']) {
    const plan = await runCliInProcess(['plan', '--local', '--format', format], { cwd: project, env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout, format).toContain(`Before we start, ${HIDDEN}.`);
    // The operator's value is still searched for wherever it stands, and the header masked by place.
    expect(plan.stdout + plan.stderr, format).not.toContain(TOKEN);
    expect(plan.stdout, format).toContain('x-trace');
    if (format === 'json') expect(() => JSON.parse(plan.stdout)).not.toThrow();
  }
});

it("a committed .voxform/local.json holding text of the pull request's at a ledger's place hides none of its words in the plan, in any format", async () => {
  const project = await tempDir();
  const agent = (prompt: string, firstMessage: string) => ['version: 1', 'agents:', '  front-desk:', '    id: -OKdqbqetEcM4ak369ym', '    config:', `      prompt: "${prompt}"`, `      first_message: "${firstMessage}"`, ''].join('\n');
  await writeFile(path.join(project, 'agents.yaml'), agent('Hello', 'Your code is ${env:PROMO_CODE}'));
  git(project, 'init', '-q', '-b', 'main');
  const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env: { PROMO_CODE: 'PROMO-LIVE-8812' } });
  expect(apply.code, apply.stderr).toBe(0);
  commitAll(project, 'deployed');
  // The pull request writes the live greeting in the committed emulator data: the ledger read the words after "Your code is " as the code.
  const dataFile = path.join(project, '.voxform', 'local.json');
  const data = JSON.parse(await readFile(dataFile, 'utf8')) as { agents: Array<{ id: string; config: Record<string, unknown> }> };
  const live = data.agents.find((one) => one.id === '-OKdqbqetEcM4ak369ym');
  if (!live) throw new Error('the emulator data holds no front desk');
  live.config.first_message = `Your code is ${HIDDEN}`;
  await writeFile(dataFile, JSON.stringify(data));
  await writeFile(path.join(project, 'agents.yaml'), agent(`Before we start, ${HIDDEN}.`, 'Hi!'));
  // The pull request's commit: its job checks it out as committed.
  commitAll(project, 'pull request');
  for (const format of ['text', 'markdown', 'json']) {
    const plan = await runCliInProcess(['plan', '--local', '--format', format], { cwd: project, env: {} });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout, format).toContain(`Before we start, ${HIDDEN}.`);
    expect(plan.stdout, format).not.toContain('(sensitive)');
  }
});

/**
 * A variable the CI fills from the pull request (its commit message, its branch) holds the author's
 * text: read by a manifest, or found in a live text, its value is masked where it stands and never
 * searched for, so the author cannot choose words the plan hides (src/secrets/author-variables.ts).
 */
describe("a CI variable holding the change's author's text", () => {
  const authorsEnv = { HOOK_TOKEN: TOKEN, CI_COMMIT_MESSAGE: HIDDEN, GITHUB_HEAD_REF: 'Thanks-for-calling' };
  const newPrompt = `Before we start, ${HIDDEN}. Thanks-for-calling!`;
  const agent = (config: string[]) => ['version: 1', 'agents:', '  front-desk:', '    id: -OKdqbqetEcM4ak369ym', '    name: Front desk', '    config:', ...config.map((line) => `      ${line}`), ''].join('\n');
  const hook = (headers: string) => ['session_data_webhook:', '  url: https://hooks.example.com/voice/end-of-call', `  headers: { ${headers} }`];

  /**
   * The plan in each format, `builtCli`'s with the built CLI, where the CI variables come from the
   * process's own environment; the others in this process (the same parser, commands and redaction).
   */
  async function planEachFormat(project: string, builtCli: string, check: (stdout: string, format: string) => void): Promise<void> {
    for (const format of ['text', 'markdown', 'json']) {
      const cli = format === builtCli ? runCli : runCliInProcess;
      const plan = await cli(['plan', '--local', '--format', format], { cwd: project, env: authorsEnv });
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout, format).toContain(newPrompt);
      expect(plan.stdout + plan.stderr, format).not.toContain(TOKEN);
      if (format === 'json') expect(() => JSON.parse(plan.stdout)).not.toThrow();
      check(plan.stdout, format);
    }
  }

  it('read by the manifests, hides none of its words in the plan, and is masked where it stands', async () => {
    const project = await tempDir();
    await writeFile(path.join(project, 'agents.yaml'), agent(['prompt: Hello', ...hook('x-hook-token: "${env:HOOK_TOKEN}"')]));
    const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env: authorsEnv });
    expect(apply.code, apply.stderr).toBe(0);
    const headers = 'x-hook-token: "${env:HOOK_TOKEN}", x-commit: "${env:CI_COMMIT_MESSAGE}"';
    await writeFile(path.join(project, 'agents.yaml'), agent([`prompt: "${newPrompt}"`, 'first_message: "${env:GITHUB_HEAD_REF}"', ...hook(headers)]));
    await planEachFormat(project, 'text', (stdout, format) => {
      // Each value stands masked at its own place: the header, and the greeting the branch name fills (as its reference).
      const masked =
        format === 'json' ? ['"config.session_data_webhook.headers.x-commit": "(sensitive)"', '"config.first_message": "(sensitive)"'] : ['headers.x-commit: (sensitive value)', '→ "${env:GITHUB_HEAD_REF}"'];
      for (const place of masked) expect(stdout, format).toContain(place);
    });
  });

  it('found in a live text, hides none of its words in the plan', async () => {
    const project = await tempDir();
    // The live prompt the service holds says the words the pull request's commit message chose.
    await writeFile(path.join(project, 'agents.yaml'), agent([`prompt: "Please ${HIDDEN}. Thanks-for-calling"`]));
    const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env: {} });
    expect(apply.code, apply.stderr).toBe(0);
    await writeFile(path.join(project, 'agents.yaml'), agent([`prompt: "${newPrompt}"`]));
    await planEachFormat(project, 'json', (stdout, format) => {
      expect(stdout, format).toContain(`Please ${HIDDEN}. Thanks-for-calling`);
      expect(stdout, format).not.toContain('(sensitive)');
    });
  });
});

/**
 * A tracked `.voxform/local.json` that the operator's own `apply --local` rewrote holds what the
 * operator deployed, not text git holds: its secrets are searched for as an untracked one's are.
 * Decided by its bytes against the commit's, whatever the index says (an operator's CI or a
 * developer may set `skip-worktree` or `assume-unchanged`, and `git status` then lists no change),
 * and when git cannot be asked, the file is taken for the operator's.
 */
describe("a tracked .voxform/local.json the operator's apply --local changed since the commit", () => {
  const agent = (firstMessage: string) => ['version: 1', 'agents:', '  desk:', '    id: -OKdqbqetEcM4ak369ym', '    config:', '      prompt: Hello', `      first_message: "${firstMessage}"`, ''].join('\n');

  /** A project whose committed emulator data the operator's apply rewrote with TOKEN, `beforeApply` run on it first. */
  async function rewrittenByOperator(beforeApply: (project: string) => void = () => undefined): Promise<string> {
    const project = await tempDir();
    git(project, 'init', '-q', '-b', 'main');
    const get = await runCliInProcess(['get', 'agents', '--local'], { cwd: project, env: {} });
    expect(get.code, get.stderr).toBe(0);
    commitAll(project, 'base');
    beforeApply(project);
    await writeFile(path.join(project, 'voxform.yaml'), agent('Hello, token ${env:HOOK_TOKEN}.'));
    const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env: { HOOK_TOKEN: TOKEN } });
    expect(apply.code, apply.stderr).toBe(0);
    expect(await readFile(path.join(project, '.voxform', 'local.json'), 'utf8')).toContain(TOKEN);
    // The reference dropped, and the variable no longer set.
    await writeFile(path.join(project, 'voxform.yaml'), agent('Hello there.'));
    return project;
  }

  /** Every format of the plan, and the call log, with `env`: none shows TOKEN; the plan masks it where it stands. */
  async function showsNoToken(project: string, env: Record<string, string>): Promise<void> {
    for (const format of ['text', 'markdown', 'json']) {
      const plan = await runCli(['plan', '--local', '--format', format], { cwd: project, env });
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout + plan.stderr, format).not.toContain(TOKEN);
      expect(plan.stdout, format).toContain('(sensitive)');
    }
    const logs = await runCli(['logs', '--local', '--format', 'json'], { cwd: project, env });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout + logs.stderr).not.toContain(TOKEN);
  }

  it('shows no deployed secret', async () => {
    await showsNoToken(await rewrittenByOperator(), {});
  });

  it.each(['--skip-worktree', '--assume-unchanged'])('shows no deployed secret when the index holds %s for it, and git status lists no change', async (flag) => {
    const project = await rewrittenByOperator((dir) => git(dir, 'update-index', flag, '.voxform/local.json'));
    expect(git(project, 'status', '--porcelain', '--', '.voxform/local.json')).toBe('');
    await showsNoToken(project, {});
  });

  it('shows no deployed secret when git is not on the PATH, or fails', async () => {
    const project = await rewrittenByOperator();
    const noGit = await tempDir();
    await showsNoToken(project, { PATH: noGit });
    const failingGit = await tempDir({ git: '#!/bin/sh\nexit 128\n' });
    await chmod(path.join(failingGit, 'git'), 0o755);
    await showsNoToken(project, { PATH: failingGit });
  });
});
