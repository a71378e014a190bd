import { describe, expect, it } from 'vitest';
import { classifyDrift } from '../../src/drift/classify.js';
import type { FieldChange, Plan, ResourceChange } from '../../src/plan/types.js';
import { emptyWorkspace, hashApplied, type WorkspaceState } from '../../src/state/types.js';
import { fingerprintKeyId } from '../../src/util/hash.js';
import { resourceLabel } from '../../src/drift/labels.js';
import type { DriftedResource } from '../../src/drift/types.js';

const SALT = 'test-salt';

function field(path: string, before: unknown, after: unknown): FieldChange {
  return { path, before, after, sensitive: false, drift: false };
}

function change(address: string, kind: ResourceChange['kind'], fields: FieldChange[], extra: Partial<ResourceChange> = {}): ResourceChange {
  return {
    address,
    kind,
    action: fields.length > 0 ? 'update' : 'no-op',
    id: 'id-1',
    before: null,
    after: null,
    fieldChanges: fields,
    sensitivePaths: [],
    reason: undefined,
    dependsOn: [],
    requests: [],
    liveFingerprint: 'f',
    ...extra,
  };
}

function plan(changes: ResourceChange[]): Plan {
  return {
    formatVersion: 1,
    createdAt: '2026-11-28T12:00:00.000Z',
    manifestHash: 'sha256:0',
    files: ['voxform.yaml'],
    environment: undefined,
    baseUrl: 'local',
    targets: [],
    changes,
    summary: { create: 0, update: changes.length, unchanged: 0, drifted: 0 },
  };
}

function workspaceWith(applied: Record<string, unknown>, phoneBound?: string): WorkspaceState {
  const workspace = emptyWorkspace();
  workspace.agents['agent.a'] = { id: 'id-1', applied: Object.fromEntries(Object.entries(applied).map(([path, value]) => [path, hashApplied(SALT, value)])) };
  if (phoneBound) workspace.phones['phone.+1555'] = { agentId: phoneBound, imported: false };
  return workspace;
}

function classes(changes: ResourceChange[], workspace: WorkspaceState) {
  const report = classifyDrift({ plan: plan(changes), workspace, salt: SALT, workspaceKey: 'default@local' });
  return report.resources.map((r) => [r.address, r.class, r.healable, r.fields.map((f) => `${f.field.path}:${f.class}`)]);
}

