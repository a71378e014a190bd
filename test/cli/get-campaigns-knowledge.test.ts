import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateSpec } from '../../src/state/open.js';
import { startExampleProject, withoutSecrets, type ExampleProject } from '../helpers/project.js';

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const CAMPAIGNS_NOTE =
  'The service has no list of campaigns: these are the campaigns the manifests name (1), the campaigns the state records (1, workspace default@URL), and the campaigns the 40 calls ran for. NAME and CALLER are what voxform last applied, in whichever environment applied it last: the service cannot read a campaign back. A campaign with none of these is not shown.';
const KNOWLEDGE_NOTE =
  "The service has no list of knowledge files: these are the files the manifests name (1), the files the state records (1, workspace default@URL), and the files the manifests' 2 live agents attach. A file with none of these is not shown.";

/** An apply, then several runs: room on a busy 2-core machine. */
const APPLIED_TIMEOUT = { timeout: 60_000 };

/** The example project, applied: the campaign's values and the uploaded file's id are in the state. */
async function appliedExample(): Promise<{ project: ExampleProject; fileId: string }> {
  const started = await startExampleProject();
  project = started;
  const apply = await started.cliInProcess(['apply', '--auto-approve']);
  expect(apply.code, apply.stderr).toBe(0);
  const state = JSON.parse(await readFile(`${started.dir}/.voxform/state.json`, 'utf8'));
  const fileId = state.workspaces[`default@${started.url}`].knowledge['knowledge.faq'].fileId as string;
  expect(fileId).toMatch(/^kf_/);
  started.requests.length = 0;
  return { project: started, fileId };
}

