/**
 * Two environments of one service share the account's numbers, campaigns and credentials: a plan that
 * would undo another environment's last apply of one of them is refused before anything is sent
 * (plan, apply and drift share the check), unless the operator names it with --take-over.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCliInProcess, runPrinted, useTempDirs } from '../helpers/cli.js';
import { initRepository } from '../helpers/git.js';
import { findSharedConflicts, readOtherWorkspaces, sharedView } from '../../src/plan/shared-resources.js';
import type { ResourceChange } from '../../src/plan/types.js';
import { FileStateBackend } from '../../src/state/file-backend.js';
import { emptyWorkspace, hashApplied, type WorkspaceState } from '../../src/state/types.js';
import { fingerprintKeyId } from '../../src/util/hash.js';
import { desiredCampaign, desiredState } from '../helpers/desired.js';
import { asAdmin, freshDatabase } from '../helpers/postgres.js';

const tempDir = useTempDirs();

const MANIFEST = [
  'version: 1',
  'agents:',
  '  desk: { id: -OKspareAgent0000001, name: Desk }',
  'phones:',
  '  "+15551230001": { agent: desk }',
  'campaigns:',
  '  recall: { id: cmp_recall_2026, name: Recall, caller: "+15551230001" }',
  'credentials:',
  '  - { provider: openai, api_key: "${env:OPENAI_KEY:-key-one}" }',
  'environments:',
  '  staging:',
  '    agents: { desk: { id: -OKspareAgent0000002 } }',
  '',
].join('\n');

/** `MANIFEST` whose staging overlay leaves the number with the default environment's agent, plus `overlay` lines. */
function pinnedManifest(...overlay: string[]): string {
  return `${MANIFEST}    phones: { "+15551230001": { agent: { id: -OKspareAgent0000001 } } }\n${overlay.map((line) => `    ${line}\n`).join('')}`;
}

async function validatePlan(document: unknown): Promise<void> {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormatsModule.default(ajv);
  ajv.addKeyword({ keyword: 'enumDescriptions', schemaType: 'array' });
  const validate = ajv.compile(JSON.parse(await readFile(path.join(repoRoot, 'schemas', 'plan.schema.json'), 'utf8')) as object);
  expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
}

const cli = (cwd: string, ...args: string[]) => runCliInProcess([...args, '--local'], { cwd });

async function boundAgent(cwd: string): Promise<string> {
  const { phones } = JSON.parse((await cli(cwd, 'get', 'phones', '--format', 'json')).stdout) as { phones: Array<{ number: string; agent_id: string }> };
  return phones.find((phone) => phone.number === '+15551230001')!.agent_id;
}

