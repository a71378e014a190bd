/**
 * Keys renamed in the manifests against the embedded emulator (`--local`), in the test's process. An
 * agent's (`front-desk:` became `reception:`, the same `id:`), with each state backend: the plan says
 * the key moved, the apply leaves one state entry for the agent under its new key, and history and
 * `rollback previous --agent` follow it to its records from before the rename. A campaign's (the same
 * `id:`) and a knowledge file's (the same content) are moves too, and a campaign's claim between
 * environments follows it. Two keys that swap their ids are told apart from renames.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyExampleProject, expectCode, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';

const tempDir = useTempDirs();
const FRONT_DESK_ID = '-OKdqbqetEcM4ak369ym';

async function exampleProject(): Promise<string> {
  return copyExampleProject(await tempDir());
}

/** The agent keys the manifests use: the agent, its staging overlay and the number bound to it. */
function renameFrontDesk(text: string): string {
  return text.replace(/^  front-desk:/m, '  reception:').replace('      front-desk: {', '      reception: {').replace('agent: front-desk', 'agent: reception');
}

const backends: Array<{ kind: string; stateArgs: () => Promise<string[]> }> = [
  { kind: 'the state file', stateArgs: async () => [] },
  { kind: 'PostgreSQL', stateArgs: async () => ['--state', (await freshDatabase()).url] },
];

