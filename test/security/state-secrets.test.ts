/**
 * The state never holds a secret: a campaign's or a knowledge file's value filled from `${env:…}`
 * is kept as its keyed hash, and the next plan still sees it as applied.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCliInProcess, useTempDirs } from '../helpers/cli.js';

const makeDir = useTempDirs();
const PLANTED = { PLANTED_CAMPAIGN: 'planted-campaign-name-5521', PLANTED_DESCRIPTION: 'planted-knowledge-description-8830' };


async function exampleWithEnvValues(): Promise<string> {
  const dir = await makeDir();
  await cp(path.join(repoRoot, 'example'), path.join(dir, 'example'), { recursive: true });
  const manifest = (await readFile(path.join(repoRoot, 'agents.example.yaml'), 'utf8'))
    .replace('name: Six-month check-up reminders', 'name: ${env:PLANTED_CAMPAIGN}')
    .replace('description: Opening hours, prices, insurance and parking', 'description: ${env:PLANTED_DESCRIPTION}');
  expect(manifest).toContain('${env:PLANTED_CAMPAIGN}');
  expect(manifest).toContain('${env:PLANTED_DESCRIPTION}');
  await writeFile(path.join(dir, 'agents.example.yaml'), manifest);
  return dir;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

describe('secrets in the state', () => {
  it("keeps a campaign name and a knowledge description from ${env:…} as keyed hashes, and plans no change after apply", async () => {
    const dir = await exampleWithEnvValues();
    const env = { ...PLANTED };
    const applied = await runCliInProcess(['apply', '-f', 'agents.example.yaml', '--local', '--auto-approve'], { cwd: dir, env });
    expect(applied.code, applied.stderr).toBe(0);

    const state = await readFile(path.join(dir, '.voxform/state.json'), 'utf8');
    expect(state).toContain('recall-reminders');
    for (const file of await filesUnder(path.join(dir, '.voxform'))) {
      if (path.basename(file) === 'local.json') continue; // the emulator's own data: the service holds the values
      const text = await readFile(file, 'utf8');
      for (const value of Object.values(PLANTED)) expect(text, file).not.toContain(value);
    }

    const planned = await runCliInProcess(['plan', '-f', 'agents.example.yaml', '--local', '--format', 'json'], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { resource_changes: Array<{ address: string; action: string }> };
    const actions = Object.fromEntries(plan.resource_changes.map((change) => [change.address, change.action]));
    expect(actions['campaign.recall-reminders']).toBe('no-op');
    expect(actions['knowledge.faq']).toBe('no-op');

    // A new value is still seen as a change.
    const changed = await runCliInProcess(['plan', '-f', 'agents.example.yaml', '--local', '--format', 'json'], { cwd: dir, env: { ...env, PLANTED_CAMPAIGN: 'another-name-7741' } });
    const after = JSON.parse(changed.stdout) as { resource_changes: Array<{ address: string; action: string }> };
    expect(after.resource_changes.find((change) => change.address === 'campaign.recall-reminders')?.action).toBe('update');
    for (const value of [...Object.values(PLANTED), 'another-name-7741']) expect(changed.stdout + changed.stderr).not.toContain(value);
  });
});
