/**
 * An environment a flag names that the manifests do not define is the flag's mistake, said the same
 * way by every command (one place: the CLI's manifest load): `invalid_argument` naming the flag, the
 * environment it likely meant, and the environments there are; never a manifest error with a code frame.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { STAGED_MANIFEST } from '../helpers/project.js';

const tempDir = useTempDirs();

const HINT = '  hint: The manifests define "production", "staging" (under `environments:`).\n';

describe('an unknown environment named by a flag', () => {
  it('is invalid_argument naming --env, with the likely environment, for plan, diff, apply and validate', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const cases: Array<[string[], string]> = [
      [['plan', '--env', 'prod', '--local'], '--env names the environment "prod", which the manifests do not define; did you mean "production"?'],
      [['diff', '--env', 'staging', '--env', 'prod', '--local'], '--env names the environment "prod", which the manifests do not define; did you mean "production"?'],
      [['apply', '--env', 'stagign', '--local', '--auto-approve'], '--env names the environment "stagign", which the manifests do not define; did you mean "staging"?'],
      [['validate', '--env', 'qa'], '--env names the environment "qa", which the manifests do not define.'],
    ];
    for (const [args, message] of cases) {
      const result = await runCliInProcess(args, { cwd: dir });
      expect({ args, stderr: result.stderr, code: result.code }).toEqual({ args, stderr: `error[invalid_argument]: ${message}\n${HINT}`, code: 1 });
      expect(result.stdout).toBe('');
    }
  });

  it('is the same error in JSON', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const result = await runCliInProcess(['plan', '--env', 'prod', '--local', '--format', 'json'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        code: 'invalid_argument',
        message: '--env names the environment "prod", which the manifests do not define; did you mean "production"?',
        hint: 'The manifests define "production", "staging" (under `environments:`).',
      },
    });
  });

  it('names promote its own flags, --to and --from, the same way', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const result = await runCliInProcess(['promote', '--to', 'prod', '--local', '--dry-run'], { cwd: dir });
    expect(result.stderr).toBe(`error[invalid_argument]: --to names the environment "prod", which the manifests do not define; did you mean "production"?\n${HINT}`);
  });

  it('is a warning for a command that only reads, which goes on: the ledger may hold an environment no longer defined', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const result = await runCliInProcess(['history', '--env', 'prod', '--local'], { cwd: dir });
    expect(result.stderr).toBe(`warning: --env names the environment "prod", which the manifests do not define; did you mean "production"? Their agent names and service are not used.\n${HINT}`);
    expect(result.stdout).toContain('No history for prod@local yet');
    expect(result.code).toBe(0);
  });

  it('stays the manifests\' error when the manifests cannot all be read: the list of environments may be short', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST, 'more.yaml': 'environments: [' });
    const result = await runCliInProcess(['plan', '--env', 'prod', '--local', '-f', '.'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[manifest_invalid]');
    expect(result.stderr).not.toContain('invalid_argument');
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

describe('voxform diff of an environment whose agent id the service does not have', () => {
  it('names the environment, the agent and its place, as plan does, not only the service\'s 404', async () => {
    const dir = await tempDir({ 'voxform.yaml': `${STAGED_MANIFEST}  canary:\n    agents: { front-desk: { id: -OKnoSuchAgent000009 } }\n` });
    const result = await runCliInProcess(['diff', '--env', 'staging', '--env', 'canary', '--local'], { cwd: dir });
    expect(result.stderr).toContain('error[agent_not_on_service]: voxform.yaml:3:3: agent.front-desk of "canary": the service has no agent with id "-OKnoSuchAgent000009"; nothing was compared.\n');
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
