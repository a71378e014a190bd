/** What the state keeps after an agent's update: its own last apply, never another agent's. */
import { describe, expect, it } from 'vitest';
import { stateAfterRequest, stateWhenUnchanged, stateWritesSettled, stateWritesUnrecorded, unreadableWrites } from '../../src/apply/record-state.js';
import { DesiredIndex } from '../../src/apply/resources.js';
import type { PlannedRequest, ResourceChange } from '../../src/plan/types.js';
import { emptyWorkspace, hashApplied } from '../../src/state/types.js';
import { fingerprintKeyId } from '../../src/util/hash.js';
import { desiredAgent, desiredCampaign, desiredKnowledge, desiredState } from '../helpers/desired.js';

const update: PlannedRequest = { id: 'agent.billing/1', operation: 'update_agent', method: 'PUT', path: '/agents/a2', body: {}, fills: [], dependsOn: [] };

/** `sent`: the paths the update changes (the rest it found live as wanted). */
function billingChange(sent: string[] = []): ResourceChange {
  const fieldChanges = sent.map((path) => ({ path, before: 'before', after: 'after', sensitive: false, drift: false }));
  return { address: 'agent.billing', kind: 'agent', action: 'update', id: 'a2', before: {}, after: {}, fieldChanges, sensitivePaths: [], reason: undefined, dependsOn: [], requests: [update], liveFingerprint: '' };
}

describe('the state after an agent update', () => {
  it('keeps the attached files of the agent updated, not those of the agent its key named before (its `id:` changed)', () => {
    const agent = desiredAgent('billing', { id: 'a2', config: { first_message: 'Billing here.' } });
    const resources = new DesiredIndex(desiredState({ agents: [agent] }));
    const ws = emptyWorkspace();
    ws.agents['agent.billing'] = { id: 'a1', applied: { knowledge: hashApplied('key', ['file-of-a1']) } };
    stateAfterRequest(update, billingChange(), {}, undefined, { resources, key: 'key' })?.(ws);
    expect(ws.agents['agent.billing']).toMatchObject({ id: 'a2' });
    expect(ws.agents['agent.billing']?.applied.knowledge).toBeUndefined();
  });

  it('after the API key was rotated, records the files it leaves attached under the new key, so a file lost later is told', () => {
    const agent = desiredAgent('billing', { id: 'a2', config: { first_message: 'Billing here.' }, knowledge: ['faq'] });
    const resources = new DesiredIndex(desiredState({ agents: [agent] }));
    const ws = emptyWorkspace();
    ws.agents['agent.billing'] = { id: 'a2', applied: { knowledge: hashApplied('old-key', ['file_1']) }, fingerprintKeyId: fingerprintKeyId('old-key') };
    const change = { ...billingChange(['config.first_message']), before: { knowledge: ['file_1'] } };
    stateAfterRequest(update, change, {}, undefined, { resources, key: 'key' })?.(ws);
    expect(ws.agents['agent.billing']).toMatchObject({ applied: { knowledge: hashApplied('key', ['file_1']) }, fingerprintKeyId: fingerprintKeyId('key') });
    // Files the plan sets anew are not this request's: their own request records them.
    stateAfterRequest(update, { ...change, fieldChanges: [...change.fieldChanges, { path: 'knowledge', before: [], after: ['file_2'], sensitive: false, drift: false }] }, {}, undefined, { resources, key: 'new-key' })?.(ws);
    expect(ws.agents['agent.billing']?.applied.knowledge).toBeUndefined();
  });

  it('of an agent a rollback restores (which leaves its files as they are), keeps the files recorded, re-hashed under a new API key', () => {
    // A rollback's agent: no `knowledge` of its own, the manifests' list as `keptKnowledge`.
    const agent = desiredAgent('billing', { id: 'a2', config: { first_message: 'Billing here.' }, keptKnowledge: ['faq'] });
    const resources = new DesiredIndex(desiredState({ agents: [agent] }));
    const ws = emptyWorkspace();
    ws.knowledge['knowledge.faq'] = { fileId: 'file_1', contentHash: 'sha256:faq', name: 'faq.md', description: undefined };
    ws.agents['agent.billing'] = { id: 'a2', applied: { knowledge: hashApplied('old-key', ['file_1']) }, fingerprintKeyId: fingerprintKeyId('old-key') };
    stateAfterRequest(update, billingChange(['config.first_message']), {}, undefined, { resources, key: 'key' })?.(ws);
    expect(ws.agents['agent.billing']).toMatchObject({ applied: { knowledge: hashApplied('key', ['file_1']) }, fingerprintKeyId: fingerprintKeyId('key') });
    // Left unchanged by a rollback of other agents: the record stays as it was.
    stateWhenUnchanged({ ...billingChange(), action: 'no-op', requests: [] }, { resources, key: 'key' })?.(ws);
    expect(ws.agents['agent.billing']?.applied.knowledge).toBe(hashApplied('key', ['file_1']));
  });

  it('records the paths found live as wanted, and writes no `foundLive` when the update sent every one', () => {
    const agent = desiredAgent('billing', { id: 'a2', name: 'Billing', config: { first_message: 'Billing here.' } });
    const resources = new DesiredIndex(desiredState({ agents: [agent] }));
    const ws = emptyWorkspace();
    stateAfterRequest(update, billingChange(['config.first_message']), {}, undefined, { resources, key: 'key' })?.(ws);
    expect(ws.agents['agent.billing']?.foundLive).toEqual(['name']);
    stateAfterRequest(update, billingChange(['name', 'config.first_message']), {}, undefined, { resources, key: 'key' })?.(ws);
    expect(Object.keys(ws.agents['agent.billing'] ?? {})).not.toContain('foundLive');
  });
});