describe.each(backends)('a renamed agent key, with $kind', ({ stateArgs }) => {
  it('is planned as a move, leaves one state entry, and its history and rollback follow it', async () => {
    const dir = await exampleProject();
    const state = await stateArgs();
    const vx = async (...args: string[]) => expectCode(await runCliInProcess([...args, '-f', 'agents.example.yaml', '--local', ...state], { cwd: dir }), 0);
    const manifest = path.join(dir, 'agents.example.yaml');
    await vx('apply', '--auto-approve');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('temperature: 0.4', 'temperature: 0.3'));
    await vx('apply', '--auto-approve');
    await writeFile(manifest, renameFrontDesk(await readFile(manifest, 'utf8')));

    // A rename alone is a plan with changes: apply moves the state entry, so a job that applies only on exit 2 must see one.
    const renameOnly = expectCode(await runCliInProcess(['plan', '--detailed-exitcode', '-f', 'agents.example.yaml', '--local', ...state], { cwd: dir }), 2);
    const planned = renameOnly.stdout;
    expect(planned).toContain('Nothing to send to the service (local): it matches the manifests. Apply moves what the state keeps of the keys below.\n');
    expect(planned).not.toContain('No changes');
    expect(planned).not.toContain('Not managed any more');
    expect(planned).toContain("Renamed (the same resources under new keys, an agent or campaign by its id, a knowledge file by its content: apply moves what the state keeps of each to its new key, and an agent's history follows it):\n    agent.front-desk → agent.reception\n");
    expect(planned).toMatch(/\nPlan: 0 to create, 0 to update, 1 renamed, \d+ unchanged\n/);
    const json = JSON.parse((await vx('plan', '--format', 'json')).stdout) as { summary: Record<string, number>; resource_changes: Array<{ address: string; moved_from: string | null }> };
    expect(json.resource_changes.find((change) => change.address === 'agent.reception')?.moved_from).toBe('agent.front-desk');
    expect(json.summary).toMatchObject({ create: 0, update: 0, renamed: 1, swapped: 0 });
    const markdown = (await vx('plan', '--format', 'markdown')).stdout;
    expect(markdown).toMatch(/^### voxform plan: 0 to create, 0 to update, 1 renamed, \d+ unchanged\n\nNothing to send to the service: it matches the manifests \(\d+ resources checked\). Apply moves what the state keeps of the keys below.\n/);
    expect(markdown).not.toContain('no changes');

    // Moving a state entry is a change: asked about as any, so refused where no terminal can ask.
    const unasked = expectCode(await runCliInProcess(['apply', '-f', 'agents.example.yaml', '--local', ...state], { cwd: dir }), 1);
    expect(unasked.stderr).toContain('error[approval_required]: Refusing to apply without approval: there is no terminal to ask on.');
    expect(expectCode(await runCliInProcess(['state', 'show', ...state], { cwd: dir }), 0).stdout).toContain('agent.front-desk');

    // Nothing for the service, yet the state entry moved: said, not "Nothing to apply".
    const moved = (await vx('apply', '--auto-approve')).stdout;
    expect(moved).toContain('\nMoved the state of 1 renamed resource to its new key: agent.front-desk → agent.reception\n');
    expect(moved).not.toContain('Nothing to apply');
    expectCode(await runCliInProcess(['plan', '--detailed-exitcode', '-f', 'agents.example.yaml', '--local', ...state], { cwd: dir }), 0);
    const shown = expectCode(await runCliInProcess(['state', 'show', ...state], { cwd: dir }), 0).stdout;
    expect(shown).toContain(`    agent.reception: ${FRONT_DESK_ID}\n`);
    expect(shown).not.toContain('agent.front-desk');
    expect((await vx('plan')).stdout).not.toContain('Renamed');

    const history = (await vx('history', '--agent', 'reception')).stdout;
    expect(history.match(/^\d{8}T/gm)).toHaveLength(3);
    // The move's record: applied, with no request needed, and no agent's configuration changed.
    expect(history).toMatch(/^History of default@local, newest first:\n\n\d{8}T\S+ {2}\S+ {2}applied\n {2}by .*\n {2}plan 0 to create, 0 to update, \d+ unchanged; 0 applied, 0 failed, 0 skipped\n {2}agents changed: none\n/);
    expect(history).toContain('agents changed: booking, front-desk');

    const back = (await vx('rollback', 'previous', '--agent', 'reception', '--auto-approve')).stdout;
    expect(back).toContain('Rolling back reception to ');
    expect(back).toContain('~ agent.reception (-OKdqbqetEcM4ak369ym) will be updated in place\n      ~ config.llm.temperature: 0.3 → 0.4');

    // The old key, as the record holds it, stands for the agent by its id, under its name now: the
    // state is never moved back to a key the manifests do not use.
    const [, beforeRename] = history.match(/^\d{8}T\S+/gm) ?? [];
    const byOldName = (await vx('rollback', beforeRename!, '--agent', 'front-desk', '--auto-approve')).stdout;
    expect(byOldName).toContain('Rolling back reception to ');
    expect(byOldName).toContain('~ agent.reception (-OKdqbqetEcM4ak369ym) will be updated in place\n      ~ config.llm.temperature: 0.4 → 0.3');
    expect(byOldName).not.toContain('agent.front-desk');
    const again = (await vx('rollback', beforeRename!, '--agent', 'front-desk', '--auto-approve')).stdout;
    expect(again).not.toContain('Moved the state');
    expect(again).not.toContain('agent.front-desk');
    const after = (await vx('plan')).stdout;
    expect(after).toContain('No changes. The service (local) matches the manifests.');
    expect(after).not.toContain('Renamed');
  }, 120_000);
});

const CAMPAIGN_AND_FILE = [
  'version: 1',
  'agents:',
  `  front-desk: { id: ${FRONT_DESK_ID}, name: Front desk, knowledge: [faq] }`,
  'phones:',
  '  "+15551230001": { agent: front-desk }',
  'campaigns:',
  '  recall: { id: cmp_recall_2026, name: Recall A, caller: "+15551230001" }',
  'knowledge:',
  '  faq: { file: faq.md }',
  'environments: { staging: {}, production: {} }',
  '',
].join('\n');