describe('classifyDrift', () => {
  it.each([
    // live (before), manifests (after), last applied → class
    ['the service moved, the manifests hold what was applied', 'dashboard', 'v1', 'v1', 'outside', true],
    ['the manifests moved, the service holds what was applied', 'v1', 'v2', 'v1', 'pending', false],
    ['both moved away from what was applied', 'dashboard', 'v2', 'v1', 'both', true],
    ['never applied by voxform', 'live', 'v1', undefined, 'pending', false],
  ])('an agent field: %s', (_name, live, manifests, applied, expected, healable) => {
    const workspace = workspaceWith(applied === undefined ? {} : { 'config.prompt': applied });
    expect(classes([change('agent.a', 'agent', [field('config.prompt', live, manifests)])], workspace)).toEqual([
      ['agent.a', expected, healable, [`config.prompt:${expected}`]],
    ]);
  });

  it('a resource whose fields differ in class is `both`; only its outside fields make it healable', () => {
    const workspace = workspaceWith({ 'config.prompt': 'v1', name: 'A' });
    const fields = [field('config.prompt', 'dashboard', 'v1'), field('name', 'A', 'B')];
    expect(classes([change('agent.a', 'agent', fields)], workspace)).toEqual([['agent.a', 'both', true, ['config.prompt:outside', 'name:pending']]]);
  });

  it('knowledge files changed outside voxform are reported, not healable (the ledger does not restore them)', () => {
    const workspace = workspaceWith({ knowledge: ['file-1'] });
    expect(classes([change('agent.a', 'agent', [field('knowledge', [], ['file-1'])])], workspace)).toEqual([['agent.a', 'outside', false, ['knowledge:outside']]]);
  });

  it('a knowledge file gone from the service is changed outside voxform, and so are the files of the agents it is uploaded again for', () => {
    const workspace = workspaceWith({ knowledge: ['file-1'] });
    const gone = change('knowledge.faq', 'knowledge', [field('name', undefined, 'faq.md')], { action: 'create', reason: 'gone' });
    // The differ marks the agent's files as the ones last applied, though the new file's id is not known yet.
    const files = { ...field('knowledge', [], ['(known after apply): knowledge.faq']), drift: true };
    expect(classes([gone, change('agent.a', 'agent', [files])], workspace)).toEqual([
      ['knowledge.faq', 'outside', false, ['name:outside']],
      ['agent.a', 'outside', false, ['knowledge:outside']],
    ]);
    // The service cannot list files: deleted there or only detached, all that is known is that no agent lists it.
    const report = classifyDrift({ plan: plan([gone]), workspace, salt: SALT, workspaceKey: 'default@x' });
    expect(resourceLabel(report.resources[0] as DriftedResource)).toBe('changed outside voxform (no agent lists it any more)');
  });

  it('a phone binding: the state keeps the bound agent id itself', () => {
    const phone = (live: string) => change('phone.+1555', 'phone', [field('agent_id', live, 'ag-1')]);
    expect(classes([phone('ag-dashboard')], workspaceWith({}, 'ag-1'))).toEqual([['phone.+1555', 'outside', false, ['agent_id:outside']]]);
    expect(classes([phone('ag-0')], workspaceWith({}, 'ag-0'))).toEqual([['phone.+1555', 'pending', false, ['agent_id:pending']]]);
  });

  it('a number the state records that the account no longer has is changed outside voxform (gone from the service); its binding as any binding', () => {
    const gone = (bindTo: string) =>
      change('phone.+1555', 'phone', [field('agent_id', undefined, bindTo), field('import.provider', undefined, 'twilio'), field('import.country', undefined, 'US')], { action: 'create' });
    const workspace = workspaceWith({}, 'ag-1');
    const phone = workspace.phones['phone.+1555'];
    if (phone) phone.imported = true;
    expect(classes([gone('ag-1')], workspace)).toEqual([['phone.+1555', 'outside', false, ['agent_id:outside', 'import.provider:outside', 'import.country:outside']]]);
    const report = classifyDrift({ plan: plan([gone('ag-1')]), workspace, salt: SALT, workspaceKey: 'default@local' });
    expect(resourceLabel(report.resources[0] as DriftedResource)).toBe('changed outside voxform (gone from the service)');
    // The manifests bind it elsewhere since: both moved.
    expect(classes([gone('ag-2')], workspace)).toEqual([['phone.+1555', 'both', false, ['agent_id:both', 'import.provider:outside', 'import.country:outside']]]);
    // A number the state never recorded is still to import.
    expect(classes([gone('ag-1')], emptyWorkspace())).toEqual([['phone.+1555', 'pending', false, ['agent_id:pending', 'import.provider:pending', 'import.country:pending']]]);
  });

  it('what cannot be read back (campaigns, knowledge files, credentials) and what is still to create is in git, not applied yet', () => {
    const workspace = workspaceWith({});
    const changes = [
      change('campaign.c', 'campaign', [field('name', 'old', 'new')]),
      change('credential.openai', 'credential', [field('api_key', undefined, 'k')], { action: 'create', reason: 'live_unknown' }),
      change('phone.+1666', 'phone', [field('agent_id', undefined, 'ag-1')], { action: 'create' }),
    ];
    expect(classes(changes, workspace).map((row) => row[1])).toEqual(['pending', 'pending', 'pending']);
  });

  it('an agent whose hashes were recorded under another key (the API key rotated) is not labelled: differences shown, no heal', () => {
    const rotated = workspaceWith({ 'config.prompt': 'v1', name: 'A' });
    const agent = rotated.agents['agent.a'];
    if (agent) agent.fingerprintKeyId = fingerprintKeyId('old-salt');
    const fields = [field('config.prompt', 'v1', 'v2'), field('name', 'A', 'B')];
    expect(classes([change('agent.a', 'agent', fields)], rotated)).toEqual([['agent.a', 'unlabelled', false, ['config.prompt:unlabelled', 'name:unlabelled']]]);
    const report = classifyDrift({ plan: plan([change('agent.a', 'agent', fields)]), workspace: rotated, salt: SALT, workspaceKey: 'default@local' });
    expect(report.summary).toEqual({ checked: 1, outside: 0, pending: 0, both: 0, unlabelled: 1, environment: 0, unrecorded: 0 });
    // Recorded under the key in use, or by a version that did not name the key: labelled as before.
    if (agent) agent.fingerprintKeyId = fingerprintKeyId(SALT);
    expect(classes([change('agent.a', 'agent', fields)], rotated)).toEqual([['agent.a', 'pending', false, ['config.prompt:pending', 'name:pending']]]);
    if (agent) delete agent.fingerprintKeyId;
    expect(classes([change('agent.a', 'agent', fields)], rotated)).toEqual([['agent.a', 'pending', false, ['config.prompt:pending', 'name:pending']]]);
  });

  it('a credential whose fingerprint was recorded under another key is not labelled; under the key in use, or unnamed, it is in git, not applied yet', () => {
    const workspace = emptyWorkspace();
    workspace.credentials['credential.openai'] = { fingerprint: hashApplied('old-salt', 'openai:k1'), fingerprintKeyId: fingerprintKeyId('old-salt') };
    const rotated = [change('credential.openai', 'credential', [field('api_key', 'old', 'new')])];
    expect(classes(rotated, workspace)).toEqual([['credential.openai', 'unlabelled', false, ['api_key:unlabelled']]]);
    workspace.credentials['credential.openai'] = { fingerprint: hashApplied(SALT, 'openai:k1'), fingerprintKeyId: fingerprintKeyId(SALT) };
    expect(classes(rotated, workspace)).toEqual([['credential.openai', 'pending', false, ['api_key:pending']]]);
    workspace.credentials['credential.openai'] = { fingerprint: hashApplied(SALT, 'openai:k1') };
    expect(classes(rotated, workspace)).toEqual([['credential.openai', 'pending', false, ['api_key:pending']]]);
  });

  it('counts resources by class, and every resource compared', () => {
    const workspace = workspaceWith({ 'config.prompt': 'v1' });
    const report = classifyDrift({
      plan: plan([change('agent.a', 'agent', [field('config.prompt', 'x', 'v1')]), change('agent.b', 'agent', []), change('campaign.c', 'campaign', [field('name', 'a', 'b')])]),
      workspace,
      salt: SALT,
      workspaceKey: 'default@local',
    });
    expect(report.summary).toEqual({ checked: 3, outside: 1, pending: 1, both: 0, unlabelled: 0, environment: 0, unrecorded: 0 });
  });
});
