import { describe, expect, it } from 'vitest';
import { diffStates, selectTargets, summarize } from '../../src/plan/diff.js';
import type { Agent } from '../../src/schema/types.gen.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { hashApplied } from '../../src/state/types.js';
import { fingerprintKeyId } from '../../src/util/hash.js';
import { desiredAgent, desiredCampaign, desiredKnowledge, desiredPhone, desiredState } from '../helpers/desired.js';

const liveAgent = (id: string, config: Agent['config'], name = 'Front desk'): Agent => ({ id, name, config, created_at: 1 });

function diffOne(agentConfig: Record<string, unknown>, live: Agent['config'], extra: Partial<Parameters<typeof desiredAgent>[1]> = {}) {
  const agent = desiredAgent('front', { id: 'a1', config: agentConfig, ...extra });
  const { changes, problems } = diffStates({
    desired: desiredState({ agents: [agent] }),
    live: { agents: new Map([['a1', liveAgent('a1', live)]]), phones: [] },
    state: emptyWorkspace(),
    salt: 'salt', baseUrl: 'local',
    files: [],
  });
  expect(problems).toEqual([]);
  return changes[0]!;
}

describe('agent diff', () => {
  it.each([
    {
      name: 'equal values: no-op',
      desired: { prompt: 'Hi', flow: { response_delay: 300 } },
      live: { prompt: 'Hi', flow: { response_delay: 300, user_start_first: true } },
      expected: [],
    },
    {
      name: 'a changed leaf, unmanaged siblings ignored',
      desired: { flow: { response_delay: 100 } },
      live: { flow: { response_delay: 300, user_start_first: true } },
      expected: [{ path: 'config.flow.response_delay', before: 300, after: 100 }],
    },
    {
      name: 'a new leaf',
      desired: { first_message: 'Hello' },
      live: {},
      expected: [{ path: 'config.first_message', before: undefined, after: 'Hello' }],
    },
    {
      name: 'null clears a set field',
      desired: { first_message: null },
      live: { first_message: 'Hello' },
      expected: [{ path: 'config.first_message', before: 'Hello', after: null }],
    },
    {
      name: 'null on an unset field is no change',
      desired: { first_message: null },
      live: {},
      expected: [],
    },
    {
      name: 'arrays are one value',
      desired: { switch_language: { languages: ['en', 'es'] } },
      live: { switch_language: { languages: ['es', 'en'] } },
      expected: [{ path: 'config.switch_language.languages', before: ['es', 'en'], after: ['en', 'es'] }],
    },
    {
      name: 'read-only extras of the live config never show',
      desired: { voice: { voice_id: 'v1' }, tools: [{ name: 't', webhook: 'https://x' }] },
      live: { voice: { voice_id: 'v1', provider: 'elevenlabs' }, tools: [{ name: 't', webhook: 'https://x', response_mode: 'strict' }] },
      expected: [],
    },
  ])('$name', ({ desired, live, expected }) => {
    const change = diffOne(desired, live as Agent['config']);
    expect(change.fieldChanges.map(({ path, before, after }) => ({ path, before, after }))).toEqual(expected);
    expect(change.action).toBe(expected.length === 0 ? 'no-op' : 'update');
  });

  it('ignores paths listed in ignore', () => {
    const change = diffOne({ voice: { voice_id: 'v2', settings: { speed: 1 } } }, { voice: { voice_id: 'v1', settings: { speed: 2 } } }, {
      ignore: ['config.voice.settings'],
    });
    expect(change.fieldChanges.map((f) => f.path)).toEqual(['config.voice.voice_id']);
  });

  it('compares the display name when the manifest sets it', () => {
    const change = diffOne({}, {}, { name: 'Reception' });
    expect(change.fieldChanges).toMatchObject([{ path: 'name', before: 'Front desk', after: 'Reception' }]);
  });

  it('marks drift when live moved away from what was last applied and the manifest did not change', () => {
    const agent = desiredAgent('front', { id: 'a1', config: { first_message: 'Hello' } });
    const state = emptyWorkspace();
    state.agents['agent.front'] = { id: 'a1', applied: { 'config.first_message': hashApplied('salt', 'Hello') } };
    const { changes } = diffStates({
      desired: desiredState({ agents: [agent] }),
      live: { agents: new Map([['a1', liveAgent('a1', { first_message: 'Changed in the dashboard' })]]), phones: [] },
      state,
      salt: 'salt', baseUrl: 'local',
      files: [],
    });
    expect(changes[0]).toMatchObject({ action: 'update', reason: 'drift', fieldChanges: [{ path: 'config.first_message', drift: true }] });
    expect(summarize(changes).drifted).toBe(1);
  });

  it('does not call a manifest edit drift', () => {
    const agent = desiredAgent('front', { id: 'a1', config: { first_message: 'New text' } });
    const state = emptyWorkspace();
    state.agents['agent.front'] = { id: 'a1', applied: { 'config.first_message': hashApplied('salt', 'Hello') } };
    const { changes } = diffStates({
      desired: desiredState({ agents: [agent] }),
      live: { agents: new Map([['a1', liveAgent('a1', { first_message: 'Hello' })]]), phones: [] },
      state,
      salt: 'salt', baseUrl: 'local',
      files: [],
    });
    expect(changes[0]).toMatchObject({ reason: undefined, fieldChanges: [{ drift: false }] });
  });

  it('reads a renamed agent key as a move: the old entry is its drift baseline, and the change says where it moved from', () => {
    const agent = desiredAgent('reception', { id: 'a1', config: { first_message: 'Hello' } });
    const other = desiredAgent('booking', { id: 'a2', config: { first_message: 'Hi' } });
    const state = emptyWorkspace();
    state.agents['agent.front-desk'] = { id: 'a1', applied: { 'config.first_message': hashApplied('salt', 'Hello') } };
    state.agents['agent.gone'] = { id: 'a3', applied: {} };
    const { changes } = diffStates({
      desired: desiredState({ agents: [agent, other] }),
      live: { agents: new Map([['a1', liveAgent('a1', { first_message: 'Changed in the dashboard' })], ['a2', liveAgent('a2', { first_message: 'Hi' })]]), phones: [] },
      state,
      salt: 'salt', baseUrl: 'local',
      files: [],
    });
    expect(changes.find((c) => c.address === 'agent.reception')).toMatchObject({ movedFrom: 'agent.front-desk', reason: 'drift', fieldChanges: [{ drift: true }] });
    expect(changes.find((c) => c.address === 'agent.booking')?.movedFrom).toBeUndefined();
  });

  it('moves no state entry when two keys name its agent: which one it became is unknown', () => {
    const agents = [desiredAgent('reception', { id: 'a1', config: {} }), desiredAgent('lobby', { id: 'a1', config: {} })];
    const state = emptyWorkspace();
    state.agents['agent.front-desk'] = { id: 'a1', applied: {} };
    const { changes } = diffStates({ desired: desiredState({ agents }), live: { agents: new Map([['a1', liveAgent('a1', {})]]), phones: [] }, state, salt: 'salt', baseUrl: 'local', files: [] });
    expect(changes.map((c) => c.movedFrom)).toEqual([undefined, undefined]);
  });

  it('reads no baseline from an entry of another agent: a key whose id changed is an adoption, not drift', () => {
    const agent = desiredAgent('billing', { id: 'a2', config: { first_message: 'Billing here.' } });
    const state = emptyWorkspace();
    state.agents['agent.billing'] = { id: 'a1', applied: { 'config.first_message': hashApplied('salt', 'Billing here.') } };
    const { changes } = diffStates({ desired: desiredState({ agents: [agent] }), live: { agents: new Map([['a2', liveAgent('a2', { first_message: 'Hello' })]]), phones: [] }, state, salt: 'salt', baseUrl: 'local', files: [] });
    expect(changes[0]).toMatchObject({ action: 'update', reason: undefined, fieldChanges: [{ path: 'config.first_message', drift: false }] });
    expect(changes[0]?.movedFrom).toBeUndefined();
    expect(summarize(changes).drifted).toBe(0);
  });

  it('reads two swapped keys as two moves: each agent keeps its own baseline', () => {
    const agents = [desiredAgent('reception', { id: 'a2', config: { first_message: 'Book' } }), desiredAgent('booking', { id: 'a1', config: { first_message: 'Desk' } })];
    const state = emptyWorkspace();
    state.agents['agent.reception'] = { id: 'a1', applied: { 'config.first_message': hashApplied('salt', 'Desk') } };
    state.agents['agent.booking'] = { id: 'a2', applied: { 'config.first_message': hashApplied('salt', 'Book') } };
    const live = new Map([['a1', liveAgent('a1', { first_message: 'Desk' })], ['a2', liveAgent('a2', { first_message: 'Changed in the dashboard' })]]);
    const { changes } = diffStates({ desired: desiredState({ agents }), live: { agents: live, phones: [] }, state, salt: 'salt', baseUrl: 'local', files: [] });
    expect(changes.find((c) => c.address === 'agent.reception')).toMatchObject({ movedFrom: 'agent.booking', reason: 'drift', fieldChanges: [{ drift: true }] });
    expect(changes.find((c) => c.address === 'agent.booking')).toMatchObject({ movedFrom: 'agent.reception', action: 'no-op' });
  });

  it('reports an agent id the service does not know, at its place', () => {
    const agent = desiredAgent('front', { id: 'missing', source: { file: 'a.yaml', line: 4, col: 3 } });
    const { problems } = diffStates({ desired: desiredState({ agents: [agent] }), live: { agents: new Map(), phones: [] }, state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] });
    expect(problems).toMatchObject([{ address: 'agent.front', file: 'a.yaml', line: 4, col: 3 }]);
    expect(problems[0]!.message).toContain('"missing"');
  });

  it('marks header values and env-filled paths as sensitive', () => {
    const change = diffOne(
      { session_data_webhook: { url: 'https://h', headers: { 'x-token': 'new-secret' } }, first_message: 'from env' },
      { session_data_webhook: { url: 'https://h', headers: { 'x-token': 'old-secret' } } },
      { sensitivePaths: ['first_message'] },
    );
    expect(change.fieldChanges.map((f) => [f.path, f.sensitive])).toEqual([
      ['config.first_message', true],
      ['config.session_data_webhook.headers.x-token', true],
    ]);
  });
});

