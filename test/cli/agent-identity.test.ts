/**
 * An agent is the service agent its `id:` names, its key only its name now, against the embedded
 * emulator (`--local`) in the test's process: a key given another `id:` is a new adoption (no drift,
 * and a rollback never writes to the agent it named before), and two swapped keys keep each agent's
 * state and history.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyExampleProject, runCliInProcess, useTempDirs, type CliResult } from '../helpers/cli.js';

const tempDir = useTempDirs();
const FRONT_DESK_ID = '-OKdqbqetEcM4ak369ym';

async function exampleProject(): Promise<{ dir: string; vx: (code: number, ...args: string[]) => Promise<CliResult>; edit: (change: (text: string) => string) => Promise<void> }> {
  const dir = await copyExampleProject(await tempDir());
  const manifest = path.join(dir, 'agents.example.yaml');
  const vx = async (code: number, ...args: string[]) => {
    const result = await runCliInProcess([...args, '-f', 'agents.example.yaml', '--local'], { cwd: dir });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
    return result;
  };
  const edit = async (change: (text: string) => string) => writeFile(manifest, change(await readFile(manifest, 'utf8')));
  return { dir, vx, edit };
}

const addBilling = (id: string) => (text: string) => text.replace(/\nphones:/, `  billing: {id: ${id}, config: {first_message: Billing here.}}\n\nphones:`);

/** The two agent keys swapped, each agent keeping its id, config and staging overlay. */
function swapKeys(text: string): string {
  return text.replace(/^ {2}front-desk:/m, '  TEMPORARY:').replace(/^ {2}booking:/m, '  front-desk:').replace(/^ {2}TEMPORARY:/m, '  booking:')
    .replace('      front-desk: {', '      TEMPORARY: {').replace('      booking: {', '      front-desk: {').replace('      TEMPORARY: {', '      booking: {');
}

async function firstRecordId(vx: (code: number, ...args: string[]) => Promise<CliResult>): Promise<string> {
  const history = JSON.parse((await vx(0, 'history', '--format', 'json')).stdout) as { records: Array<{ id: string }> };
  return history.records.at(-1)?.id as string;
}

describe('a key given another id:', () => {
  it('is planned as a new adoption, not as drift, and a rollback to before it never writes to the agent it named', async () => {
    const { vx, edit } = await exampleProject();
    await edit(addBilling('-OKspareAgent0000001'));
    await vx(0, 'apply', '--auto-approve');
    await edit((text) => text.replace('-OKspareAgent0000001', '-OKspareAgent0000002'));

    const planned = (await vx(0, 'plan')).stdout;
    expect(planned).toContain('~ agent.billing (-OKspareAgent0000002) will be updated in place (the key named agent -OKspareAgent0000001 at the last apply)\n');
    expect(planned).toContain("    agent.billing's earlier agent -OKspareAgent0000001: the key now names -OKspareAgent0000002; left as is on the service");
    expect(planned).not.toContain('drift');
    expect((await vx(2, 'drift')).stdout).toContain('0 changed outside voxform, 1 in git not applied yet');
    await vx(0, 'apply', '--auto-approve');

    const first = await firstRecordId(vx);
    const refused = await vx(1, 'rollback', first, '--agent', 'billing', '--auto-approve');
    expect(refused.stderr).toContain(`error[rollback_agent_not_recorded]: Record ${first} holds no agent "billing" ("billing" is agent -OKspareAgent0000002 now; the "billing" recorded is another agent, -OKspareAgent0000001`);
    const whole = (await vx(0, 'rollback', first, '--auto-approve')).stdout;
    expect(whole).toContain("Not rolled back: the record's billing (-OKspareAgent0000001; billing is -OKspareAgent0000002 now), which no name stands for now");
    expect(whole).not.toContain('-OKspareAgent0000001)');
    expect(whole).not.toContain('agent.billing');
  }, 120_000);
});

describe('two swapped agent keys', () => {
  it('are planned as keys swapped, change no agent in the history, and `rollback previous --agent` finds each agent\'s own previous configuration', async () => {
    const { vx, edit } = await exampleProject();
    await vx(0, 'apply', '--auto-approve');
    await edit((text) => text.replace('temperature: 0.4', 'temperature: 0.3'));
    await vx(0, 'apply', '--auto-approve');
    await edit(swapKeys);

    const planned = (await vx(0, 'plan')).stdout;
    expect(planned).toContain(':\n    agent.front-desk ↔ agent.booking\n');
    expect(planned).not.toContain('Renamed');
    expect(planned).not.toContain('drift');
    await vx(0, 'apply', '--auto-approve');
    const swapped = (await vx(0, 'history', '--limit', '1')).stdout;
    expect(swapped).toContain('  agents changed: none\n  keys moved: agent.front-desk → agent.booking, agent.booking → agent.front-desk\n');

    const back = (await vx(0, 'rollback', 'previous', '--agent', 'booking', '--auto-approve')).stdout;
    expect(back).toContain(`~ agent.booking (${FRONT_DESK_ID}) will be updated in place\n      ~ config.llm.temperature: 0.3 → 0.4`);
    expect((await vx(1, 'rollback', 'previous', '--agent', 'front-desk')).stderr).toContain('error[history_ref_unknown]: The history holds no earlier configuration of front-desk');
  }, 120_000);
});

describe('a renamed agent key', () => {
  it('is shown in the history as the key it moved, though the apply changed no agent', async () => {
    const { vx, edit } = await exampleProject();
    await vx(0, 'apply', '--auto-approve');
    await edit((text) => text.replace(/^ {2}front-desk:/m, '  reception:').replace('      front-desk: {', '      reception: {').replace(/agent: front-desk$/gm, 'agent: reception'));
    await vx(0, 'apply', '--auto-approve');

    const history = (await vx(0, 'history')).stdout;
    const [renamed, first] = history.split('\n\n').slice(1);
    expect(renamed).toContain('  agents changed: none\n  keys moved: agent.front-desk → agent.reception');
    expect(first).not.toContain('keys moved');
    expect((await vx(0, 'history', '--limit', '1')).stdout).toContain('  keys moved: agent.front-desk → agent.reception\n');
    const records = JSON.parse((await vx(0, 'history', '--format', 'json')).stdout).records;
    expect(records.map((record: { keys_moved: unknown }) => record.keys_moved)).toEqual([[{ from: 'front-desk', to: 'reception' }], []]);
  }, 120_000);
});
