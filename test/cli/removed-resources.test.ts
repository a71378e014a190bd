/**
 * Resources removed from the manifests against the embedded emulator (`--local`): the service has no
 * delete for them, so the plan sends nothing, but lists each one the state records, in every format,
 * says how to detach a knowledge file a live agent keeps, and names the manifest files it read. It
 * counts no change; apply keeps their records in the state; an older saved plan is still read.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCliInProcess, useTempDirs, type CliResult } from '../helpers/cli.js';

const tempDir = useTempDirs();

const FULL = `version: 1
agents:
  front-desk: { id: -OKdqbqetEcM4ak369ym, name: Front desk, knowledge: [prices] }
  booking: { id: -OKdqbqetEcM4ak369yn, name: Booking }
phones:
  "+15551230001": { agent: booking }
knowledge:
  prices: { file: kb/prices.md }
credentials:
  - { provider: openai, api_key: "\${env:OPENAI_KEY:-dev-key-123456}" }
`;

const FRONT_DESK_ONLY = 'version: 1\nagents:\n  front-desk: { id: -OKdqbqetEcM4ak369ym, name: Front desk }\n';

/** schemas/plan.schema.json under a strict validator, as test/plan/plan-schema.test.ts compiles it. */
async function planSchema() {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormatsModule.default(ajv);
  ajv.addKeyword({ keyword: 'enumDescriptions', schemaType: 'array' });
  return ajv.compile(JSON.parse(await readFile(path.join(repoRoot, 'schemas/plan.schema.json'), 'utf8')));
}

function expectCode(result: CliResult, code: number): CliResult {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
  return result;
}

/** A project whose full manifest was applied, then cut down to the front desk, its price list deleted. */
async function cutDownProject(): Promise<{ dir: string; vx: (...args: string[]) => Promise<CliResult>; fileId: string }> {
  const dir = await tempDir({ 'agents.yaml': FULL, 'kb/prices.md': 'Old price list: cleaning $80\n' });
  const vx = (...args: string[]) => runCliInProcess([...args, '--local'], { cwd: dir });
  expectCode(await vx('apply', '--auto-approve'), 0);
  const state = JSON.parse(await readFile(path.join(dir, '.voxform/state.json'), 'utf8')) as { workspaces: Record<string, { knowledge: Record<string, { fileId: string }> }> };
  const fileId = state.workspaces['default@local']!.knowledge['knowledge.prices']!.fileId;
  await writeFile(path.join(dir, 'agents.yaml'), FRONT_DESK_ONLY);
  await rm(path.join(dir, 'kb'), { recursive: true });
  return { dir, vx, fileId };
}