describe('the state of a renamed campaign or knowledge file', () => {
  const campaign = desiredCampaign('recall-2026', { id: 'cmp_recall', name: 'Recall B', caller: '+15551230001' });
  const file = desiredKnowledge('clinic-faq', { contentHash: 'sha256:faq' });
  const resources = new DesiredIndex(desiredState({ campaigns: [campaign], knowledge: [file] }));
  const moved: Omit<ResourceChange, 'action' | 'fieldChanges' | 'requests'> = {
    address: 'campaign.recall-2026', kind: 'campaign', id: 'cmp_recall', before: {}, after: {}, sensitivePaths: [], reason: undefined, dependsOn: [], liveFingerprint: '', movedFrom: 'campaign.recall',
  };
  const editName: PlannedRequest = { id: 'campaign.recall-2026/1', operation: 'edit_campaign_info', method: 'POST', path: '/campaigns/cmp_recall/info', body: {}, fills: [], dependsOn: [] };
  const withOld = () => {
    const ws = emptyWorkspace();
    ws.campaigns['campaign.recall'] = { id: 'cmp_recall', applied: { name: 'Recall A', caller: '+15551230001' }, writeOrder: 2 };
    ws.knowledge['knowledge.faq'] = { fileId: 'file_1', contentHash: 'sha256:faq', name: 'clinic-faq.md', description: undefined };
    return ws;
  };

  it('moves to the new key when nothing is sent', () => {
    const ws = withOld();
    stateWhenUnchanged({ ...moved, action: 'no-op', fieldChanges: [], requests: [] }, { resources, key: 'key' })?.(ws);
    const fileChange: ResourceChange = { ...moved, address: 'knowledge.clinic-faq', kind: 'knowledge', id: 'file_1', action: 'no-op', after: { content_hash: 'sha256:faq' }, fieldChanges: [], requests: [], movedFrom: 'knowledge.faq' };
    stateWhenUnchanged(fileChange, { resources, key: 'key' })?.(ws);
    expect(ws.campaigns).toEqual({ 'campaign.recall-2026': { id: 'cmp_recall', applied: { name: 'Recall A', caller: '+15551230001' }, writeOrder: 2 } });
    expect(Object.keys(ws.knowledge)).toEqual(['knowledge.clinic-faq']);
  });

  it('keeps the values not sent when one is, under the new key alone; its mark follows it there', () => {
    const ws = withOld();
    const change: ResourceChange = { ...moved, action: 'update', fieldChanges: [{ path: 'name', before: 'Recall A', after: 'Recall B', sensitive: false, drift: false }], requests: [editName] };
    expect(unreadableWrites([change], ws)).toEqual({ unmarked: [change], marked: [] });
    stateWritesUnrecorded([change])(ws);
    expect(ws.campaigns['campaign.recall']?.writeUnrecorded).toBe(true);
    stateAfterRequest(editName, change, { name: 'Recall B' }, undefined, { resources, key: 'key' })?.(ws);
    expect(ws.campaigns).toEqual({ 'campaign.recall-2026': { id: 'cmp_recall', applied: { name: 'Recall B', caller: '+15551230001' } } });
    stateWritesUnrecorded([change])(ws);
    stateWritesSettled(change)(ws);
    expect(ws.campaigns['campaign.recall-2026']?.writeUnrecorded).toBeUndefined();
  });

  it('an upload under the new key leaves no entry under the old one', () => {
    const ws = withOld();
    const upload: PlannedRequest = { id: 'knowledge.clinic-faq/1', operation: 'upload_knowledge_file', method: 'POST', path: '/knowledge/create_file', body: {}, fills: [], dependsOn: [] };
    const change: ResourceChange = { ...moved, address: 'knowledge.clinic-faq', kind: 'knowledge', id: undefined, action: 'update', after: { content_hash: 'sha256:faq' }, fieldChanges: [], requests: [upload], movedFrom: 'knowledge.faq' };
    stateAfterRequest(upload, change, {}, { fileId: 'file_2' }, { resources, key: 'key' })?.(ws);
    expect(ws.knowledge).toEqual({ 'knowledge.clinic-faq': { fileId: 'file_2', contentHash: 'sha256:faq', name: 'clinic-faq.md', description: undefined } });
  });
});