describe('voxform get campaigns|knowledge (against the emulator, the example manifest)', () => {
  it('after an apply: the campaign with what voxform last applied, the file with its id and the agent attaching it, managed, and the sources said', APPLIED_TIMEOUT, async () => {
    const { project, fileId } = await appliedExample();
    const stateBefore = await readFile(`${project.dir}/.voxform/state.json`, 'utf8');
    // An apply holds the state's lock meanwhile: a listing reads the state without it, neither waiting nor stopping.
    const backend = await openStateSpec('.voxform/state.json', { env: process.env, cwd: project.dir, registerSecret: () => undefined });
    const lock = await backend.acquireLock(`default@${project.url}`, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    const campaigns = await project.cliInProcess(['get', 'campaigns']).finally(() => lock.release().then(() => backend.close()));
    expect(campaigns.code, campaigns.stderr).toBe(0);
    withoutSecrets(campaigns, project.emulator.apiKey);
    expect(campaigns.stdout).toBe(
      [
        'CAMPAIGN          NAME                           CALLER         MANAGED BY                  FOUND THROUGH            CALLS',
        'cmp_recall_2026   Six-month check-up reminders   +15551230002   campaign.recall-reminders   manifest, state, calls   10',
        '',
        CAMPAIGNS_NOTE.replace('URL', project.url),
        '',
      ].join('\n'),
    );
    const knowledge = await project.cliInProcess(['get', 'knowledge']);
    expect(knowledge.code, knowledge.stderr).toBe(0);
    withoutSecrets(knowledge, project.emulator.apiKey);
    expect(knowledge.stdout).toBe(
      [
        'FILE                      NAME     MANAGED BY      FOUND THROUGH             AGENTS',
        `${fileId}   faq.md   knowledge.faq   manifest, state, agents   agent.front-desk`,
        '',
        KNOWLEDGE_NOTE.replace('URL', project.url),
        '',
      ].join('\n'),
    );
    // Reads only: the call log and the manifests' agents from the service, and the state as it was.
    expect(project.requests.every((request) => request.method === 'GET')).toBe(true);
    expect(await readFile(`${project.dir}/.voxform/state.json`, 'utf8')).toBe(stateBefore);
  });

  it('--format json says the same, with the sources; NAME picks one by manifest name or id', APPLIED_TIMEOUT, async () => {
    const { project, fileId } = await appliedExample();
    for (const name of [undefined, 'recall-reminders']) {
      const result = await project.cliInProcess(['get', 'campaigns', ...(name ? [name] : []), '--format', 'json']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        format_version: 1,
        kind: 'campaigns',
        campaigns: [
          {
            id: 'cmp_recall_2026',
            managed_by: 'campaign.recall-reminders',
            environment: null,
            last_applied: { name: 'Six-month check-up reminders', caller: '+15551230002', include_metadata_in_prompt: true },
            found_through: ['manifest', 'state', 'call'],
            calls: 10,
          },
        ],
        sources: { manifest_campaigns: 1, state: { workspace: `default@${project.url}`, campaigns: 1 }, calls_read: 40, more_calls: false },
      });
    }
    for (const name of [fileId]) {
      const result = await project.cliInProcess(['get', 'knowledge', ...(name ? [name] : []), '--format', 'json']);
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout);
      expect(report).toMatchObject({ format_version: 1, kind: 'knowledge', sources: { manifest_files: 1, state: { workspace: `default@${project.url}`, files: 1 }, agents_read: 2 } });
      expect(report.files).toEqual([
        {
          id: fileId,
          name: 'faq.md',
          file: 'example/knowledge/faq.md',
          content_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
          managed_by: 'knowledge.faq',
          agents: [{ id: '-OKdqbqetEcM4ak369ym', managed_by: 'agent.front-desk' }],
          found_through: ['manifest', 'state', 'agent'],
        },
      ]);
    }
    // One picked: the table alone, as `get agents NAME` prints it.
    const one = await project.cliInProcess(['get', 'campaigns', 'recall-reminders']);
    expect(one.stdout).not.toContain('The service has no list');
    expect(one.stdout).toMatch(/^cmp_recall_2026 +Six-month check-up reminders +\+15551230002 +campaign\.recall-reminders +manifest, state, calls +10$/m);
  });

  it('before any apply: the campaign is managed but never applied, the file not uploaded yet', async () => {
    project = await startExampleProject();
    const campaigns = await project.cliInProcess(['get', 'campaigns']);
    expect(campaigns.code, campaigns.stderr).toBe(0);
    expect(campaigns.stdout).toMatch(/^cmp_recall_2026 +— +— +campaign\.recall-reminders +manifest, calls +10$/m);
    expect(campaigns.stdout).toContain('the campaigns the state records (0, ');
    const knowledge = await project.cliInProcess(['get', 'knowledge']);
    expect(knowledge.stdout).toMatch(/^\(not uploaded\) +— +knowledge\.faq +manifest +—$/m);
  });

  it('a campaign only the call log knows, and a file only an agent attaches, are unmanaged', APPLIED_TIMEOUT, async () => {
    const { project, fileId } = await appliedExample();
    // The manifests no longer name the campaign nor the file; another state has no record of them.
    const manifest = `version: 1\nagents:\n  front-desk:\n    id: -OKdqbqetEcM4ak369ym\n  booking:\n    id: -OKdqbqetEcM4ak369yn\n`;
    await writeFile(`${project.dir}/voxform.yaml`, manifest);
    const campaigns = await project.cliInProcess(['get', 'campaigns', '--state', 'other/state.json']);
    expect(campaigns.code, campaigns.stderr).toBe(0);
    expect(campaigns.stdout).toMatch(/^cmp_recall_2026 +— +— +unmanaged +calls +10$/m);
    const knowledge = await project.cliInProcess(['get', 'knowledge', '--format', 'json'], { VOXFORM_STATE: 'other/state.json' });
    expect(knowledge.code, knowledge.stderr).toBe(0);
    expect(JSON.parse(knowledge.stdout).files).toEqual([
      { id: fileId, name: null, file: null, content_hash: null, managed_by: null, agents: [{ id: '-OKdqbqetEcM4ak369ym', managed_by: 'agent.front-desk' }], found_through: ['agent'] },
    ]);
    // With the state that applied them, the records are found again, still unmanaged (no manifest names them).
    const recorded = await project.cliInProcess(['get', 'campaigns']);
    expect(recorded.stdout).toMatch(/^cmp_recall_2026 +Six-month check-up reminders +\+15551230002 +unmanaged +state, calls +10$/m);
  });

  it('a state that cannot be read is said under the table, of phones too (whose agents\' names it would say are secrets are then all withheld); the other sources still answer; get agents stops', async () => {
    project = await startExampleProject();
    await mkdir(`${project.dir}/.voxform`, { recursive: true });
    await writeFile(`${project.dir}/.voxform/state.json`, '{"version": 1, "serial":');
    const campaigns = await project.cliInProcess(['get', 'campaigns']);
    expect(campaigns.code, campaigns.stderr).toBe(0);
    expect(campaigns.stdout).toMatch(/^cmp_recall_2026 +— +— +campaign\.recall-reminders +manifest, calls +10$/m);
    expect(campaigns.stdout).toMatch(/\nThe state could not be read, so what it records is not shown: .*\.voxform\/state\.json.*\n$/);
    const json = await project.cliInProcess(['get', 'knowledge', 'faq', '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).sources.state.problem).toMatch(/state\.json/);
    const phones = await project.cliInProcess(['get', 'phones']);
    expect(phones.code, phones.stderr).toBe(0);
    expect(phones.stdout).toMatch(/^\+15551230001 +active +-OKstagingFrontDesk01 \(sensitive\) +phone\.\+15551230001$/m);
    expect(phones.stdout).toMatch(/\nThe state could not be read, so what it records is not shown: .*\.voxform\/state\.json.*\n$/);
    // Its deploy ledger is what says which live names are secrets, as for logs and chat.
    const agents = await project.cliInProcess(['get', 'agents']);
    expect(agents.code).toBe(1);
    expect(agents.stdout).toBe('');
    expect(agents.stderr).toMatch(/^error\[state_invalid\]: The state file .*state\.json is not valid JSON\./);
  });

  it('an unknown NAME is an error with its code and a did-you-mean, exit 1', async () => {
    project = await startExampleProject();
    const campaign = await project.cliInProcess(['get', 'campaigns', 'recall-reminder']);
    expect(campaign.code).toBe(1);
    expect(campaign.stderr).toBe(
      'error[campaign_unknown]: campaign "recall-reminder" is neither a campaign of the manifests nor an id voxform found (`voxform get campaigns` lists where it looks).\n  hint: Did you mean recall-reminders?\n',
    );
    const knowledge = await project.cliInProcess(['get', 'knowledge', 'faqs', '--format', 'json']);
    expect(knowledge.code).toBe(1);
    expect(JSON.parse(knowledge.stdout)).toMatchObject({ error: { code: 'knowledge_unknown', hint: 'Did you mean faq?' } });
    const nothingLike = await project.cliInProcess(['get', 'knowledge', 'zzzzzzzzzzzz']);
    expect(nothingLike.stderr).toContain('hint: Give a manifest name or an id that `voxform get knowledge` lists.');
  });
});
