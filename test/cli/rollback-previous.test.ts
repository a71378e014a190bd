/**
 * `voxform rollback previous` against the embedded emulator (`--local`), in the test's process:
 * after an apply that changed only a knowledge file, `previous` passes over the record that differs
 * only in what a rollback does not restore, says the knowledge files stay, and a second
 * `previous` returns to the configuration the first replaced, which it says the manifests hold. A
 * record planted with an id in 2099 is refused by name, never a silent rollback to the live record.
 */
import { appendFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyExampleProject, expectCode, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { commitAll, git } from '../helpers/git.js';
import { STAGED_MANIFEST } from '../helpers/project.js';

const tempDir = useTempDirs();

async function exampleProject(): Promise<string> {
  return copyExampleProject(await tempDir());
}

interface HistoryJson {
  records: Array<{ id: string; source: { rollback_of: string | null }; agents: Record<string, { config: { llm?: { temperature?: number } } }> }>;
}

describe('voxform rollback previous', () => {
  it('passes over a record that differs only in knowledge files, says they are not rolled back, and a second one returns', async () => {
    const dir = await exampleProject();
    const vx = async (...args: string[]) => expectCode(await runCliInProcess([...args, '-f', 'agents.example.yaml', '--local'], { cwd: dir }), 0);
    const manifest = path.join(dir, 'agents.example.yaml');
    await vx('apply', '--auto-approve');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('temperature: 0.4', 'temperature: 0.3'));
    await vx('apply', '--auto-approve');
    await appendFile(path.join(dir, 'example/knowledge/faq.md'), '\nQ: Do you open on Sundays? A: No.\n');
    await vx('apply', '--auto-approve');
    const temperatures = async () => {
      const history = JSON.parse((await vx('history', '--format', 'json')).stdout) as HistoryJson;
      return history.records.map((record) => record.agents['front-desk']?.config.llm?.temperature);
    };
    expect(await temperatures()).toEqual([0.3, 0.3, 0.4]);
    const [, , first] = (JSON.parse((await vx('history', '--format', 'json')).stdout) as HistoryJson).records;

    const back = (await vx('rollback', 'previous', '--auto-approve')).stdout;
    expect(back).toContain(`Rolling back booking, front-desk to ${first?.id} (`);
    expect(back).toContain("Not rolled back: the knowledge files of front-desk, which stay as they are now (a rollback restores agents' names and configurations; `voxform apply` of the manifests sets the files).\n\nvoxform will make these changes on local:");
    expect(back).toContain('~ config.llm.temperature: 0.3 → 0.4');
    expect(back).not.toContain('matches the manifests');
    expect(back).toContain('the next `voxform apply` of them undoes this rollback');

    const again = (await vx('rollback', 'previous', '--auto-approve')).stdout;
    expect(again).toContain('~ config.llm.temperature: 0.4 → 0.3');
    // Back to what the manifests say: no apply undoes it, no change to the manifests keeps it.
    expect(again).toContain('The configuration restored is what the manifests in git say now: the next `voxform apply` of them keeps it.');
    expect(again).not.toContain('undoes this rollback');
    expect(again).not.toContain('To keep it');
    expect(await temperatures()).toEqual([0.3, 0.4, 0.3, 0.3, 0.4]);
  }, 120_000);

  it('says a rollback with nothing to do matches the recorded configuration, not the manifests, and claims no rollback to undo', async () => {
    const dir = await exampleProject();
    const vx = async (...args: string[]) => expectCode(await runCliInProcess([...args, '-f', 'agents.example.yaml', '--local'], { cwd: dir }), 0);
    await vx('apply', '--auto-approve');
    const [record] = (JSON.parse((await vx('history', '--format', 'json')).stdout) as HistoryJson).records;
    const result = (await vx('rollback', record?.id ?? '', '--auto-approve')).stdout;
    expect(result).toContain(`No changes. The service (local) matches the configuration of record ${record?.id}.`);
    expect(result).toContain('Nothing to apply.');
    expect(result).not.toContain('undoes this rollback');
  }, 60_000);

  it("to a record that is itself a rollback, names and keeps the commit of the configuration it restored, never the commit that rollback ran at", async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST, '.gitignore': '.voxform/\n' });
    const commit = async (prompt: string) => {
      await writeFile(path.join(dir, 'voxform.yaml'), STAGED_MANIFEST.replace('Acme Dental.', prompt));
      return commitAll(dir, prompt);
    };
    const vx = async (...args: string[]) => expectCode(await runCliInProcess([...args, '--env', 'staging', '--local'], { cwd: dir }), 0);
    git(dir, 'init', '-q', '-b', 'main');
    const first = await commit('Acme Dental.');
    await vx('apply', '--auto-approve');
    await commit('Acme Dental. Be brief.');
    await vx('apply', '--auto-approve');
    await vx('rollback', 'previous', '--auto-approve');
    await commit('Acme Dental. Be kind.');
    await vx('apply', '--auto-approve');
    const [, rollback, , restored] = (JSON.parse((await vx('history', '--format', 'json')).stdout) as HistoryJson).records;
    expect(rollback?.source.rollback_of).toBe(restored?.id);
    // `previous` is the earlier rollback: what it holds is the first commit's configuration.
    const back = (await vx('rollback', 'previous', '--auto-approve')).stdout;
    expect(back).toMatch(new RegExp(`^Rolling back front-desk to ${rollback?.id} \\([^,]+, a rollback to record ${restored?.id}, commit ${first.slice(0, 7)} on main\\)\\.$`, 'm'));
    expect(back).toContain(`To keep it, put back the manifests and the files they read as commit ${first.slice(0, 12)} had them, as one commit: git restore --source=${first.slice(0, 12)} `);
  }, 60_000);

  it('returns to a configuration that cleared fields with null, at the top of the config and under it', async () => {
    // The apply recorded the nulls as written; the rollback's check of the record refused them as damage.
    const dir = await exampleProject();
    const vx = async (...args: string[]) => expectCode(await runCliInProcess([...args, '-f', 'agents.example.yaml', '--local'], { cwd: dir }), 0);
    const manifest = path.join(dir, 'agents.example.yaml');
    const cleared = (await readFile(manifest, 'utf8'))
      .replace('      voice:\n        voice_id: ava-warm\n', '      voice: null\n')
      .replace(/\n    ignore: \[config\.voice\.settings\].*\n/, '\n')
      .replace('temperature: 0.4', 'temperature: null');
    await writeFile(manifest, cleared);
    await vx('apply', '--auto-approve');
    await writeFile(manifest, cleared.replace('response_delay: 300', 'response_delay: 250'));
    await vx('apply', '--auto-approve');

    const back = (await vx('rollback', 'previous', '--auto-approve')).stdout;
    expect(back).toContain('~ config.flow.response_delay: 250 → 300');
    expect(back).toContain('Apply complete: 1 applied, 0 failed, 0 skipped.');
    await writeFile(manifest, cleared);
    expect((await vx('plan')).stdout).toContain('No changes.');
  }, 120_000);

  it('records its command with the environment and the options that change what it applies, as an apply records its own', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const vx = async (...args: string[]) => expectCode(await runCliInProcess([...args, '--local'], { cwd: dir }), 0);
    await vx('apply', '--env', 'staging', '--auto-approve');
    await writeFile(path.join(dir, 'voxform.yaml'), STAGED_MANIFEST.replace('Acme Dental.', 'Acme Dental. Be brief.'));
    await vx('apply', '--env', 'staging', '--auto-approve');
    await vx('rollback', 'previous', '--env', 'staging', '--agent', 'front-desk', '--allow-missing-state', '--auto-approve');
    const commands = (JSON.parse((await vx('history', '--env', 'staging', '--format', 'json')).stdout) as { records: Array<{ command: string }> }).records.map((record) => record.command);
    expect(commands).toEqual(['voxform rollback previous --agent front-desk --env staging --allow-missing-state', 'voxform apply --env staging', 'voxform apply --env staging']);
    expect((await vx('status', '--env', 'staging')).stdout).toContain('voxform rollback previous --agent front-desk --env staging --allow-missing-state');
  }, 60_000);
});

