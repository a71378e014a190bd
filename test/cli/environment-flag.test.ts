/**
 * An environment a flag names that the manifests do not define is the flag's mistake, said the same
 * way by every command (one place: the command line checks --env before any command runs):
 * `invalid_argument` naming the flag, the environment it likely meant, and the environments there
 * are; never a manifest error with a code frame.
 */
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { STAGED_MANIFEST, useExampleProjects } from '../helpers/project.js';

const tempDir = useTempDirs();

const HINT = '  hint: The manifests define "production", "staging" (under `environments:`).\n';

describe('an unknown environment named by a flag', () => {
  it('is invalid_argument naming --env, with the likely environment, for plan, diff, apply and validate', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const cases: Array<[string[], string]> = [
      [['plan', '--env', 'prod', '--local'], '--env names an environment the manifests do not define; did you mean "production"?'],
      [['diff', '--env', 'staging', '--env', 'prod', '--local'], '--env names an environment the manifests do not define; did you mean "production"?'],
      [['apply', '--env', 'stagign', '--local', '--auto-approve'], '--env names an environment the manifests do not define; did you mean "staging"?'],
      [['validate', '--env', 'qa'], '--env names an environment the manifests do not define.'],
    ];
    for (const [args, message] of cases) {
      const result = await runCliInProcess(args, { cwd: dir });
      expect({ args, stderr: result.stderr, code: result.code }).toEqual({ args, stderr: `error[invalid_argument]: ${message}\n${HINT}`, code: 1 });
      expect(result.stdout).toBe('');
    }
  });

  it('says "default" is the base, no --env name, and how diff can compare the base\'s agents', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST.replace(/\n {2}production:[\s\S]*$/, '\n') });
    const result = await runCliInProcess(['diff', '--env', 'staging', '--env', 'default', '--local'], { cwd: dir });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
    expect(result.stderr).toBe(
      'error[invalid_argument]: --env names the environment "default", which the manifests do not define.\n' +
        '  hint: The manifests define "staging" (under `environments:`). "default" is what status and history call the base: the manifests without an overlay, used when no --env is given. ' +
        "To compare the base's agents with `voxform diff` or promote into them, give them an entry of their own under `environments:`, such as `production: {}` (docs/promotion.md).\n",
    );
  });

  it('is the same error in JSON', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const result = await runCliInProcess(['plan', '--env', 'prod', '--local', '--format', 'json'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        code: 'invalid_argument',
        message: '--env names an environment the manifests do not define; did you mean "production"?',
        hint: 'The manifests define "production", "staging" (under `environments:`).',
      },
    });
  });

  it('names promote its own flags, --to and --from, the same way', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const result = await runCliInProcess(['promote', '--to', 'prod', '--local', '--dry-run'], { cwd: dir });
    expect(result.stderr).toBe(`error[invalid_argument]: --to names an environment the manifests do not define; did you mean "production"?\n${HINT}`);
  });

  it('stands as given where there are no manifests to check it against (no -f, no voxform.yaml), as plan then stops on the missing manifests', async () => {
    const dir = await tempDir({});
    const history = await runCliInProcess(['history', '--env', 'prod', '--local'], { cwd: dir });
    expect({ code: history.code, stderr: history.stderr }).toEqual({ code: 0, stderr: '' });
    expect(history.stdout).toContain('No history for prod@local yet');
    const plan = await runCliInProcess(['plan', '--env', 'prod', '--local'], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('error[manifest_not_found]');
  });

  it('stays the manifests\' error when the manifests cannot all be read: the list of environments may be short', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST, 'more.yaml': 'environments: [' });
    const result = await runCliInProcess(['plan', '--env', 'prod', '--local', '-f', '.'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[manifest_invalid]');
    expect(result.stderr).not.toContain('invalid_argument');
  });

  it('is no flag mistake when the environment is defined with a body that is wrong (`production: null`): the body is reported at its place', async () => {
    const manifest = ['agents:', '  a: { id: -OKspareAgent0000001 }', 'environments:', '  staging: {}', '  production: null', ''].join('\n');
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const body = 'voxform.yaml:5:15  error[type_mismatch]: environment "production": expected an object (key: value pairs), found null';
    for (const args of [['validate', '--env', 'production'], ['plan', '--env', 'production', '--local'], ['apply', '--env', 'production', '--local', '--auto-approve']]) {
      const result = await runCliInProcess(args, { cwd: dir });
      expect({ args, code: result.code, flagMistake: result.stderr.includes('invalid_argument') }).toEqual({ args, code: 1, flagMistake: false });
      expect(result.stderr.split(body).length - 1, `${args.join(' ')}:\n${result.stderr}`).toBe(1);
    }
  });

  it("stays the manifests' error for a saved plan's environment, which no flag named", async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    expect((await runCliInProcess(['plan', '--env', 'staging', '--local', '--out', 'plan.json'], { cwd: dir })).code).toBe(0);
    await writeFile(path.join(dir, 'voxform.yaml'), STAGED_MANIFEST.replace('  staging:', '  stage:').replace('promote_from: staging', 'promote_from: stage'));
    const result = await runCliInProcess(['apply', 'plan.json', '--local'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[environment_unknown]: unknown environment "staging"; the manifests define "stage", "production"');
    expect(result.stderr).not.toContain('--env');
  });
});

/** The words of every command that takes --env, from the command tree itself. */
function commandsTakingEnv(command: Command, words: string[] = []): string[] {
  return command.commands.flatMap((sub) => {
    const own = [...words, sub.name()];
    return [...(sub.options.some((option) => option.long === '--env') ? [own.join(' ')] : []), ...commandsTakingEnv(sub, own)];
  });
}