describe('a number another environment of the service bound', () => {
  it('is not rebound by plan or apply; --take-over moves it, and drift then names the environment that did', async () => {
    const cwd = await tempDir({ 'voxform.yaml': MANIFEST });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);

    const conflict =
      'error[shared_resource_conflict]: voxform.yaml:5:3: phone.+15551230001: the last apply of the default environment (no --env) bound it to agent -OKspareAgent0000001; this plan would bind it to -OKspareAgent0000002.';
    const apply = await cli(cwd, 'apply', '--env', 'staging', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(conflict);
    expect(apply.stderr).toContain('Nothing was sent.');
    // The commands to paste, with this run's environment and service.
    expect(apply.stderr).toContain(
      'To move it to this environment on purpose, review `voxform plan --take-over phone.+15551230001 --env staging --local`, then run `voxform apply --take-over phone.+15551230001 --env staging --local`.',
    );
    expect(await boundAgent(cwd)).toBe('-OKspareAgent0000001');
    const plan = await cli(cwd, 'plan', '--env', 'staging');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(conflict);
    expect(plan.stderr).toContain('review `voxform plan --take-over phone.+15551230001 --env staging --local`, then run `voxform apply --take-over phone.+15551230001 --env staging --local`.');

    const takeOver = await cli(cwd, 'apply', '--env', 'staging', '--take-over', 'phone.+15551230001', '--auto-approve');
    expect(takeOver.code).toBe(0);
    expect(takeOver.stdout).toContain('~ phone.+15551230001 will be bound to another agent (takes it over from the default environment)\n');
    expect(await boundAgent(cwd)).toBe('-OKspareAgent0000002');
    // The default environment's drift check: staging's apply did it, not someone outside voxform.
    const drift = await cli(cwd, 'drift');
    expect(drift.code).toBe(2);
    expect(drift.stderr).toBe('');
    expect(drift.stdout).toContain("  ! phone.+15551230001 changed by staging's apply\n");
    expect(drift.stdout).toContain("Drift: 1 resource differs: 0 changed outside voxform, 0 in git not applied yet, 0 both, 1 changed by another environment's apply (4 resources checked).");
  });

  it('--take-over names an agent, number, campaign or credential of the manifests, and not with a saved plan', async () => {
    const cwd = await tempDir({ 'voxform.yaml': MANIFEST });
    const unknown = await cli(cwd, 'plan', '--take-over', 'phone.+15550000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('error[invalid_option]: --take-over phone.+15550000000 names no agent, phone, campaign or credential of the manifests.');
    expect(unknown.stderr).toContain('hint: Name one of: agent.desk, phone.+15551230001, campaign.recall, credential.openai.');
    // A number written with separators, as the manifests' keys are read, and a typo.
    const spaced = await cli(cwd, 'plan', '--take-over', 'phone.+1 555 123 0001');
    expect(spaced.code).toBe(1);
    expect(spaced.stderr).toContain('error[invalid_option]: --take-over phone.+1 555 123 0001 names no agent, phone, campaign or credential of the manifests; did you mean phone.+15551230001?');
    const typo = await cli(cwd, 'plan', '--take-over', 'campaign.recal');
    expect(typo.stderr).toContain('of the manifests; did you mean campaign.recall?');
    expect((await cli(cwd, 'plan', '--out', 'plan.json')).code).toBe(0);
    const saved = await cli(cwd, 'apply', 'plan.json', '--take-over', 'phone.+15551230001');
    expect(saved.code).toBe(1);
    expect(saved.stderr).toContain('error[invalid_option]: A saved plan already names its manifests, environment and targets: pass only the plan file.');
  });
});

describe('a plan that takes a resource over', () => {
  it('says which environment it takes it from, in text, Markdown and JSON, and a saved plan keeps it', async () => {
    const cwd = await tempDir({ 'voxform.yaml': MANIFEST.replace('  staging:\n', '  production:\n    agents: { desk: { id: -OKspareAgent0000003 } }\n  staging:\n') });
    expect((await cli(cwd, 'apply', '--env', 'staging', '--auto-approve')).code).toBe(0);
    const takeOver = ['--env', 'production', '--take-over', 'phone.+15551230001'];
    const text = await cli(cwd, 'plan', ...takeOver);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('~ phone.+15551230001 will be bound to another agent (takes it over from staging)\n');
    // Only the change that undoes staging's apply is marked.
    expect(text.stdout).not.toMatch(/agent\.desk.*takes it over/);
    const markdown = await cli(cwd, 'plan', ...takeOver, '--format', 'markdown');
    expect(markdown.stdout).toContain('| `phone.+15551230001` | 🔄 update (takes it over from staging) | `agent_id` |');
    expect(markdown.stdout).toContain('<code>phone.+15551230001</code> will be bound to another agent (takes it over from staging)');
    const json = JSON.parse((await cli(cwd, 'plan', ...takeOver, '--format', 'json', '--out', 'p.plan')).stdout) as { take_over: string[]; resource_changes: Array<Record<string, unknown>> };
    expect(json.take_over).toEqual(['phone.+15551230001']);
    expect(json.resource_changes.filter((change) => 'takes_over_from' in change)).toEqual([expect.objectContaining({ address: 'phone.+15551230001', takes_over_from: ['staging'] })]);
    await validatePlan(json);
    const shown = await runCliInProcess(['plan', 'show', 'p.plan'], { cwd });
    expect(shown.stdout).toContain('~ phone.+15551230001 will be bound to another agent (takes it over from staging)\n');
  });
});

describe('get, on one account with two environments', () => {
  it("marks a number and a campaign another environment's apply holds with that environment, and shows the campaign as it wrote it", async () => {
    const cwd = await tempDir({ 'voxform.yaml': `${MANIFEST}    campaigns: { recall: { name: Recall (staging) } }\n` });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const phoneRow = (text: string) => text.split('\n').find((line) => line.startsWith('+15551230001 '));
    const campaignRow = (text: string) => text.split('\n').find((line) => line.startsWith('cmp_recall_2026 '));

    // Staging has applied nothing: the number and the campaign are the default environment's.
    expect(phoneRow((await cli(cwd, 'get', 'phones', '--env', 'staging')).stdout)).toMatch(/ default: phone\.\+15551230001$/);
    expect(phoneRow((await cli(cwd, 'get', 'phones')).stdout)).toMatch(/ -OKspareAgent0000001 \(Desk\) +phone\.\+15551230001$/);
    expect(campaignRow((await cli(cwd, 'get', 'campaigns', '--env', 'staging')).stdout)).toMatch(/^cmp_recall_2026 +Recall +\+15551230001 +default: campaign\.recall /);

    expect((await cli(cwd, 'apply', '--env', 'staging', '--take-over', 'phone.+15551230001', '--take-over', 'campaign.recall', '--auto-approve')).code).toBe(0);
    // Staging took both: the default environment's listing says so, and shows the campaign as staging set it.
    expect(phoneRow((await cli(cwd, 'get', 'phones')).stdout)).toMatch(/ staging: phone\.\+15551230001$/);
    expect(campaignRow((await cli(cwd, 'get', 'campaigns')).stdout)).toMatch(/^cmp_recall_2026 +Recall \(staging\) +\+15551230001 +staging: campaign\.recall /);
    expect(campaignRow((await cli(cwd, 'get', 'campaigns', '--env', 'staging')).stdout)).toMatch(/^cmp_recall_2026 +Recall \(staging\) +\+15551230001 +campaign\.recall /);
    const phones = JSON.parse((await cli(cwd, 'get', 'phones', '--format', 'json')).stdout) as { phones: Array<Record<string, unknown>> };
    expect(phones.phones.find((phone) => phone.number === '+15551230001')).toMatchObject({ managed_by: 'phone.+15551230001', environment: 'staging' });
    const campaigns = JSON.parse((await cli(cwd, 'get', 'campaigns', '--format', 'json')).stdout) as { campaigns: Array<Record<string, unknown>> };
    expect(campaigns.campaigns).toMatchObject([{ id: 'cmp_recall_2026', managed_by: 'campaign.recall', environment: 'staging', last_applied: { name: 'Recall (staging)' } }]);
  });

  it("lists this environment's records when another environment's workspace cannot be read, and says which one and what it costs", async () => {
    const cwd = await tempDir({ 'voxform.yaml': MANIFEST });
    const { url, database } = await freshDatabase();
    const inDatabase = (...args: string[]) => cli(cwd, ...args, '--state', url);
    expect((await inDatabase('apply', '--auto-approve')).code).toBe(0);
    // Staging's row is damaged (a hand edit, a bad restore): the default environment's own state is whole.
    await asAdmin((client) => client.query(`INSERT INTO voxform_workspaces (workspace, serial, state) VALUES ('staging@local', 1, '{"phones": "damaged"}')`), database);
    const phoneRow = (text: string) => text.split('\n').find((line) => line.startsWith('+15551230001 '));
    const campaignRow = (text: string) => text.split('\n').find((line) => line.startsWith('cmp_recall_2026 '));

    const campaigns = await inDatabase('get', 'campaigns');
    expect(campaigns.code, campaigns.stderr).toBe(0);
    expect(campaignRow(campaigns.stdout)).toMatch(/^cmp_recall_2026 +Recall +\+15551230001 +campaign\.recall +manifest, state, calls +10$/);
    expect(campaigns.stdout).toContain('the campaigns the state records (1, workspace default@local)');
    expect(campaigns.stdout).not.toContain('The state could not be read');
    expect(campaigns.stdout).toMatch(/\nThe state of environment staging could not be read, so no campaign is marked with staging, and a campaign staging applied last may show an older NAME and CALLER than the service holds: The state of workspace staging@local in .*\n$/);
    const campaignsJson = JSON.parse((await inDatabase('get', 'campaigns', '--format', 'json')).stdout) as { campaigns: unknown[]; sources: { state: Record<string, unknown> } };
    expect(campaignsJson.campaigns).toMatchObject([{ id: 'cmp_recall_2026', managed_by: 'campaign.recall', environment: null, last_applied: { name: 'Recall' } }]);
    expect(campaignsJson.sources.state).toEqual({ workspace: 'default@local', campaigns: 1, unread_environments: [{ environment: 'staging', problem: expect.stringContaining('staging@local') }] });

    const phones = await inDatabase('get', 'phones');
    expect(phones.code, phones.stderr).toBe(0);
    // Which agents' names an apply filled from the environment is then not known: none is shown (docs/get.md).
    expect(phoneRow(phones.stdout)).toMatch(/ -OKspareAgent0000001 \(sensitive\) +phone\.\+15551230001$/);
    expect(phones.stdout).toMatch(/\nThe state of environment staging could not be read, so no number is marked with staging: The state of workspace staging@local in .*\n$/);
    const phonesJson = JSON.parse((await inDatabase('get', 'phones', '--format', 'json')).stdout) as { sources: { state: Record<string, unknown> } };
    expect(phonesJson.sources.state).toEqual({ workspace: 'default@local', unread_environments: [{ environment: 'staging', problem: expect.stringContaining('staging@local') }] });

    // Knowledge files are each environment's own: the other workspaces are not read.
    const knowledge = JSON.parse((await inDatabase('get', 'knowledge', '--format', 'json')).stdout) as { sources: { state: Record<string, unknown> } };
    expect(knowledge.sources.state).toEqual({ workspace: 'default@local', files: 0 });

    // A row that is not JSON keeps the service's workspaces from being listed at all: said so, and this environment's records still listed.
    await asAdmin((client) => client.query(`UPDATE voxform_workspaces SET state = '{"phones":' WHERE workspace = 'staging@local'`), database);
    const unlisted = await inDatabase('get', 'campaigns');
    expect(campaignRow(unlisted.stdout)).toMatch(/^cmp_recall_2026 +Recall +\+15551230001 +campaign\.recall +manifest, state, calls +10$/);
    expect(unlisted.stdout).toMatch(/\nThe service's other workspaces could not be listed, so no campaign is marked with another environment, and a campaign another environment applied last may show an older NAME and CALLER than the service holds: .*staging@local.*\n$/);
  });
});

describe('a number another environment only kept where it was', () => {
  it('is not that environment\'s: the environment that bound it rebinds it without --take-over, and drift calls it pending', async () => {
    const cwd = await tempDir({ 'voxform.yaml': pinnedManifest() });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const staging = await cli(cwd, 'apply', '--env', 'staging', '--auto-approve');
    expect(staging.code).toBe(0);
    expect(staging.stdout + staging.stderr).not.toContain('phone.');

    await writeFile(path.join(cwd, 'voxform.yaml'), pinnedManifest().replace('"+15551230001": { agent: desk }', '"+15551230001": { agent: { id: -OKspareAgent0000003 } }'));
    const drift = await cli(cwd, 'drift');
    expect(drift.stdout).toContain('  ! phone.+15551230001 in git, not applied yet\n');
    expect(drift.stdout).not.toContain('another environment');
    expect((await cli(cwd, 'plan')).code).toBe(0);
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect(await boundAgent(cwd)).toBe('-OKspareAgent0000003');

    // Its binding was the default environment's own: staging, still pinned to the old agent, is refused.
    const refused = await cli(cwd, 'plan', '--env', 'staging');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('phone.+15551230001: the last apply of the default environment (no --env) bound it to agent -OKspareAgent0000003; this plan would bind it to -OKspareAgent0000001.');
  });

  it('stays the environment\'s that bound it when that environment later finds it bound as it wants', async () => {
    const cwd = await tempDir({ 'voxform.yaml': pinnedManifest() });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const state = JSON.parse(await readFile(path.join(cwd, '.voxform', 'state.json'), 'utf8')) as { workspaces: Record<string, WorkspaceState> };
    expect(state.workspaces['default@local']!.phones['phone.+15551230001']).toEqual({ agentId: '-OKspareAgent0000001', imported: false });
    const rebind = pinnedManifest().replace('phones: { "+15551230001": { agent: { id: -OKspareAgent0000001 } } }', 'phones: { "+15551230001": { agent: { id: -OKspareAgent0000003 } } }');
    await writeFile(path.join(cwd, 'voxform.yaml'), rebind);
    expect((await cli(cwd, 'plan', '--env', 'staging')).stderr).toContain('error[shared_resource_conflict]');
  });
});

/** `MANIFEST` whose staging overlay leaves the agent on the default environment's id, plus `overlay` lines. */
function sharedAgentManifest(...overlay: string[]): string {
  return pinnedManifest(...overlay).replace('    agents: { desk: { id: -OKspareAgent0000002 } }\n', '');
}

async function liveName(cwd: string): Promise<string> {
  const { agents } = JSON.parse((await cli(cwd, 'get', 'agents', '--format', 'json')).stdout) as { agents: Array<{ id: string; name: string }> };
  return agents.find((agent) => agent.id === '-OKspareAgent0000001')!.name;
}

describe('an agent an overlay leaves on the id another environment applied', () => {
  it('is not changed by plan or apply; --take-over changes it, and drift then names the environment that did', async () => {
    const cwd = await tempDir({ 'voxform.yaml': sharedAgentManifest('agents: { desk: { name: Desk (staging) } }') });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const apply = await cli(cwd, 'apply', '--env', 'staging', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      'error[shared_resource_conflict]: voxform.yaml:3:3: agent.desk: the last apply of the default environment (no --env) set name of this agent (both environments name it by one id); this plan would change it.',
    );
    expect(apply.stderr).toContain('review `voxform plan --take-over agent.desk --env staging --local`, then run `voxform apply --take-over agent.desk --env staging --local`.');
    expect(await liveName(cwd)).toBe('Desk');

    expect((await cli(cwd, 'apply', '--env', 'staging', '--take-over', 'agent.desk', '--auto-approve')).code).toBe(0);
    expect(await liveName(cwd)).toBe('Desk (staging)');
    const drift = await cli(cwd, 'drift');
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain("  ! agent.desk (-OKspareAgent0000001) changed by staging's apply\n");
    expect(drift.stdout).not.toContain('--heal');
    expect((await cli(cwd, 'plan')).stderr).toContain('agent.desk: the last apply of environment staging set name of this agent');
  });

  it('is not claimed by an environment that found it as its manifests want', async () => {
    const cwd = await tempDir({ 'voxform.yaml': sharedAgentManifest() });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect((await cli(cwd, 'apply', '--env', 'staging', '--auto-approve')).code).toBe(0);
    await writeFile(path.join(cwd, 'voxform.yaml'), sharedAgentManifest().replace('name: Desk }', 'name: Desk v2 }'));
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect(await liveName(cwd)).toBe('Desk v2');
  });

  it("stays the environment's that set it when that environment's next apply finds it as it sent it", async () => {
    const cwd = await tempDir({ 'voxform.yaml': sharedAgentManifest() });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const again = await cli(cwd, 'apply', '--auto-approve');
    expect(again.stdout).toContain('Nothing to apply.');
    const state = JSON.parse(await readFile(path.join(cwd, '.voxform', 'state.json'), 'utf8')) as { workspaces: Record<string, WorkspaceState> };
    expect(state.workspaces['default@local']!.agents['agent.desk']?.foundLive).toBeUndefined();
    await writeFile(path.join(cwd, 'voxform.yaml'), sharedAgentManifest('agents: { desk: { name: Desk (staging) } }'));
    expect((await cli(cwd, 'plan', '--env', 'staging')).stderr).toContain('agent.desk: the last apply of the default environment (no --env) set name of this agent');
  });
});

describe('a campaign or credential another environment of the service set', () => {
  it("is refused when set differently, at its place in the manifests: a credential the overlay replaces at the overlay's entry", async () => {
    const cwd = await tempDir({ 'voxform.yaml': pinnedManifest('campaigns: { recall: { name: Recall (staging) } }', 'credentials: [{ provider: openai, api_key: "${env:STAGING_KEY:-key-two}" }]') });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const apply = await cli(cwd, 'apply', '--env', 'staging', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      'error[shared_resource_conflict]: voxform.yaml:15:19: credential.openai: the last apply of the default environment (no --env) set another key for this provider; this plan would replace it.',
    );
    expect(apply.stderr).toContain('\n  campaign.recall: the last apply of the default environment (no --env) set name to Recall; this plan would set Recall (staging).\n');
    expect(apply.stderr).toContain('review `voxform plan --take-over credential.openai --take-over campaign.recall --env staging --local`, then run `voxform apply --take-over credential.openai --take-over campaign.recall --env staging --local`.');
    expect(apply.stderr).not.toContain('key-one');
    expect(apply.stderr).not.toContain('key-two');
  });

  it("says (sensitive) for a value the other environment read from ${env:…}, never the hash the state keeps of it", async () => {
    const base = MANIFEST.replace('name: Recall,', 'name: "${env:CAMP_NAME:-planted-camp-3d9f}",');
    const cwd = await tempDir({ 'voxform.yaml': `${base}    phones: { "+15551230001": { agent: { id: -OKspareAgent0000001 } } }\n    campaigns: { recall: { name: staging name } }\n` });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const plan = await cli(cwd, 'plan', '--env', 'staging');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('campaign.recall: the last apply of the default environment (no --env) set name to (sensitive); this plan would set staging name.');
    expect(plan.stderr).not.toMatch(/hmac-sha256|planted-camp/);
  });

  it("names the commands with the run's manifests, state, targets and take-overs", async () => {
    const cwd = await tempDir({ 'agents.yaml': pinnedManifest('campaigns: { recall: { name: Recall (staging) } }', 'credentials: [{ provider: openai, api_key: "${env:STAGING_KEY:-key-two}" }]') });
    const state = ['-f', 'agents.yaml', '--state', 'shared.json'];
    expect((await cli(cwd, 'apply', ...state, '--auto-approve')).code).toBe(0);
    const plan = await cli(cwd, 'plan', ...state, '--env', 'staging', '--target', 'campaign.recall', '--take-over', 'credential.openai');
    expect(plan.code).toBe(1);
    const words = '--take-over credential.openai --take-over campaign.recall -f agents.yaml --env staging --target campaign.recall --local --state shared.json';
    expect(plan.stderr).toContain(`review \`voxform plan ${words}\`, then run \`voxform apply ${words}\`.`);
    const apply = await cli(cwd, 'apply', ...state, '--env', 'staging', '--target', 'campaign.recall', '--take-over', 'credential.openai', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(`review \`voxform plan ${words}\`, then run \`voxform apply ${words}\`.`);
  });

  it('goes through when both set the same values, and the number stays where it is', async () => {
    const cwd = await tempDir({ 'voxform.yaml': pinnedManifest() });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect((await cli(cwd, 'apply', '--env', 'staging', '--auto-approve')).code).toBe(0);
    expect(await boundAgent(cwd)).toBe('-OKspareAgent0000001');
    const drift = await cli(cwd, 'drift');
    expect(drift.code).toBe(0);
    expect(drift.stdout).toMatch(/^No drift/);
  });
});

describe('a campaign another environment took over', () => {
  const staging = pinnedManifest('campaigns: { recall: { name: Recall (staging) } }');

  it("refuses the environment it was taken from, which can take it back; then the taker is refused", async () => {
    const cwd = await tempDir({ 'voxform.yaml': staging });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect((await cli(cwd, 'apply', '--env', 'staging', '--take-over', 'campaign.recall', '--auto-approve')).code).toBe(0);

    // The campaign cannot be read back, and the default environment's state still holds what it applied.
    const plan = await cli(cwd, 'plan');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      'error[shared_resource_conflict]: voxform.yaml:7:3: campaign.recall: the last apply of environment staging set name to Recall (staging); this plan would set Recall.',
    );
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(1);

    const takeBack = await cli(cwd, 'apply', '--take-over', 'campaign.recall', '--auto-approve');
    expect(takeBack.code).toBe(0);
    expect(takeBack.stdout).toContain('campaign.recall');
    expect((await cli(cwd, 'plan', '--detailed-exitcode')).code).toBe(0);
    const stagingPlan = await cli(cwd, 'plan', '--env', 'staging');
    expect(stagingPlan.code).toBe(1);
    expect(stagingPlan.stderr).toContain('campaign.recall: the last apply of the default environment (no --env) set name to Recall; this plan would set Recall (staging).');
  });

  it('is taken back by a --take-over that finds it already as desired: the taker is refused from then on', async () => {
    const cwd = await tempDir({ 'voxform.yaml': staging });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect((await cli(cwd, 'apply', '--env', 'staging', '--take-over', 'campaign.recall', '--auto-approve')).code).toBe(0);
    // The default environment's manifests come to agree with staging's values, and it takes them back.
    await writeFile(path.join(cwd, 'voxform.yaml'), staging.replace('name: Recall,', 'name: Recall (staging),'));
    const takeBack = await cli(cwd, 'apply', '--take-over', 'campaign.recall', '--auto-approve');
    expect(takeBack.code).toBe(0);
    expect(takeBack.stdout).not.toContain('campaign.recall');

    await writeFile(path.join(cwd, 'voxform.yaml'), staging.replace('name: Recall,', 'name: Recall (staging),').replace('name: Recall (staging) }', 'name: Recall (staging v2) }'));
    const stagingPlan = await cli(cwd, 'plan', '--env', 'staging');
    expect(stagingPlan.code).toBe(1);
    expect(stagingPlan.stderr).toContain('campaign.recall: the last apply of the default environment (no --env) set name to Recall (staging); this plan would set Recall (staging v2).');
    // Taken back by an apply that sent nothing, the same again writes nothing more.
    const file = path.join(cwd, '.voxform', 'state.json');
    const before = await readFile(file, 'utf8');
    await writeFile(path.join(cwd, 'voxform.yaml'), staging.replace('name: Recall,', 'name: Recall (staging),'));
    expect((await cli(cwd, 'apply', '--take-over', 'campaign.recall', '--auto-approve')).code).toBe(0);
    const orders = (text: string) => (JSON.parse(text) as { workspaces: Record<string, { campaigns: Record<string, { writeOrder?: number }> }> }).workspaces['default@local']!.campaigns['campaign.recall']!.writeOrder;
    expect(orders(await readFile(file, 'utf8'))).toBe(orders(before));
  });

  it('takes a credential back by a --take-over that finds it already as desired', async () => {
    const cwd = await tempDir({ 'voxform.yaml': pinnedManifest('credentials: [{ provider: openai, api_key: "${env:STAGING_KEY:-key-two}" }]') });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect((await cli(cwd, 'apply', '--env', 'staging', '--take-over', 'credential.openai', '--auto-approve')).code).toBe(0);
    const agreeing = pinnedManifest('credentials: [{ provider: openai, api_key: "${env:STAGING_KEY:-key-two}" }]').replace('OPENAI_KEY:-key-one', 'OPENAI_KEY:-key-two');
    await writeFile(path.join(cwd, 'voxform.yaml'), agreeing);
    expect((await cli(cwd, 'apply', '--take-over', 'credential.openai', '--auto-approve')).code).toBe(0);
    await writeFile(path.join(cwd, 'voxform.yaml'), agreeing.replace('STAGING_KEY:-key-two', 'STAGING_KEY:-key-three'));
    const stagingPlan = await cli(cwd, 'plan', '--env', 'staging');
    expect(stagingPlan.code).toBe(1);
    expect(stagingPlan.stderr).toContain('credential.openai: the last apply of the default environment (no --env) set another key for this provider; this plan would replace it.');
  });

  it("is reported by the drift of the environment it was taken from as changed by the taker's apply, with the commands that take it back", async () => {
    const cwd = await tempDir({ 'voxform.yaml': staging });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect((await cli(cwd, 'apply', '--env', 'staging', '--take-over', 'campaign.recall', '--auto-approve')).code).toBe(0);

    const drift = await cli(cwd, 'drift');
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain("  ! campaign.recall (cmp_recall_2026) changed by staging's apply\n");
    expect(drift.stdout).toContain('review `voxform plan --take-over campaign.recall --local`, then run `voxform apply --take-over campaign.recall --local`.');
    expect(drift.stdout).not.toContain('outside voxform and');
    const json = JSON.parse((await cli(cwd, 'drift', '--format', 'json')).stdout) as { summary: Record<string, number>; resources: Array<Record<string, unknown>> };
    expect(json.summary).toMatchObject({ outside: 0, environment: 1 });
    expect(json.resources).toMatchObject([{ address: 'campaign.recall', class: 'environment', environment: 'staging', healable: false, fields: [{ path: 'name', class: 'environment', environment: 'staging', live: 'Recall (staging)', manifests: 'Recall' }] }]);
    const markdown = await cli(cwd, 'drift', '--format', 'markdown');
    expect(markdown.stdout).toContain("| `campaign.recall` | changed by `staging`'s apply | `name` | — |");
  });

  it('refuses the environment a credential was taken from, naming no key', async () => {
    const cwd = await tempDir({ 'voxform.yaml': pinnedManifest('credentials: [{ provider: openai, api_key: "${env:STAGING_KEY:-key-two}" }]') });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect((await cli(cwd, 'apply', '--env', 'staging', '--take-over', 'credential.openai', '--auto-approve')).code).toBe(0);
    const plan = await cli(cwd, 'plan');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('credential.openai: the last apply of environment staging set another key for this provider; this plan would replace it.');
    expect(plan.stderr).not.toMatch(/key-one|key-two/);
  });

  it('makes a plan the other environment saved before it stale', async () => {
    const cwd = await tempDir({ 'voxform.yaml': staging });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    await writeFile(path.join(cwd, 'voxform.yaml'), staging.replace('name: Recall,', 'name: Recall v2,'));
    expect((await cli(cwd, 'plan', '--out', 'plan.json')).code).toBe(0);
    expect((await cli(cwd, 'apply', '--env', 'staging', '--take-over', 'campaign.recall', '--auto-approve')).code).toBe(0);

    const saved = await cli(cwd, 'apply', 'plan.json');
    expect(saved.code).toBe(1);
    expect(saved.stderr).toContain('error[plan_stale]: The saved plan is stale: live state changed for campaign.recall. Nothing was applied.');
    const plan = await cli(cwd, 'plan');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('campaign.recall: the last apply of environment staging set name to Recall (staging); this plan would set Recall v2.');
  });

  it('is kept in a saved plan: planning it again carries the --take-over, and its apply takes the campaign', async () => {
    const cwd = await tempDir({ 'voxform.yaml': staging });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    expect((await cli(cwd, 'plan', '--env', 'staging', '--take-over', 'campaign.recall', '--out', 'p.plan')).code).toBe(0);
    expect((JSON.parse(await readFile(path.join(cwd, 'p.plan'), 'utf8')) as { take_over?: string[] }).take_over).toEqual(['campaign.recall']);
    // The default environment writes the campaign again meanwhile: the saved plan is stale.
    await writeFile(path.join(cwd, 'voxform.yaml'), staging.replace('name: Recall,', 'name: Recall v2,'));
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);

    const stale = await cli(cwd, 'apply', 'p.plan');
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('error[plan_stale]');
    const again = 'voxform plan --out p.plan -f voxform.yaml --env staging --take-over campaign.recall --local';
    expect(stale.stderr).toContain(`\`${again}\``);
    // Pasted, the line plans the take-over again, and the new plan applies it.
    expect((await runCliInProcess(again.split(' ').slice(1), { cwd })).code).toBe(0);
    expect((await cli(cwd, 'apply', 'p.plan')).code).toBe(0);
    const plan = await cli(cwd, 'plan');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('campaign.recall: the last apply of environment staging set name to Recall (staging); this plan would set Recall v2.');
  });

  it('reads a state written before the order was recorded as before: the conflict is checked against every environment', async () => {
    const cwd = await tempDir({ 'voxform.yaml': staging });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const file = path.join(cwd, '.voxform', 'state.json');
    const state = JSON.parse(await readFile(file, 'utf8')) as { workspaces: Record<string, { campaigns: Record<string, { writeOrder?: number }> }> };
    expect(state.workspaces['default@local']!.campaigns['campaign.recall']!.writeOrder).toBe(1);
    delete state.workspaces['default@local']!.campaigns['campaign.recall']!.writeOrder;
    await writeFile(file, JSON.stringify(state));
    const plan = await cli(cwd, 'plan', '--env', 'staging');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('campaign.recall: the last apply of the default environment (no --env) set name to Recall; this plan would set Recall (staging).');
  });
});

describe('a state that holds no workspace of the other environments of the service', () => {
  const unseen = (state: string, which: string) =>
    `warning: the state ${state} holds no workspace of ${which} on this service: a change another environment applied with another state to a shared resource (a number's agent, a campaign, a credential) cannot be seen, and this plan would undo it unrefused; every environment of a service must use one state (docs/state.md#environments-of-one-service-apply-one-at-a-time).\n`;

  it('is warned of by plan and apply that put back a shared resource changed on the service, and by nothing else', async () => {
    const cwd = await tempDir({ 'voxform.yaml': MANIFEST });
    // First applies, each with its own state: nothing changed on the service behind either, nothing to warn of.
    const first = await cli(cwd, 'apply', '--state', 'other.json', '--auto-approve');
    expect(first.code).toBe(0);
    expect(first.stderr).not.toContain('holds no workspace');
    const staging = await cli(cwd, 'apply', '--env', 'staging', '--auto-approve');
    expect(staging.code).toBe(0);
    expect(staging.stderr).not.toContain('holds no workspace');

    // Staging's apply moved the number behind the default environment's state, which cannot see staging:
    // the same state would refuse putting it back (shared_resource_conflict); this one warns.
    const plan = await cli(cwd, 'plan', '--state', 'other.json');
    expect(plan.code).toBe(0);
    expect(plan.stderr).toContain(unseen('other.json', 'staging'));
    const apply = await cli(cwd, 'apply', '--state', 'other.json', '--auto-approve');
    expect(apply.code).toBe(0);
    expect(apply.stderr).toContain(unseen('other.json', 'staging'));
    expect(await boundAgent(cwd)).toBe('-OKspareAgent0000001');

    // Nothing shared to put back: nothing to warn of.
    const again = await cli(cwd, 'plan', '--state', 'other.json');
    expect(again.stdout).toContain('No changes');
    expect(again.stderr).not.toContain('holds no workspace');
    // A state that holds the other environment's workspace sees its claims.
    const seen = await cli(cwd, 'plan', '--env', 'staging', '--state', 'other.json');
    expect(seen.stderr).not.toContain('holds no workspace');
  });
});

describe('a refusal of a command that takes no --take-over', () => {
  it('names the plan and apply of the same manifests, environment and service that settle it', async () => {
    const production = ['  production:', '    promote_from: staging', ''].join('\n');
    const cwd = await tempDir({ 'voxform.yaml': pinnedManifest('campaigns: { recall: { name: Recall (staging) } }') + production, '.gitignore': '.voxform/\n' });
    initRepository(cwd, 'agents');
    expect((await cli(cwd, 'apply', '--env', 'production', '--auto-approve')).code).toBe(0);
    expect((await cli(cwd, 'apply', '--env', 'staging', '--take-over', 'campaign.recall', '--auto-approve')).code).toBe(0);

    const promote = await cli(cwd, 'promote', '--to', 'production', '--auto-approve');
    expect(promote.code).toBe(1);
    expect(promote.stderr).toContain('error[shared_resource_conflict]: voxform.yaml:7:3: campaign.recall: the last apply of environment staging set name to Recall (staging); this plan would set Recall.');
    const plan = 'voxform plan --take-over campaign.recall --env production --local';
    expect(promote.stderr).toContain(`To move it to this environment on purpose, \`voxform promote\` takes no --take-over: review \`${plan}\`, then run \`voxform apply --take-over campaign.recall --env production --local\`.`);
    const pasted = await runPrinted(plan, { cwd });
    expect(pasted.code).toBe(0);
    expect(pasted.stdout).toContain('campaign.recall');
  });
});

describe('agents.example.yaml', () => {
  it('applies to both environments on one service without rebinding production\'s numbers, and drift finds nothing', async () => {
    const cwd = await tempDir({});
    await cp(path.join(repoRoot, 'agents.example.yaml'), path.join(cwd, 'agents.yaml'));
    await cp(path.join(repoRoot, 'example'), path.join(cwd, 'example'), { recursive: true });
    expect((await cli(cwd, 'apply', '--auto-approve')).code).toBe(0);
    const staging = await cli(cwd, 'apply', '--env', 'staging', '--auto-approve');
    expect(staging.code).toBe(0);
    expect(staging.stdout + staging.stderr).not.toContain('phone.');
    expect(await boundAgent(cwd)).toBe('-OKdqbqetEcM4ak369ym');
    const drift = await cli(cwd, 'drift');
    expect(drift.code).toBe(0);
    expect(drift.stdout).toMatch(/^No drift/);
  });
});

/** A phone change rebinding `+15551230001` from `from` to `to` (the fields the check reads). */
function rebind(from: string, to: string): ResourceChange {
  return {
    address: 'phone.+15551230001',
    kind: 'phone',
    action: 'update',
    id: '+15551230001',
    before: { agent_id: from },
    after: { agent_id: to },
    fieldChanges: [{ path: 'agent_id', before: from, after: to, sensitive: false, drift: false }],
    sensitivePaths: [],
    reason: undefined,
    dependsOn: [],
    requests: [],
    liveFingerprint: '',
  };
}

function boundTo(agentId: string): WorkspaceState {
  return { ...emptyWorkspace(), phones: { 'phone.+15551230001': { agentId, imported: false } } };
}

describe('findSharedConflicts', () => {
  const cases: Array<{ name: string; change: ResourceChange; other: WorkspaceState; conflicts: number }> = [
    { name: 'a number bound now to the agent the other environment bound it to', change: rebind('ag-prod', 'ag-staging'), other: boundTo('ag-prod'), conflicts: 1 },
    { name: 'a number bound since to an agent of neither (the other\'s binding is no longer live)', change: rebind('ag-hand', 'ag-staging'), other: boundTo('ag-prod'), conflicts: 0 },
    { name: 'a number the other environment never bound', change: rebind('ag-prod', 'ag-staging'), other: emptyWorkspace(), conflicts: 0 },
    { name: 'no write', change: { ...rebind('ag-prod', 'ag-prod'), action: 'no-op', fieldChanges: [] }, other: boundTo('ag-prod'), conflicts: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(findSharedConflicts([c.change], [{ environment: 'default', workspace: c.other }], 'salt')).toHaveLength(c.conflicts);
    });
  }
});