describe('resources removed from the manifests', () => {
  it('are listed in text, Markdown and JSON as left on the service, without counting as changes', async () => {
    const { vx, fileId } = await cutDownProject();
    const detach = 'still attached to agent.front-desk, which lists no knowledge: to detach it, give that agent `knowledge: []`, or the list of files to keep';
    const text = expectCode(await vx('plan', '--detailed-exitcode'), 0).stdout;
    expect(text).toContain(
      [
        'No changes. The service (local) matches the manifests.',
        '',
        'Not managed any more (the manifest files read: agents.yaml):',
        '    agent.booking (-OKdqbqetEcM4ak369yn): no longer in the manifests; left as is on the service',
        '    credential.openai: no longer in the manifests; left as is on the service',
        `    knowledge.prices (${fileId}): no longer in the manifests; left as is on the service; ${detach}`,
        '    phone.+15551230001: no longer in the manifests; left as is on the service',
        '',
      ].join('\n'),
    );
    expect(text).toContain('Plan: 0 to create, 0 to update, 1 unchanged');

    const markdown = expectCode(await vx('plan', '--format', 'markdown'), 0).stdout;
    expect(markdown).toContain('**Not managed any more** (the manifest files read: `agents.yaml`):\n\n- `agent.booking` (`-OKdqbqetEcM4ak369yn`): no longer in the manifests; left as is on the service\n');
    expect(markdown).toContain(`- \`knowledge.prices\` (\`${fileId}\`): no longer in the manifests; left as is on the service; still attached to \`agent.front-desk\`, which lists no knowledge`);

    const json = JSON.parse(expectCode(await vx('plan', '--format', 'json'), 0).stdout) as Record<string, unknown>;
    expect(json.format_version).toBe('1.8');
    expect(json.no_longer_managed).toEqual([
      { address: 'agent.booking', kind: 'agent', id: '-OKdqbqetEcM4ak369yn', attached_to: [] },
      { address: 'credential.openai', kind: 'credential', id: 'openai', attached_to: [] },
      { address: 'knowledge.prices', kind: 'knowledge', id: fileId, attached_to: ['agent.front-desk'] },
      { address: 'phone.+15551230001', kind: 'phone', id: '+15551230001', attached_to: [] },
    ]);
    const validate = await planSchema();
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);

    // Limited to some addresses, the plan says nothing of the others.
    expect(expectCode(await vx('plan', '--target', 'agent.front-desk'), 0).stdout).not.toContain('Not managed any more');
  }, 60_000);

  it('keep their records through an apply, and the file is detached as the list says', async () => {
    const { dir, vx } = await cutDownProject();
    expectCode(await vx('apply', '--auto-approve'), 0);
    const shown = expectCode(await runCliInProcess(['state', 'show'], { cwd: dir }), 0).stdout;
    expect(shown).toContain('  Records: 2 agents, 1 phone, 0 campaigns, 1 knowledge file, 1 credential\n    agent.booking: -OKdqbqetEcM4ak369yn\n');

    await writeFile(path.join(dir, 'agents.yaml'), FRONT_DESK_ONLY.replace('name: Front desk }', 'name: Front desk, knowledge: [] }'));
    const planned = expectCode(await vx('plan'), 0).stdout;
    expect(planned).toContain('~ knowledge: ["kf_');
    expect(planned).toContain('left as is on the service\n    phone.');
    expect(planned).not.toContain('still attached');
  }, 60_000);

  it('say nothing of detaching a file from an agent whose config lists its files by id (as export writes it)', async () => {
    const { dir, vx, fileId } = await cutDownProject();
    await writeFile(path.join(dir, 'agents.yaml'), FRONT_DESK_ONLY.replace('name: Front desk }', `name: Front desk, config: { knowledge_base: { files: [${fileId}] } } }`));
    const planned = expectCode(await vx('plan', '--detailed-exitcode'), 0).stdout;
    expect(planned).toContain(`knowledge.prices (${fileId}): no longer in the manifests; left as is on the service\n`);
    expect(planned).not.toContain('still attached');
  }, 60_000);

  it('are not listed for an agent key renamed: a move, not a removal', async () => {
    const { dir, vx } = await cutDownProject();
    await writeFile(path.join(dir, 'agents.yaml'), FRONT_DESK_ONLY.replace('front-desk:', 'reception:'));
    const renamed = expectCode(await vx('plan'), 0).stdout;
    expect(renamed).toContain('agent.front-desk → agent.reception');
    expect(renamed).not.toContain('agent.front-desk (');
    expect(renamed).toContain('    agent.booking (-OKdqbqetEcM4ak369yn): no longer in the manifests');
  }, 60_000);

  it('never name an agent or knowledge file whose id the manifests still manage, under whatever key the state records it', async () => {
    const dir = await tempDir({ 'agents.yaml': FULL, 'kb/prices.md': 'Old price list: cleaning $80\n' });
    const vx = (...args: string[]) => runCliInProcess([...args, '--local'], { cwd: dir });
    expectCode(await vx('apply', '--auto-approve'), 0);
    // An edited state: entries under keys the manifests do not name, holding the ids of resources they do.
    const file = path.join(dir, '.voxform/state.json');
    const state = JSON.parse(await readFile(file, 'utf8')) as { workspaces: Record<string, { agents: Record<string, { id: string }>; knowledge: Record<string, object> }> };
    const workspace = state.workspaces['default@local']!;
    workspace.agents['agent.ghost'] = { ...workspace.agents['agent.booking']!, id: workspace.agents['agent.front-desk']!.id };
    workspace.knowledge['knowledge.old-prices'] = workspace.knowledge['knowledge.prices']!;
    await writeFile(file, JSON.stringify(state, null, 2));
    const planned = expectCode(await vx('plan'), 0).stdout;
    expect(planned).toContain('No changes.');
    expect(planned).not.toContain('Not managed any more');
  }, 60_000);

  it('name the agent and the campaign a key named before it was given another id, in every format', async () => {
    const manifest = [
      'version: 1',
      'agents:',
      '  booking: { id: -OKdqbqetEcM4ak369yn, name: Booking }',
      'phones:',
      '  "+15551230001": { agent: booking }',
      'campaigns:',
      '  recall: { id: cmp_recall_2026, name: Recall, caller: "+15551230001" }',
      '',
    ].join('\n');
    const dir = await tempDir({ 'agents.yaml': manifest });
    const vx = (...args: string[]) => runCliInProcess([...args, '--local'], { cwd: dir });
    expectCode(await vx('apply', '--auto-approve'), 0);
    await writeFile(path.join(dir, 'agents.yaml'), manifest.replace('-OKdqbqetEcM4ak369yn', '-OKstagingBooking0001').replace('cmp_recall_2026', 'cmp_other_2027'));

    const text = expectCode(await vx('plan'), 0).stdout;
    expect(text).toContain('  ~ agent.booking (-OKstagingBooking0001) will be updated in place (the key named agent -OKdqbqetEcM4ak369yn at the last apply)\n');
    expect(text).toContain(
      '  ~ campaign.recall (cmp_other_2027) will be updated (live state unknown: the key named campaign cmp_recall_2026 at the last apply, so nothing is recorded of this one, and campaigns cannot be read back, so voxform applies every field)\n',
    );
    expect(text).toContain(
      [
        'Not managed any more (the manifest files read: agents.yaml):',
        "    agent.booking's earlier agent -OKdqbqetEcM4ak369yn: the key now names -OKstagingBooking0001; left as is on the service, and apply replaces its record with the new one's",
        "    campaign.recall's earlier campaign cmp_recall_2026: the key now names cmp_other_2027; left as is on the service, and apply replaces its record with the new one's",
        '',
      ].join('\n'),
    );
    const markdown = expectCode(await vx('plan', '--format', 'markdown'), 0).stdout;
    expect(markdown).toContain("- `agent.booking`'s earlier agent `-OKdqbqetEcM4ak369yn`: the key now names `-OKstagingBooking0001`; left as is on the service");

    const json = JSON.parse(expectCode(await vx('plan', '--format', 'json'), 0).stdout) as { no_longer_managed: unknown; resource_changes: Array<{ address: string; earlier_id?: string }> };
    expect(json.no_longer_managed).toEqual([
      { address: 'agent.booking', kind: 'agent', id: '-OKdqbqetEcM4ak369yn', attached_to: [], key_now_names: '-OKstagingBooking0001' },
      { address: 'campaign.recall', kind: 'campaign', id: 'cmp_recall_2026', attached_to: [], key_now_names: 'cmp_other_2027' },
    ]);
    expect(json.resource_changes.filter((change) => change.earlier_id !== undefined).map((change) => [change.address, change.earlier_id])).toEqual([
      ['agent.booking', '-OKdqbqetEcM4ak369yn'],
      ['campaign.recall', 'cmp_recall_2026'],
    ]);
    const validate = await planSchema();
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);

    // A saved plan shows the same; limited to the campaign, the plan still says what its key named.
    expectCode(await vx('plan', '--out', 'plan.json'), 0);
    const shown = expectCode(await runCliInProcess(['plan', 'show', 'plan.json'], { cwd: dir }), 0).stdout;
    expect(shown).toContain("    campaign.recall's earlier campaign cmp_recall_2026: the key now names cmp_other_2027;");
    expect(shown).toContain('(the key named agent -OKdqbqetEcM4ak369yn at the last apply)');
    expect(expectCode(await vx('plan', '--target', 'campaign.recall'), 0).stdout).toContain('live state unknown: the key named campaign cmp_recall_2026 at the last apply');
  }, 60_000);

  it('are read back from a saved plan, and a saved plan of format 1.5 is still read', async () => {
    const { dir, vx } = await cutDownProject();
    expectCode(await vx('plan', '--out', 'plan.json'), 0);
    const shown = expectCode(await runCliInProcess(['plan', 'show', 'plan.json'], { cwd: dir }), 0).stdout;
    expect(shown).toContain('    credential.openai: no longer in the manifests; left as is on the service\n');
    const { no_longer_managed: _listed, ...older } = JSON.parse(await readFile(path.join(dir, 'plan.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(path.join(dir, 'older.json'), JSON.stringify({ ...older, format_version: '1.5' }, null, 2));
    const olderShown = expectCode(await runCliInProcess(['plan', 'show', 'older.json'], { cwd: dir }), 0).stdout;
    expect(olderShown).toContain('No changes.');
    expect(olderShown).not.toContain('Not managed any more');
  }, 60_000);
});
