import { describe, expect, it } from 'vitest';
import { classifyDrift } from '../../src/drift/classify.js';
import { notificationBody, parseNotifyUrl } from '../../src/drift/notify.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';
import { SecretRegistry } from '../../src/secrets/redact.js';
import { emptyWorkspace, hashApplied } from '../../src/state/types.js';
import { notComparedFinder } from '../../src/drift/not-compared.js';
import type { DesiredState } from '../../src/manifest/types.js';
import { WITHHELD } from '../../src/secrets/withhold.js';
import { fingerprintKeyId } from '../../src/util/hash.js';

function planOf(changes: ResourceChange[]): Plan {
  return {
    formatVersion: 1,
    createdAt: '2026-11-28T12:00:00.000Z',
    manifestHash: 'sha256:0',
    files: [],
    environment: undefined,
    baseUrl: 'local',
    targets: [],
    changes,
    summary: { create: 0, update: changes.length, unchanged: 0, drifted: 0 },
  };
}

function report(changes: ResourceChange[]) {
  return classifyDrift({ plan: planOf(changes), workspace: emptyWorkspace(), salt: 's', workspaceKey: 'default@local' });
}

const secretChange = (path: string, before: unknown, after: unknown, sensitive: boolean): ResourceChange => ({
  address: 'agent.a',
  kind: 'agent',
  action: 'update',
  id: 'ag',
  before: null,
  after: null,
  fieldChanges: [{ path, before, after, sensitive, drift: false }],
  sensitivePaths: sensitive ? [path] : [],
  reason: undefined,
  dependsOn: [],
  requests: [],
  liveFingerprint: 'f',
});

describe('notificationBody', () => {
  it('a Slack message names resources, fields and classes, Slack markup escaped, and no value', () => {
    const body = JSON.parse(notificationBody(report([secretChange('config.prompt', 'live <!channel> & text', 'manifest text', false)]), 'slack', (t) => t)) as {
      text: string;
      blocks: Array<{ text: { text: string } }>;
    };
    expect(body.text).toBe('voxform drift on default@local: 0 changed outside voxform, 1 in git not applied yet, 0 both (1 resource checked).');
    expect(body.blocks[1]?.text.text).toBe('*agent.a*: in git, not applied yet.\nconfig.prompt (in git, not applied yet)');
    expect(JSON.stringify(body)).not.toContain('live');
  });

  it('a Slack message of a state with no apply of the workspace counts and labels its differences so, and says why after the counts', () => {
    const classified = classifyDrift({ plan: planOf([secretChange('config.prompt', 'live', 'manifest text', false)]), workspace: emptyWorkspace(), salt: 's', workspaceKey: 'default@local', noApplyRecorded: { state: '.voxform/state.json' } });
    const body = JSON.parse(notificationBody(classified, 'slack', (t) => t)) as {
      text: string;
      blocks: Array<{ text?: { text: string }; elements?: Array<{ text: string }> }>;
    };
    expect(body.text).toBe('voxform drift on default@local: 0 changed outside voxform, 0 in git not applied yet, 0 both, 1 with no apply recorded in this state (1 resource checked).');
    expect(body.blocks[1]?.elements?.[0]?.text).toMatch(/^No apply of workspace default@local is recorded in this state \(\.voxform\/state\.json\), so where a difference came from is not known/);
    expect(body.blocks[2]?.text?.text).toBe('*agent.a*: differs, no apply recorded in this state.\nconfig.prompt (differs, no apply recorded in this state)');
    expect(JSON.stringify(body)).not.toContain('in git, not applied yet');
  });

  it('a Slack message of a state that lost the workspace gives its warning after the counts, in the no-apply note\'s stead', () => {
    const classified = classifyDrift({ plan: planOf([secretChange('config.prompt', 'live', 'manifest text', false)]), workspace: emptyWorkspace(), salt: 's', workspaceKey: 'default@local', noApplyRecorded: { state: '.voxform/state.json' } });
    const missingState = { state: '.voxform/state.json', lastApply: { id: 'rec_1', at: '2026-11-27T10:00:00.000Z' } };
    const body = JSON.parse(notificationBody({ ...classified, missingState }, 'slack', (t) => t)) as { blocks: Array<{ elements?: Array<{ text: string }> }> };
    const notes = body.blocks.flatMap((block) => block.elements ?? []).map((element) => element.text);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^Warning: .*rec_1.* Without it voxform cannot tell what it applied/);
  });

  it('a Slack message says a secret changed outside voxform without its variable is not shown, and what compares it', () => {
    const header = 'config.session_data_webhook.headers.x-hook-token';
    const workspace = emptyWorkspace();
    workspace.agents['agent.a'] = { id: 'ag', applied: { [header]: hashApplied('s', 'applied-token') }, fingerprintKeyId: fingerprintKeyId('s') };
    const desired = { withheldVariables: ['HOOK_TOKEN'], agents: new Map([['a', { address: 'agent.a', envReferences: { [header]: '${env:HOOK_TOKEN}' } }]]), credentials: new Map() } as unknown as DesiredState;
    const drift = classifyDrift({ plan: planOf([secretChange(header, 'dashboard-token', WITHHELD, true)]), workspace, salt: 's', workspaceKey: 'default@local', notCompared: notComparedFinder(desired) });
    const body = JSON.parse(notificationBody(drift, 'slack', (t) => t)) as { blocks: Array<{ text: { text: string } }> };
    expect(body.blocks[1]?.text.text).toBe(`*agent.a*: changed outside voxform. \`--heal\` needs HOOK_TOKEN set to put it back.\n${header} (changed outside voxform: value not shown; set HOOK_TOKEN to compare the manifests with it)`);
  });

  it('the JSON report redacts secret fields, and the run\'s secret scrub applies to whatever is left', () => {
    const secrets = new SecretRegistry();
    secrets.add('super-secret-token');
    const body = notificationBody(
      report([secretChange('config.session_data_webhook.headers.x-token', 'super-secret-token', 'other-secret', true), secretChange('config.first_message', 'says super-secret-token', 'hi', false)]),
      'json',
      (text) => secrets.redact(text),
    );
    expect(body).not.toContain('super-secret-token');
    expect(body).not.toContain('other-secret');
    expect(JSON.parse(body)).toMatchObject({ drift: true });
  });
});

describe('parseNotifyUrl', () => {
  it.each(['http://127.0.0.1:9/x', 'https://hooks.example.com/services/T/B/X'])('takes %s', (url) => {
    expect(parseNotifyUrl(url).href).toBe(url);
  });

  it.each(['ftp://example.com/x', 'not a url', 'https://user:pass@example.com/', 'file:///etc/passwd'])('refuses %s', (url) => {
    expect(() => parseNotifyUrl(url)).toThrow(expect.objectContaining({ code: 'drift_notify_url_invalid' }));
  });
});