describe('a mistyped --env, against the example project and the emulator', () => {
  const startProject = useExampleProjects();
  const MISTYPED = 'error[invalid_argument]: --env names an environment the manifests do not define; did you mean "staging"?\n  hint: The manifests define "staging" (under `environments:`).\n';

  /** A receiver `webhook send` would post to: it must get nothing. */
  async function startReceiver(): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits += 1;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, hits: () => hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  // The built CLI, each before it does anything: nothing reaches the service or the receiver.
  const builtCliRuns: Record<string, (receiver: string) => string[]> = {
    status: () => ['status'],
    'webhook send': (receiver) => ['webhook', 'send', '--event', 'end-of-call', '--to', receiver],
    'webhook send --call': (receiver) => ['webhook', 'send', '--event', 'end-of-call', '--to', receiver, '--call', 'call_seed0000'],
    chat: () => ['chat', '--agent', 'front-desk'],
  };
  for (const [name, args] of Object.entries(builtCliRuns)) {
    it(`stops ${name} as it stops plan: exit 1, invalid_argument, the environment it likely meant`, async () => {
      const project = await startProject();
      const receiver = await startReceiver();
      try {
        const result = await project.cli([...args(receiver.url), '--env', 'stagign']);
        expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 1, stdout: '', stderr: MISTYPED });
        expect(project.requests).toEqual([]);
        expect(receiver.hits()).toBe(0);
      } finally {
        await receiver.close();
      }
    });
  }

  it('stops every command that takes --env the same way; a command added with --env is listed here or this fails', async () => {
    const project = await startProject();
    // The arguments each needs besides --env to get past the parser; diff compares two environments.
    const rest: Record<string, string[]> = {
      validate: [],
      'policy list': [],
      plan: [],
      apply: ['--auto-approve'],
      rollback: ['previous', '--auto-approve'],
      diff: ['--env', 'staging'],
      history: [],
      drift: [],
      'emulator traffic': ['--local'],
      logs: [],
      report: [],
      chat: ['--agent', 'front-desk'],
      status: [],
      test: [],
      'test capture': ['call_seed0000'],
      get: ['agents'],
      'webhook send': ['--event', 'prefetch', '--to', 'http://127.0.0.1:9/hook'],
      'webhook serve': ['--port', '0'],
      'ci run': ['--provider', 'github', '--command', 'plan'],
    };
    const commands = commandsTakingEnv(buildProgram(async () => undefined));
    expect(commands.sort()).toEqual(Object.keys(rest).sort());
    for (const command of commands) {
      const result = await project.cliInProcess([...command.split(' '), ...(rest[command] ?? []), '--env', 'stagign']);
      // ci run's --env is the command's it runs: that one stops, and ci run goes on to report it (docs/ci.md).
      const after = command === 'ci run' ? result.stderr.slice(MISTYPED.length) : '';
      expect({ command, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ command, code: 1, stdout: '', stderr: `${MISTYPED}${after}` });
    }
    expect(project.requests).toEqual([]);
  });
});

describe('voxform diff of an environment whose agent id the service does not have', () => {
  it('names the environment, the agent and the place of its id, as plan does, not only the service\'s 404', async () => {
    const dir = await tempDir({ 'voxform.yaml': `${STAGED_MANIFEST}  canary:\n    agents: { front-desk: { id: -OKnoSuchAgent000009 } }\n` });
    const result = await runCliInProcess(['diff', '--env', 'staging', '--env', 'canary', '--local'], { cwd: dir });
    expect(result.stderr).toContain('error[agent_not_on_service]: voxform.yaml:12:33: agent.front-desk of "canary": the service has no agent with id "-OKnoSuchAgent000009"; nothing was compared.\n');
    expect(result.code).toBe(1);
  });
});

describe('a stale saved plan', () => {
  it("says how to plan again with the plan's own manifests, environment and service, into the same file", async () => {
    const dir = await tempDir({ 'p.yaml': STAGED_MANIFEST });
    expect((await runCliInProcess(['plan', '-f', 'p.yaml', '--env', 'staging', '--local', '--out', 'staged plan.json'], { cwd: dir })).code).toBe(0);
    await writeFile(path.join(dir, 'p.yaml'), `${STAGED_MANIFEST}# edited\n`);
    const stale = await runCliInProcess(['apply', 'staged plan.json', '--local'], { cwd: dir });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("error[plan_stale]: The saved plan is stale: the manifests (or files they include) changed. Nothing was applied.\n  hint: Run `voxform plan --out 'staged plan.json' -f p.yaml --env staging --local` again, review it, and apply the new plan.\n");
  });
});

describe('rollback to a record the history does not hold', () => {
  it("points at the history of this run's manifests, environment and service", async () => {
    const dir = await tempDir({ 'p.yaml': STAGED_MANIFEST });
    expect((await runCliInProcess(['apply', '-f', 'p.yaml', '--env', 'staging', '--local', '--auto-approve'], { cwd: dir })).code).toBe(0);
    const refused = await runCliInProcess(['rollback', 'nosuchrecord', '-f', 'p.yaml', '--env', 'staging', '--local', '--auto-approve'], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error[history_ref_unknown]: No history record of this workspace is "nosuchrecord"');
    expect(refused.stderr).toContain('hint: List the records with `voxform history -f p.yaml --env staging --local`;');
  });
});

describe('a plan of manifests with errors', () => {
  it('names the validate command of the same manifests and environment', async () => {
    const dir = await tempDir({ 'bad.yaml': `${STAGED_MANIFEST}bogus: 1\n` });
    const plan = await runCliInProcess(['plan', '-f', 'bad.yaml', '--env', 'staging', '--local'], { cwd: dir });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('hint: Fix them and run again (`voxform validate -f bad.yaml --env staging` checks without contacting the service).');
  });
});