describe('phones, campaigns, targets', () => {
  const agent = desiredAgent('front', { id: 'a1', config: { first_message: 'Hi' } });
  const live = { agents: new Map([['a1', liveAgent('a1', { first_message: 'Old' })]]), phones: [{ id: '+15550000001', agent_id: 'other' }] };

  it('binds, imports, or reports a phone that cannot be had', () => {
    const phones = [
      desiredPhone('+15550000001', { agent: { id: 'a1', localName: 'front' } }),
      desiredPhone('+15550000002', { agent: { id: 'a1', localName: 'front' }, import: { provider: 'twilio', country: 'US', region: 'us-west', api_key: 'k', api_secret: 's' } }),
      desiredPhone('+15550000003', { agent: { id: 'a1', localName: 'front' } }),
    ];
    const { changes, problems } = diffStates({ desired: desiredState({ agents: [agent], phones }), live, state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] });
    const byAddress = Object.fromEntries(changes.map((c) => [c.address, c]));
    expect(byAddress['phone.+15550000001']).toMatchObject({ action: 'update', dependsOn: ['agent.front'], fieldChanges: [{ path: 'agent_id', before: 'other', after: 'a1' }] });
    expect(byAddress['phone.+15550000002']).toMatchObject({ action: 'create', dependsOn: ['agent.front'] });
    expect(problems.map((p) => p.address)).toEqual(['phone.+15550000003']);
  });

  it('says plainly that a campaign without state is unknown, and diffs against state otherwise', () => {
    const campaign = desiredCampaign('spring', { name: 'Spring', include_metadata_in_prompt: false });
    const unknown = diffStates({ desired: desiredState({ campaigns: [campaign] }), live, state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] });
    expect(unknown.changes[0]).toMatchObject({ action: 'update', reason: 'live_unknown', before: null });
    const state = emptyWorkspace();
    state.campaigns['campaign.spring'] = { id: 'cmp_spring', applied: { name: 'Spring', include_metadata_in_prompt: false } };
    const known = diffStates({ desired: desiredState({ campaigns: [campaign] }), live, state, salt: 'salt', baseUrl: 'local', files: [] });
    expect(known.changes[0]).toMatchObject({ action: 'no-op', reason: undefined });
  });

  it('reads a renamed campaign key as a move: the old entry is what it last applied, and the change says where it moved from', () => {
    const campaign = desiredCampaign('recall-2026', { id: 'cmp_recall', name: 'Recall' });
    const state = emptyWorkspace();
    state.campaigns['campaign.recall'] = { id: 'cmp_recall', applied: { name: 'Recall' } };
    const { changes } = diffStates({ desired: desiredState({ campaigns: [campaign] }), live, state, salt: 'salt', baseUrl: 'local', files: [] });
    expect(changes[0]).toMatchObject({ address: 'campaign.recall-2026', action: 'no-op', movedFrom: 'campaign.recall' });
  });

  it('moves no campaign entry of another id, nor one two keys name: which one it became is unknown', () => {
    const state = emptyWorkspace();
    state.campaigns['campaign.recall'] = { id: 'cmp_recall', applied: { name: 'Recall' } };
    const twice = [desiredCampaign('a', { id: 'cmp_recall', name: 'Recall' }), desiredCampaign('b', { id: 'cmp_recall', name: 'Recall' })];
    const other = [desiredCampaign('recall-2026', { id: 'cmp_other', name: 'Recall' })];
    for (const campaigns of [twice, other]) {
      const { changes } = diffStates({ desired: desiredState({ campaigns }), live, state, salt: 'salt', baseUrl: 'local', files: [] });
      expect(changes.map((c) => [c.movedFrom, c.reason])).toEqual(campaigns.map(() => [undefined, 'live_unknown']));
    }
  });

  it('--target keeps the target and what it depends on', () => {
    const phones = [desiredPhone('+15550000001', { agent: { id: 'a1', localName: 'front' } })];
    const campaign = desiredCampaign('spring', { name: 'S' });
    const { changes } = diffStates({ desired: desiredState({ agents: [agent], phones, campaigns: [campaign] }), live, state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] });
    expect(selectTargets(changes, ['phone.+15550000001']).map((c) => c.address)).toEqual(['agent.front', 'phone.+15550000001']);
  });
});

