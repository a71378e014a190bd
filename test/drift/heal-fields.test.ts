/**
 * `voxform drift --heal` writes only the fields changed outside voxform, each back to what voxform
 * last applied there: never a field the last apply set that the history missed, never one in git
 * but not applied yet (a production secret the cron job cannot know among them), never one another
 * environment's apply set. In process, against the emulator on loopback.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/schema/types.gen.js';
import type { CliResult } from '../helpers/cli.js';
import { callService, SECRETS, useExampleProjects, type ExampleProject } from '../helpers/project.js';

const startProject = useExampleProjects();
const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const BOOKING = '-OKdqbqetEcM4ak369yn';

function expectCode(result: CliResult, code: number): CliResult {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
  return result;
}

async function liveAgent(p: ExampleProject, id: string): Promise<Agent> {
  return (await callService(p, 'GET', `/agents/${encodeURIComponent(id)}`)) as Agent;
}

/** A dashboard edit: the service keeps every top-level config key the body leaves out. */
async function dashboardEdit(p: ExampleProject, id: string, config: Record<string, unknown>): Promise<void> {
  await callService(p, 'PUT', `/agents/${encodeURIComponent(id)}`, { name: (await liveAgent(p, id)).name, config });
}

async function editManifest(p: ExampleProject, from: string, to: string): Promise<void> {
  const file = path.join(p.dir, 'voxform.yaml');
  const text = await readFile(file, 'utf8');
  expect(text).toContain(from);
  await writeFile(file, text.replace(from, to));
}