describe('findSharedConflicts, for a number the other environment found bound and left', () => {
  it('is no conflict: that environment sent nothing for it', () => {
    const kept: WorkspaceState = { ...emptyWorkspace(), phones: { 'phone.+15551230001': { agentId: 'ag-prod', imported: false, foundLive: true } } };
    expect(findSharedConflicts([rebind('ag-prod', 'ag-other')], [{ environment: 'staging', workspace: kept }], 'salt')).toEqual([]);
  });
});

describe('findSharedConflicts, for an agent both environments name by one id', () => {
  const salt = 'salt';
  const renamed: ResourceChange = {
    ...rebind('', ''),
    address: 'agent.desk',
    kind: 'agent',
    id: '-OKspareAgent0000001',
    fieldChanges: [{ path: 'name', before: 'Desk (staging)', after: 'Desk', sensitive: false, drift: false }],
  };
  const appliedBy = (name: string, more: Partial<WorkspaceState['agents'][string]> = {}): WorkspaceState => ({
    ...emptyWorkspace(),
    agents: { 'agent.desk': { id: '-OKspareAgent0000001', applied: { name: hashApplied(salt, name) }, fingerprintKeyId: fingerprintKeyId(salt), ...more } },
  });
  const conflicts = (other: WorkspaceState) => findSharedConflicts([renamed], [{ environment: 'staging', workspace: other }], salt);
  it('is a conflict while the field holds what the other environment sent', () => {
    expect(conflicts(appliedBy('Desk (staging)'))).toEqual([{ address: 'agent.desk', environment: 'staging', field: 'name', theirs: '(not shown)', ours: '(not shown)' }]);
  });
  it("never carries the field's values: a secret may sit inside one (a tool's header), the other environment's, which this run would not hide", () => {
    const tools = (token: string) => [{ name: 'book', webhook: 'https://api.example.com/book', header: { authorization: token } }];
    const toolsChange: ResourceChange = { ...renamed, fieldChanges: [{ path: 'config.tools', before: tools('prod-SECRET-token-123456'), after: tools('stg-other-token'), sensitive: false, drift: false }] };
    const other: WorkspaceState = { ...emptyWorkspace(), agents: { 'agent.desk': { id: '-OKspareAgent0000001', applied: { 'config.tools': hashApplied(salt, tools('prod-SECRET-token-123456')) }, fingerprintKeyId: fingerprintKeyId(salt) } } };
    const found = findSharedConflicts([toolsChange], [{ environment: 'production', workspace: other }], salt);
    expect(found).toHaveLength(1);
    expect(JSON.stringify(found)).not.toContain('prod-SECRET');
    expect(JSON.stringify(found)).not.toContain('stg-other');
  });
  it('is none once the field holds something else', () => {
    expect(conflicts(appliedBy('Desk (old)'))).toEqual([]);
  });
  it('is a conflict for a field the other environment cleared, still unset, and for a field it set below or above one this plan changes', () => {
    const claims = (applied: Record<string, unknown>): WorkspaceState => ({
      ...emptyWorkspace(),
      agents: { 'agent.desk': { id: '-OKspareAgent0000001', applied: Object.fromEntries(Object.entries(applied).map(([at, value]) => [at, hashApplied(salt, value)])), fingerprintKeyId: fingerprintKeyId(salt) } },
    });
    const changing = (path: string, before: unknown, after: unknown): ResourceChange => ({ ...renamed, fieldChanges: [{ path, before, after, sensitive: false, drift: false }] });
    const found = (change: ResourceChange, other: WorkspaceState) => findSharedConflicts([change], [{ environment: 'staging', workspace: other }], salt).map((conflict) => conflict.field);
    // Staging cleared the greeting; this plan would set it again.
    expect(found(changing('config.first_message', undefined, 'Hello from production'), claims({ 'config.first_message': null }))).toEqual(['config.first_message']);
    // Staging set the voice; this plan would clear the whole voice, or replace it without that voice_id.
    const voice = { voice_id: 'staging-voice', provider: 'x' };
    expect(found(changing('config.voice', voice, null), claims({ 'config.voice.voice_id': 'staging-voice' }))).toEqual(['config.voice.voice_id']);
    expect(found(changing('config.voice', voice, { voice_id: 'staging-voice' }), claims({ 'config.voice.voice_id': 'staging-voice' }))).toEqual([]);
    // Staging cleared the voice; this plan would set a field below it.
    expect(found(changing('config.voice.voice_id', undefined, 'other'), claims({ 'config.voice': null }))).toEqual(['config.voice']);
    // Set again since by someone else: no longer staging's.
    expect(found(changing('config.first_message', 'Edited', 'Hello'), claims({ 'config.first_message': null }))).toEqual([]);
  });
  it('is none for a field the other environment found live and never sent', () => {
    expect(conflicts(appliedBy('Desk (staging)', { foundLive: ['name'] }))).toEqual([]);
  });
  it('is none for another agent, or hashes made under another API key', () => {
    expect(conflicts(appliedBy('Desk (staging)', { id: '-OKspareAgent0000002' }))).toEqual([]);
    expect(conflicts(appliedBy('Desk (staging)', { fingerprintKeyId: fingerprintKeyId('old-salt') }))).toEqual([]);
  });
});