describe('a renamed campaign or knowledge file key', () => {
  it("is planned as a move and moved by apply, uploading nothing, and keeps this environment's claim on the campaign", async () => {
    const dir = await tempDir({ 'voxform.yaml': CAMPAIGN_AND_FILE, 'faq.md': 'Open 9 to 5.\n' });
    const manifest = path.join(dir, 'voxform.yaml');
    const vx = async (...args: string[]) => runCliInProcess([...args, '--local'], { cwd: dir });
    expectCode(await vx('apply', '--env', 'staging', '--auto-approve'), 0);
    await writeFile(manifest, CAMPAIGN_AND_FILE.replace('Recall A', 'Recall B'));
    // Each environment uploads its own file: production attaches its own to the one agent, taking it over too.
    expectCode(await vx('apply', '--env', 'production', '--take-over', 'campaign.recall', '--take-over', 'agent.front-desk', '--auto-approve'), 0);
    const renamed = CAMPAIGN_AND_FILE.replace('Recall A', 'Recall B').replace('  recall:', '  recall-2026:').replace('  faq:', '  clinic-faq:').replace('knowledge: [faq]', 'knowledge: [clinic-faq]');
    await writeFile(manifest, renamed);

    const planned = expectCode(await vx('plan', '--env', 'production', '--detailed-exitcode'), 2).stdout;
    expect(planned).toContain('Nothing to send to the service (local, environment production): it matches the manifests. Apply moves what the state keeps of the keys below.\n');
    expect(planned).toContain('\n    knowledge.faq → knowledge.clinic-faq\n    campaign.recall → campaign.recall-2026\n');
    expect(planned).toContain('\nPlan: 0 to create, 0 to update, 2 renamed, 4 unchanged\n');
    const json = JSON.parse(expectCode(await vx('plan', '--env', 'production', '--format', 'json'), 0).stdout) as { resource_changes: Array<{ address: string; moved_from: string | null }> };
    expect(json.resource_changes.filter((change) => change.moved_from !== null).map((change) => [change.moved_from, change.address])).toEqual([
      ['knowledge.faq', 'knowledge.clinic-faq'],
      ['campaign.recall', 'campaign.recall-2026'],
    ]);

    // A saved plan of moves alone: shown as a plan with changes, and its apply says what it moved, as a fresh one does.
    expectCode(await vx('plan', '--env', 'production', '--out', 'moves.json'), 0);
    expect(expectCode(await runCliInProcess(['plan', 'show', 'moves.json'], { cwd: dir }), 0).stdout).toContain('\nPlan: 0 to create, 0 to update, 2 renamed, 4 unchanged\n');
    const moved = expectCode(await vx('apply', 'moves.json'), 0).stdout;
    expect(moved).toContain('Moved the state of 2 renamed resources to their new keys: knowledge.faq → knowledge.clinic-faq, campaign.recall → campaign.recall-2026\n');
    expect(moved).not.toContain('Nothing to apply');
    const state = JSON.parse(await readFile(path.join(dir, '.voxform', 'state.json'), 'utf8')) as { workspaces: Record<string, { campaigns: object; knowledge: object }> };
    const production = state.workspaces['production@local']!;
    expect(Object.keys(production.campaigns)).toEqual(['campaign.recall-2026']);
    expect(Object.keys(production.knowledge)).toEqual(['knowledge.clinic-faq']);
    expectCode(await vx('plan', '--env', 'production', '--detailed-exitcode'), 0);
  }, 60_000);
});