describe('drift --heal', () => {
  it('leaves a field the history missed as last applied, and refuses to put back an older value of one changed outside voxform', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    await editManifest(p, 'temperature: 0.4', 'temperature: 0.55');
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    // The record of that apply could not be written: the newest holding the agent has 0.4.
    const folder = path.join(p.dir, '.voxform/history');
    const newest = (await readdir(folder)).filter((name) => name.endsWith('.json')).sort().at(-1) as string;
    await rm(path.join(folder, newest));

    await dashboardEdit(p, FRONT_DESK, { llm: { temperature: 0.7 } });
    const refused = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve']), 1);
    expect(refused.stderr).toContain('error[drift_heal_unrecorded]: Cannot heal agent.front-desk: history record');
    expect(refused.stderr).toContain('does not hold what voxform last applied at config.llm.temperature; nothing was changed.');
    expect((await liveAgent(p, FRONT_DESK)).config.llm?.temperature).toBe(0.7);

    await dashboardEdit(p, FRONT_DESK, { llm: { temperature: 0.55 }, first_message: 'DASH' });
    const healed = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve']), 0);
    const healPlan = healed.stdout.slice(healed.stdout.indexOf('Healing front-desk'));
    expect(healPlan).toContain('~ config.first_message');
    expect(healPlan).not.toContain('temperature');
    const live = await liveAgent(p, FRONT_DESK);
    expect([live.config.first_message, live.config.llm?.temperature]).toEqual(['Thanks for calling Acme Dental, this is Ava. How can I help you today?', 0.55]);
    expectCode(await p.cliInProcess(['drift']), 0);
  }, 120_000);

  it('leaves a secret in git but not applied yet as the service holds it, run without the variable that set it', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    await dashboardEdit(p, FRONT_DESK, { first_message: 'DASH' });
    // As the cron job runs it: HOOK_TOKEN is production's, not the job's, so the manifests read the default.
    const withoutToken = { HOOK_TOKEN: undefined } as unknown as Record<string, string>;
    const drift = expectCode(await p.cliInProcess(['drift', '--format', 'json'], withoutToken), 2);
    const fields = (JSON.parse(drift.stdout) as { resources: Array<{ fields: Array<{ path: string; class: string }> }> }).resources.flatMap((r) => r.fields.map((f) => [f.path, f.class]));
    expect(fields).toEqual([
      ['config.first_message', 'outside'],
      ['config.session_data_webhook.headers.x-hook-token', 'pending'],
    ]);

    const healed = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve'], withoutToken), 2);
    const live = await liveAgent(p, FRONT_DESK);
    expect((live.config.session_data_webhook as { headers?: Record<string, string> }).headers?.['x-hook-token']).toBe(SECRETS.HOOK_TOKEN);
    expect(live.config.first_message).toBe('Thanks for calling Acme Dental, this is Ava. How can I help you today?');
    const healPlan = healed.stdout.slice(healed.stdout.indexOf('Healing front-desk'));
    expect(healPlan.slice(healPlan.indexOf('voxform will make'), healPlan.indexOf('Heal complete'))).not.toContain('x-hook-token');
    expect(healPlan).toContain('Left as the service holds them: agent.front-desk config.session_data_webhook.headers.x-hook-token (in git, not applied yet).');
    expect(healPlan).toContain('Still differs after the heal: agent.front-desk config.session_data_webhook.headers.x-hook-token (in git, not applied yet).');
    // The heal's record keeps the reference, not the value it left.
    const history = await Promise.all((await readdir(path.join(p.dir, '.voxform/history'))).filter((name) => name.endsWith('.json')).map((name) => readFile(path.join(p.dir, '.voxform/history', name), 'utf8')));
    for (const text of history) expect(text).not.toContain(SECRETS.HOOK_TOKEN);
    // With the variable set, nothing differs.
    expectCode(await p.cliInProcess(['drift']), 0);
  }, 120_000);

  it('records a field it leaves as the last apply wrote it, not as the manifests now read it (a new ${env:…} in git)', async () => {
    const p = await startProject();
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    await editManifest(p, 'first_message: Thanks for calling Acme Dental, this is Ava. How can I help you today?', 'first_message: "Thanks for calling ${env:CLINIC_NAME}, this is Ava."');
    await dashboardEdit(p, FRONT_DESK, { llm: { temperature: 0.8 } });
    const withClinic = { CLINIC_NAME: 'Acme Dental Clinic' };
    const healed = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve'], withClinic), 2);
    expect(healed.stdout).toContain('Left as the service holds them: agent.front-desk config.first_message (in git, not applied yet).');
    const history = JSON.parse(expectCode(await p.cliInProcess(['history', '--format', 'json', '--limit', '1'], withClinic), 0).stdout) as { records: Array<{ agents: Record<string, { config: Record<string, unknown>; masked_paths?: string[] }> }> };
    const frontDesk = history.records[0]!.agents['front-desk']!;
    expect(frontDesk.config.first_message).toBe('Thanks for calling Acme Dental, this is Ava. How can I help you today?');
    expect(frontDesk.masked_paths ?? []).not.toContain('first_message');
    // A later dashboard edit of it is healed as any other.
    await dashboardEdit(p, FRONT_DESK, { first_message: 'DASH' });
    expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve'], withClinic), 2);
    expect((await liveAgent(p, FRONT_DESK)).config.first_message).toBe('Thanks for calling Acme Dental, this is Ava. How can I help you today?');
  }, 120_000);

  it("puts back what changed outside voxform of an agent another environment's apply also changed, and leaves that environment's value", async () => {
    const p = await startProject();
    await editManifest(p, 'booking: { id: -OKstagingBooking0001 }', 'booking: { config: { first_message: Staging booking. } }');
    expectCode(await p.cliInProcess(['apply', '--auto-approve']), 0);
    expectCode(await p.cliInProcess(['apply', '--env', 'staging', '--take-over', 'agent.booking', '--auto-approve']), 0);
    const tools = (await liveAgent(p, BOOKING)).config.tools as Array<Record<string, unknown>>;
    // `response_mode` is the service's own: an update does not take it.
    await dashboardEdit(p, BOOKING, { tools: tools.map(({ response_mode: _, ...tool }) => ({ ...tool, description: 'Edited on the dashboard.' })) });

    // The report says what the heal below does: which fields it puts back, which it leaves.
    const text = expectCode(await p.cliInProcess(['drift']), 2).stdout;
    expect(text).toContain("! agent.booking (-OKdqbqetEcM4ak369yn) changed by staging's apply  --heal puts back config.tools; leaves config.first_message as the service holds it\n");
    expect(text).not.toContain('puts it back');
    const markdown = expectCode(await p.cliInProcess(['drift', '--format', 'markdown']), 2).stdout;
    expect(markdown).toContain("| `agent.booking` | changed by `staging`'s apply | `config.first_message`, `config.tools` | puts back `config.tools`; leaves `config.first_message` as the service holds it |");

    const healed = expectCode(await p.cliInProcess(['drift', '--heal', '--auto-approve']), 2);
    expect(healed.stdout).toContain("Left as the service holds them: agent.booking config.first_message (changed by staging's apply).");
    const live = await liveAgent(p, BOOKING);
    expect(live.config.tools?.[0]?.description).toBe('Find free appointment slots on a given day.');
    expect(live.config.first_message).toBe('Staging booking.');
    const left = JSON.parse(expectCode(await p.cliInProcess(['drift', '--format', 'json']), 2).stdout) as { resources: Array<{ address: string; fields: Array<{ path: string; class: string }> }> };
    expect(left.resources.map((r) => [r.address, r.fields.map((f) => [f.path, f.class])])).toEqual([['agent.booking', [['config.first_message', 'environment']]]]);
  }, 120_000);
});