describe('findSharedConflicts, once the last writer of a campaign is known', () => {
  const renamed: ResourceChange = {
    ...rebind('', ''),
    address: 'campaign.recall',
    kind: 'campaign',
    id: 'cmp_recall_2026',
    fieldChanges: [{ path: 'name', before: 'Recall', after: 'Recall v2', sensitive: false, drift: false }],
  };
  const staging = { environment: 'staging', workspace: { ...emptyWorkspace(), campaigns: { 'campaign.recall': { id: 'cmp_recall_2026', applied: { name: 'Recall (staging)' }, writeOrder: 1 } } } };
  it('compares with every other environment when it is not known', () => {
    expect(findSharedConflicts([renamed], [staging], 'salt')).toHaveLength(1);
  });
  it('leaves out an environment whose write was undone since', () => {
    expect(findSharedConflicts([renamed], [staging], 'salt', new Map([['campaign.recall', 'default']]))).toEqual([]);
  });
  it('compares with the environment that wrote it last', () => {
    expect(findSharedConflicts([renamed], [staging], 'salt', new Map([['campaign.recall', 'staging']]))).toHaveLength(1);
  });
});

describe('findSharedConflicts, for a credential', () => {
  const replaced: ResourceChange = {
    ...rebind('', ''),
    address: 'credential.openai',
    kind: 'credential',
    id: 'openai',
    after: { api_key: 'hmac-sha256:new' },
    fieldChanges: [{ path: 'api_key', before: undefined, after: 'hmac-sha256:new', sensitive: true, drift: false }],
  };
  const setBy = (keyId: string): WorkspaceState => ({ ...emptyWorkspace(), credentials: { 'credential.openai': { fingerprint: 'hmac-sha256:old', fingerprintKeyId: keyId } } });
  it('compares a key the other environment set under the same API key, though it applied no agent', () => {
    expect(findSharedConflicts([replaced], [{ environment: 'staging', workspace: setBy(fingerprintKeyId('salt')) }], 'salt')).toHaveLength(1);
  });
  it('cannot compare one set under another API key', () => {
    expect(findSharedConflicts([replaced], [{ environment: 'staging', workspace: setBy(fingerprintKeyId('old-salt')) }], 'salt')).toEqual([]);
  });
});