/** A record committed (or written on a broken clock) with an id and time in 2099: no apply records after it. */
describe('a history record dated far ahead of the clock', () => {
  it('is refused by name by rollback, and history lists it with a warning naming its file', async () => {
    const dir = await exampleProject();
    const run = (...args: string[]) => runCliInProcess([...args, '-f', 'agents.example.yaml', '--local'], { cwd: dir });
    const prompt = path.join(dir, 'example/prompts/front-desk.md');
    expectCode(await run('apply', '--auto-approve'), 0);
    await appendFile(prompt, '\nAlways confirm the date twice.\n');
    expectCode(await run('apply', '--auto-approve'), 0);
    const ledger = path.join(dir, '.voxform/history');
    const [oldest] = (await readdir(ledger)).filter((name) => name.endsWith('.json')).sort();
    const planted = JSON.parse(await readFile(path.join(ledger, oldest as string), 'utf8')) as { id: string; at: string; agents: Record<string, { config: { prompt?: string } }> };
    planted.id = '20991231T235959999Z-ffffff';
    planted.at = '2099-12-31T23:59:59.999Z';
    const frontDesk = planted.agents['front-desk'];
    if (frontDesk) frontDesk.config.prompt = 'Planted prompt.';
    await writeFile(path.join(ledger, `${planted.id}.json`), JSON.stringify(planted, null, 2));
    const file = path.join('.voxform', 'history', `${planted.id}.json`);

    const history = expectCode(await run('history'), 0);
    expect(history.stderr).toContain(`warning: ${file} is dated more than 24 hours ahead of this machine's clock: it was planted or written on a broken clock, and every apply since is ordered before it, so it is not known to be what runs now. No apply records anything after it`);
    expect(history.stdout.indexOf(planted.id)).toBeGreaterThan(-1);

    const rollback = expectCode(await run('rollback', 'previous', '--auto-approve'), 1);
    expect(rollback.stderr).toContain(`error[history_record_ahead]: History record ${file} is dated more than 24 hours ahead of this machine's clock:`);
    expect(rollback.stderr).toContain('  hint: No apply records anything after it, so applying again does not help: remove it from the ledger');
    expect(rollback.stdout).not.toContain('Rolling back');

    // Removed, the ledger is whole again: `previous` is the configuration before the live one.
    await rm(path.join(ledger, `${planted.id}.json`));
    const back = expectCode(await run('rollback', 'previous', '--auto-approve'), 0);
    expect(back.stdout).toContain(`Rolling back booking, front-desk to ${oldest?.slice(0, -'.json'.length)} (`);
    expect(back.stdout).not.toContain('Planted prompt.');
  }, 120_000);
});