describe('two agent keys that swap their ids', () => {
  it('are planned as keys swapped, not as the same resources renamed, in text and Markdown', async () => {
    const manifest = ['version: 1', 'agents:', `  front-desk: { id: ${FRONT_DESK_ID}, name: Front desk }`, '  booking: { id: -OKdqbqetEcM4ak369yn, name: Booking }', ''].join('\n');
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const vx = async (...args: string[]) => expectCode(await runCliInProcess([...args, '--local'], { cwd: dir }), 0);
    await vx('apply', '--auto-approve');
    await writeFile(path.join(dir, 'voxform.yaml'), manifest.replace(FRONT_DESK_ID, 'SWAP').replace('-OKdqbqetEcM4ak369yn', FRONT_DESK_ID).replace('SWAP', '-OKdqbqetEcM4ak369yn'));

    const text = (await vx('plan')).stdout;
    expect(text).toContain('  ~ agent.booking (-OKdqbqetEcM4ak369ym) will be updated in place\n      ~ name: "Front desk" → "Booking"\n');
    expect(text).toContain(
      "\nKeys swapped (each key now names the resource another key named at the last apply, an agent or campaign by its id, a knowledge file by its content, and that resource gets the key's configuration: apply moves what the state keeps of each to the key that names it now):\n    agent.front-desk ↔ agent.booking\n",
    );
    expect(text).not.toContain('Renamed');
    const markdown = (await vx('plan', '--format', 'markdown')).stdout;
    expect(markdown).toContain("\n**Keys swapped** (each key now names the resource another key named at the last apply, an agent or campaign by its id, a knowledge file by its content, and that resource gets the key's configuration: apply moves what the state keeps of each to the key that names it now): `agent.front-desk ↔ agent.booking`.\n");
    expect(markdown).not.toContain('Renamed');
    expect(text).toContain('\nPlan: 0 to create, 2 to update, 2 keys swapped, 0 unchanged\n');
  }, 60_000);

  it('applied alone (the two configured alike, nothing to send): the apply says the keys were swapped, not renamed', async () => {
    const manifest = ['version: 1', 'agents:', `  front-desk: { id: ${FRONT_DESK_ID}, name: Desk }`, '  booking: { id: -OKdqbqetEcM4ak369yn, name: Desk }', ''].join('\n');
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const vx = async (...args: string[]) => expectCode(await runCliInProcess([...args, '--local'], { cwd: dir }), 0);
    await vx('apply', '--auto-approve');
    await writeFile(path.join(dir, 'voxform.yaml'), manifest.replace(FRONT_DESK_ID, 'SWAP').replace('-OKdqbqetEcM4ak369yn', FRONT_DESK_ID).replace('SWAP', '-OKdqbqetEcM4ak369yn'));

    const applied = (await vx('apply', '--auto-approve')).stdout;
    expect(applied).toContain('Moved the state of swapped keys to the key that names each resource now: agent.front-desk ↔ agent.booking\n');
    expect(applied).not.toContain('renamed');
  }, 60_000);

  it('go whole into a plan limited to one of them: as a swap, and applied without losing the other key\'s state entry', async () => {
    const manifest = ['version: 1', 'agents:', `  front-desk: { id: ${FRONT_DESK_ID}, name: Front desk }`, '  booking: { id: -OKdqbqetEcM4ak369yn, name: Booking }', ''].join('\n');
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const vx = async (...args: string[]) => expectCode(await runCliInProcess([...args, '--local'], { cwd: dir }), 0);
    await vx('apply', '--auto-approve');
    await writeFile(path.join(dir, 'voxform.yaml'), manifest.replace(FRONT_DESK_ID, 'SWAP').replace('-OKdqbqetEcM4ak369yn', FRONT_DESK_ID).replace('SWAP', '-OKdqbqetEcM4ak369yn'));

    const text = (await vx('plan', '--target', 'agent.booking')).stdout;
    expect(text).toContain('  ~ agent.booking (-OKdqbqetEcM4ak369ym) will be updated in place\n');
    expect(text).toContain('  ~ agent.front-desk (-OKdqbqetEcM4ak369yn) will be updated in place\n');
    expect(text).toContain('):\n    agent.front-desk ↔ agent.booking\n');
    expect(text).not.toContain('Renamed');

    await vx('apply', '--target', 'agent.booking', '--auto-approve');
    const state = JSON.parse(await readFile(path.join(dir, '.voxform', 'state.json'), 'utf8')) as { workspaces: Record<string, { agents: Record<string, { id: string }> }> };
    const agents = state.workspaces['default@local']!.agents;
    expect(Object.fromEntries(Object.entries(agents).map(([address, entry]) => [address, entry.id]))).toEqual({ 'agent.booking': FRONT_DESK_ID, 'agent.front-desk': '-OKdqbqetEcM4ak369yn' });
    expect((await vx('plan')).stdout).toContain('No changes. The service (local) matches the manifests.');
  }, 60_000);
});