describe('readOtherWorkspaces', () => {
  it('reads the other environments of the same service only', async () => {
    const dir = await tempDir({});
    const backend = new FileStateBackend(path.join(dir, 'state.json'));
    for (const key of ['default@local', 'staging@local', 'staging@https://api.example.com']) {
      const { serial } = await backend.readWorkspace(key);
      await backend.writeWorkspace(key, boundTo(key), serial);
    }
    const others = await readOtherWorkspaces(backend, 'default@local', 'local');
    expect(others.map((o) => [o.environment, o.workspace.phones['phone.+15551230001']?.agentId])).toEqual([['staging', 'staging@local']]);
    await backend.close();
  });
});

describe('sharedView, for a campaign whose key this environment renamed', () => {
  const desired = { ...desiredState({ campaigns: [desiredCampaign('recall-2026', { id: 'cmp_recall', name: 'Recall B' })] }), environment: 'production' };
  const written = (name: string, writeOrder: number): WorkspaceState['campaigns'][string] => ({ id: 'cmp_recall', applied: { name }, writeOrder });
  const staging = { environment: 'staging', workspace: { ...emptyWorkspace(), campaigns: { 'campaign.recall': written('Recall A', 1) } } };

  it("keeps this environment's claim, made under the old key: the other environment's older one stays undone", () => {
    const own = { ...emptyWorkspace(), campaigns: { 'campaign.recall': written('Recall B', 2) } };
    const view = sharedView(desired, own, [staging]);
    expect(view.lastWriters.get('campaign.recall-2026')).toBe('production');
    expect(view.nextWriteOrders.get('campaign.recall-2026')).toBe(3);
    expect(view.workspace.campaigns).toEqual({ 'campaign.recall-2026': written('Recall B', 2) });
    expect([...view.moves]).toEqual([['campaign.recall-2026', 'campaign.recall']]);
  });

  it("keeps it when the old entry cannot be moved (two old keys of the campaign): the claim is the campaign's, whatever its key", () => {
    const own = { ...emptyWorkspace(), campaigns: { 'campaign.recall': written('Recall B', 2), 'campaign.recall-old': written('Recall', 0) } };
    const view = sharedView(desired, own, [staging]);
    expect(view.lastWriters.get('campaign.recall-2026')).toBe('production');
    expect(view.moves.size).toBe(0);
  });

  it("is the other environment's when that one wrote it last, under whatever key", () => {
    const own = { ...emptyWorkspace(), campaigns: { 'campaign.recall': written('Recall B', 1) } };
    const later = { environment: 'staging', workspace: { ...emptyWorkspace(), campaigns: { 'campaign.spring': written('Recall A', 2) } } };
    const view = sharedView(desired, own, [later]);
    expect(view.lastWriters.get('campaign.recall-2026')).toBe('staging');
    expect(view.workspace.campaigns['campaign.recall-2026']).toEqual(written('Recall A', 2));
  });
});
