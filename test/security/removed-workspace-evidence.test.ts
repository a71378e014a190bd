/**
 * `voxform state rm` forgets a workspace's state and keeps its ledger; the agents its applies filled
 * from `${env:…}` stay live. Its ledger is still evidence of which live values are secret, for the
 * other environments of the service (docs/security.md §5): an agent staging last applied that
 * production now names must not have what staging's reference put there printed by a plan in a
 * job without the variable, on the file state or on PostgreSQL.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { STAGING_FRONT_DESK_ID } from '../../src/emulator/default-seed.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';

const PRODUCTION_AGENT = '-OKdqbqetEcM4ak369ym';
const PLANTED = 'PROMO-LIVE-8812';
const deployJob = { VOXFORM_ENV_ALLOW: 'PROMO_CODE', PROMO_CODE: PLANTED };
const tempDir = useTempDirs();

/** Both environments greet with the code; staging on an agent of its own. */
const DEPLOYED = [
  'version: 1',
  'agents:',
  '  front-desk:',
  `    id: "${PRODUCTION_AGENT}"`,
  '    config:',
  `      first_message: "Today's code is \${env:PROMO_CODE}. Welcome!"`,
  'environments:',
  `  staging: { agents: { front-desk: { id: "${STAGING_FRONT_DESK_ID}" } } }`,
  '  production: {}',
  '',
].join('\n');

/** The pull request after staging is retired: production takes staging's agent over, with a greeting that reads no variable. */
const MOVED = [
  'version: 1',
  'agents:',
  '  front-desk:',
  `    id: "${PRODUCTION_AGENT}"`,
  '    config:',
  '      first_message: "Welcome!"',
  'environments:',
  '  staging: {}',
  `  production: { agents: { front-desk: { id: "${STAGING_FRONT_DESK_ID}" } } }`,
  '',
].join('\n');

async function planAfterStagingRemoved(state: string[]): Promise<void> {
  const cwd = await tempDir({ 'voxform.yaml': DEPLOYED });
  for (const environment of ['staging', 'production']) {
    const applied = await runCliInProcess(['apply', '--local', '--env', environment, '--auto-approve', ...state], { cwd, env: deployJob });
    expect(applied.code, applied.stderr).toBe(0);
  }
  const removed = await runCliInProcess(['state', 'rm', 'staging@local', '--force', ...state], { cwd });
  expect(removed.code, removed.stderr).toBe(0);
  await writeFile(path.join(cwd, 'voxform.yaml'), MOVED);
  for (const format of ['text', 'markdown', 'json']) {
    const plan = await runCliInProcess(['plan', '--local', '--env', 'production', '--format', format, ...state], { cwd, env: {} });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('first_message');
    expect(plan.stdout + plan.stderr, format).not.toContain(PLANTED);
  }
  const text = await runCliInProcess(['plan', '--local', '--env', 'production', '--out', 'change.plan', ...state], { cwd, env: {} });
  expect(text.stdout).toContain("\"Today's code is (sensitive). Welcome!\" → \"Welcome!\"");
  expect(await readFile(path.join(cwd, 'change.plan'), 'utf8')).not.toContain(PLANTED);
}

it("the file state: the ledger of a workspace removed with `state rm` keeps its agent's secret out of another environment's plan", async () => {
  await planAfterStagingRemoved([]);
}, 120_000);

it('PostgreSQL: the same', async () => {
  const { url } = await freshDatabase();
  await planAfterStagingRemoved(['--state', url]);
}, 120_000);