describe('knowledge files and credentials', () => {
  const file = desiredKnowledge('faq', { description: 'FAQ', contentHash: 'sha256:new' });
  const credential = {
    kind: 'credential' as const,
    address: 'credential.openai',
    source: { file: 'voxform.yaml', line: 1, col: 1 },
    provider: 'openai',
    apiKey: 'sk-secret',
    fingerprint: 'sha256:fp-new',
  };
  const agent = desiredAgent('front', { id: 'a1', knowledge: ['faq'] });
  const live = { agents: new Map([['a1', liveAgent('a1', { knowledge_base: { files: ['file_1'] } })]]), phones: [] };

  function plan(state = emptyWorkspace()) {
    const { changes } = diffStates({ desired: desiredState({ agents: [agent], knowledge: [file], credentials: [credential] }), live, state, salt: 'salt', baseUrl: 'local', files: [] });
    return Object.fromEntries(changes.map((c) => [c.address, c]));
  }

  it('uploads a file never applied, and the agent waits for its new id', () => {
    const changes = plan();
    expect(changes['knowledge.faq']).toMatchObject({ action: 'create' });
    expect(changes['agent.front']).toMatchObject({ action: 'update', dependsOn: ['knowledge.faq'] });
    expect(changes['credential.openai']).toMatchObject({ action: 'create', reason: 'live_unknown' });
  });

  it("takes the agent's files as a set: the service listing them in another order, or one twice, is no change; another file is", () => {
    const extra = desiredKnowledge('hours', { description: 'Hours', contentHash: 'sha256:hours' });
    const state = emptyWorkspace();
    state.knowledge['knowledge.faq'] = { fileId: 'file_1', contentHash: 'sha256:new', name: 'faq.md', description: 'FAQ' };
    state.knowledge['knowledge.hours'] = { fileId: 'file_2', contentHash: 'sha256:hours', name: 'hours.md', description: 'Hours' };
    const both = desiredAgent('front', { id: 'a1', knowledge: ['faq', 'hours'] });
    const agentChange = (liveFiles: string[]) => {
      const liveState = { agents: new Map([['a1', liveAgent('a1', { knowledge_base: { files: liveFiles } })]]), phones: [] };
      const { changes } = diffStates({ desired: desiredState({ agents: [both], knowledge: [file, extra] }), live: liveState, state, salt: 'salt', baseUrl: 'local', files: [] });
      return changes.find((c) => c.address === 'agent.front');
    };
    expect(agentChange(['file_2', 'file_1'])?.action).toBe('no-op');
    expect(agentChange(['file_1', 'file_2', 'file_1'])?.action).toBe('no-op');
    expect(agentChange(['file_1'])?.fieldChanges).toMatchObject([{ path: 'knowledge', before: ['file_1'], after: ['file_1', 'file_2'] }]);
    expect(agentChange(['file_1', 'file_3'])?.action).toBe('update');
  });

  it('does nothing when content and fingerprint are as last applied', () => {
    const state = emptyWorkspace();
    state.knowledge['knowledge.faq'] = { fileId: 'file_1', contentHash: 'sha256:new', name: 'faq.md', description: 'FAQ' };
    // The state keeps the credential's fingerprint keyed, as apply records it.
    state.credentials['credential.openai'] = { fingerprint: hashApplied('salt', 'sha256:fp-new') };
    const changes = plan(state);
    expect(Object.values(changes).map((c) => [c.address, c.action])).toEqual([
      ['credential.openai', 'no-op'],
      ['knowledge.faq', 'no-op'],
      ['agent.front', 'no-op'],
    ]);
  });

  it('reads a renamed key of a file of the same content as a move: nothing is uploaded, the agent keeps its file', () => {
    const renamed = desiredKnowledge('clinic-faq', { name: 'faq.md', description: 'FAQ', contentHash: 'sha256:new' });
    const state = emptyWorkspace();
    state.knowledge['knowledge.faq'] = { fileId: 'file_1', contentHash: 'sha256:new', name: 'faq.md', description: 'FAQ' };
    const desired = desiredState({ agents: [desiredAgent('front', { id: 'a1', knowledge: ['clinic-faq'] })], knowledge: [renamed] });
    const { changes } = diffStates({ desired, live, state, salt: 'salt', baseUrl: 'local', files: [] });
    expect(changes.map((c) => [c.address, c.action, c.movedFrom])).toEqual([
      ['knowledge.clinic-faq', 'no-op', 'knowledge.faq'],
      ['agent.front', 'no-op', undefined],
    ]);
  });

  it('uploads a renamed file whose name changed too as its name change: the state entry still moves', () => {
    const renamed = desiredKnowledge('clinic-faq', { name: 'Clinic FAQ', description: 'FAQ', contentHash: 'sha256:new' });
    const state = emptyWorkspace();
    state.knowledge['knowledge.faq'] = { fileId: 'file_1', contentHash: 'sha256:new', name: 'faq.md', description: 'FAQ' };
    const { changes } = diffStates({ desired: desiredState({ knowledge: [renamed] }), live, state, salt: 'salt', baseUrl: 'local', files: [] });
    expect(changes[0]).toMatchObject({ action: 'update', movedFrom: 'knowledge.faq', fieldChanges: [{ path: 'name', before: 'faq.md', after: 'Clinic FAQ' }] });
  });

  it('moves no file entry of other content, nor one whose content two keys hold', () => {
    const state = emptyWorkspace();
    state.knowledge['knowledge.faq'] = { fileId: 'file_1', contentHash: 'sha256:new', name: 'faq.md', description: 'FAQ' };
    const twice = [desiredKnowledge('a', { contentHash: 'sha256:new' }), desiredKnowledge('b', { contentHash: 'sha256:new' })];
    const other = [desiredKnowledge('clinic-faq', { contentHash: 'sha256:other' })];
    for (const knowledge of [twice, other]) {
      const { changes } = diffStates({ desired: desiredState({ knowledge }), live, state, salt: 'salt', baseUrl: 'local', files: [] });
      expect(changes.map((c) => [c.action, c.movedFrom])).toEqual(knowledge.map(() => ['create', undefined]));
    }
  });

  it('uploads again when the content changed, and rebinds the agent', () => {
    const state = emptyWorkspace();
    state.knowledge['knowledge.faq'] = { fileId: 'file_1', contentHash: 'sha256:old', name: 'faq.md', description: 'FAQ' };
    state.credentials['credential.openai'] = { fingerprint: 'sha256:fp-old' };
    const changes = plan(state);
    expect(changes['knowledge.faq']).toMatchObject({ action: 'update', reason: 'content_changed', fieldChanges: [{ path: 'content_hash' }] });
    expect(changes['agent.front']).toMatchObject({ action: 'update', dependsOn: ['knowledge.faq'], fieldChanges: [{ path: 'knowledge' }] });
    expect(changes['credential.openai']).toMatchObject({ action: 'update', fieldChanges: [{ path: 'api_key', sensitive: true }] });
  });

  describe('a recorded file the service lost', () => {
    /** The state after an apply that uploaded faq as file_1 and attached it; `liveFiles`: what the agent lists now. */
    /** `appliedWith`: the key the apply hashed with (another than the plan's `salt`: the API key rotated since). */
    function planAfterApply(liveFiles: string[], attached = true, appliedWith = 'salt') {
      const state = emptyWorkspace();
      state.knowledge['knowledge.faq'] = { fileId: 'file_1', contentHash: 'sha256:new', name: 'faq.md', description: 'FAQ' };
      const applied: Record<string, string> = attached ? { knowledge: hashApplied(appliedWith, ['file_1']) } : {};
      state.agents['agent.front'] = { id: 'a1', applied, fingerprintKeyId: fingerprintKeyId(appliedWith) };
      const liveState = { agents: new Map([['a1', liveAgent('a1', { knowledge_base: { files: liveFiles } })]]), phones: [] };
      const { changes } = diffStates({ desired: desiredState({ agents: [agent], knowledge: [file] }), live: liveState, state, salt: 'salt', baseUrl: 'local', files: [] });
      return Object.fromEntries(changes.map((c) => [c.address, c]));
    }

    it('is uploaded again when no agent lists the file voxform attached, and the agent gets the new id', () => {
      const changes = planAfterApply([]);
      expect(changes['knowledge.faq']).toMatchObject({ action: 'create', reason: 'gone', before: null, requests: [{ operation: 'upload_knowledge_file' }] });
      expect(changes['agent.front']).toMatchObject({ action: 'update', dependsOn: ['knowledge.faq'] });
      // The manifests did not move: the agent's files changed on the service.
      expect(changes['agent.front']!.fieldChanges).toMatchObject([{ path: 'knowledge', before: [], after: ['(known after apply): knowledge.faq'], drift: true }]);
      expect(changes['agent.front']!.requests).toMatchObject([{ operation: 'set_agent_files', fills: [{ at: ['files', 0], value: { resultOf: 'knowledge.faq/1' } }] }]);
    });

    it('is uploaded again after the API key was rotated, whose hash cannot say the files were attached', () => {
      const changes = planAfterApply([], true, 'old-salt');
      expect(changes['knowledge.faq']).toMatchObject({ action: 'create', reason: 'gone', requests: [{ operation: 'upload_knowledge_file' }] });
      expect(changes['agent.front']!.requests).toMatchObject([{ operation: 'set_agent_files', fills: [{ at: ['files', 0], value: { resultOf: 'knowledge.faq/1' } }] }]);
      // Still listed: kept, as under the same key.
      expect(planAfterApply(['file_1'], true, 'old-salt')['knowledge.faq']).toMatchObject({ action: 'no-op', id: 'file_1' });
    });

    it('keeps the recorded id while an agent lists it, or when voxform never attached it', () => {
      expect(planAfterApply(['file_1'])['knowledge.faq']).toMatchObject({ action: 'no-op', id: 'file_1' });
      // Uploaded, then the agent's apply failed: the recorded id is attached, not uploaded twice.
      const neverAttached = planAfterApply([], false);
      expect(neverAttached['knowledge.faq']).toMatchObject({ action: 'no-op', id: 'file_1' });
      expect(neverAttached['agent.front']!.requests).toMatchObject([{ operation: 'set_agent_files', body: { files: ['file_1'] }, fills: [] }]);
    });
  });
});
