import { describe, expect, it } from 'vitest';
import { diffStates } from '../../src/plan/diff.js';
import { renderPlanJson } from '../../src/plan/render-json.js';
import type { ResourceChange } from '../../src/plan/types.js';
import type { Agent } from '../../src/schema/types.gen.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { desiredAgent, desiredCampaign, desiredPhone, desiredState } from '../helpers/desired.js';
import { planOf } from '../helpers/plan.js';
import { DesiredIndex } from '../../src/apply/resources.js';
import { filledBody } from '../../src/apply/fills.js';
import { formatDotted } from '../../src/util/field-path.js';
import { renderPlanText } from '../../src/plan/render-text.js';
import { withSecretFills } from '../../src/plan/requests.js';

const here = { file: 'voxform.yaml', line: 1, col: 1 };
const liveAgent = (id: string, config: Agent['config']): Agent => ({ id, name: 'Front desk', config, created_at: 1 });

function byAddress(changes: ResourceChange[]): Record<string, ResourceChange> {
  return Object.fromEntries(changes.map((c) => [c.address, c]));
}

describe('withSecretFills', () => {
  it('copies only the way to each secret: the rest of the body is shared, and the body given is left as it was', () => {
    const voice = { voice_id: 'ava', settings: { stability: 0.5 } };
    const body = { name: 'Front desk', config: { voice, session_data_webhook: { url: 'https://hooks.example.com/x', headers: { 'x-token': 'planted-7070' } } } };
    const given = structuredClone(body);
    const { body: planned, fills } = withSecretFills(body, { address: 'agent.front', patterns: ['config.session_data_webhook.headers'], managed: ['config.session_data_webhook.url'] });
    expect(planned).toEqual({ name: 'Front desk', config: { voice, session_data_webhook: { url: 'https://hooks.example.com/x', headers: { 'x-token': '(sensitive)' } } } });
    expect((planned.config as typeof body.config).voice).toBe(voice);
    expect(planned.config).not.toBe(body.config);
    expect(body).toEqual(given);
    const place = ['config', 'session_data_webhook', 'headers', 'x-token'];
    expect(fills).toEqual([{ at: place, value: { secret: { address: 'agent.front', from: 'live', path: place } } }]);
  });

  it('keeps a header named __proto__ in the body sent (plain assignment would drop it, and the next plan would show it again)', () => {
    const body = JSON.parse('{"config":{"session_data_webhook":{"url":"https://hooks.example.com/x","headers":{"__proto__":"planted-7171","authorization":"planted-7272"}}}}');
    const { body: planned } = withSecretFills(body, { address: 'agent.front', patterns: ['config.session_data_webhook.headers'], managed: [] });
    const headers = (planned.config as { session_data_webhook: { headers: object } }).session_data_webhook.headers;
    expect(Object.keys(headers)).toEqual(['__proto__', 'authorization']);
    expect(JSON.stringify(headers)).toBe('{"__proto__":"(sensitive)","authorization":"(sensitive)"}');
  });

  it('shares every part of a body that no pattern reaches', () => {
    const body = { name: 'Front desk', config: { prompt: 'Hi' } };
    const none = withSecretFills(body, { address: 'agent.front', patterns: [], managed: [] });
    expect(none).toEqual({ body, fills: [] });
    expect(none.body.config).toBe(body.config);
    const elsewhere = withSecretFills(body, { address: 'agent.front', patterns: ['session_data_webhook.headers'], managed: [] });
    expect(elsewhere.body).toEqual(body);
    expect(elsewhere.body.config).toBe(body.config);
  });
});

describe('planned requests', () => {
  it("holds a campaign's and a knowledge file's values from ${env:…} as references, filled in from the manifests at apply", () => {
    const campaign = desiredCampaign('spring', { name: 'planted-campaign-3131', include_metadata_in_prompt: true, sensitivePaths: ['name'] });
    const file = {
      kind: 'knowledge' as const,
      address: 'knowledge.faq',
      source: here,
      localName: 'faq',
      path: '/project/docs/faq.md',
      name: 'FAQ',
      description: 'planted-description-4242',
      contentHash: 'sha256:c0ffee',
      size: 12,
      mimeType: 'text/markdown',
      sensitivePaths: ['description'],
    };
    const desired = desiredState({ campaigns: [campaign], knowledge: [file] });
    const { changes } = diffStates({ desired, live: { agents: new Map(), phones: [] }, state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] });
    const c = byAddress(changes);
    const info = c['campaign.spring']!.requests[0]!;
    const upload = c['knowledge.faq']!.requests[0]!;
    expect(info.body).toEqual({ name: '(sensitive)', include_metadata_in_prompt: true });
    expect(upload.body).toMatchObject({ name: 'FAQ', description: '(sensitive)' });
    const plan = planOf(changes);
    const shown = renderPlanJson(plan) + renderPlanText(plan, { color: false }) + JSON.stringify(changes.map((change) => change.requests));
    for (const secret of ['planted-campaign-3131', 'planted-description-4242']) expect(shown).not.toContain(secret);
    const context = { resources: new DesiredIndex(desired), live: { agents: new Map(), phones: [] }, results: new Map<string, string>() };
    expect(filledBody(info, context)).toEqual({ name: 'planted-campaign-3131', include_metadata_in_prompt: true });
    expect(filledBody(upload, context)).toMatchObject({ description: 'planted-description-4242' });
  });

  it('keeps a map key holding a dot one field: compared, sent and kept secret as that key', () => {
    const desired = (value: string) =>
      desiredAgent('front', { id: 'a1', config: { voice: { settings: { 'api.key': value } } }, sensitivePaths: [formatDotted(['voice', 'settings', 'api.key'])] });
    const live = liveAgent('a1', { voice: { settings: { 'api.key': 'planted-old-5151' } } } as Agent['config']);
    const planFor = (agent: ReturnType<typeof desired>) =>
      diffStates({ desired: desiredState({ agents: [agent] }), live: { agents: new Map([['a1', live]]), phones: [] }, state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] });
    expect(planFor(desired('planted-old-5151')).changes[0]!.action).toBe('no-op');
    const change = planFor(desired('planted-new-6262')).changes[0]!;
    expect(change.fieldChanges.map((f) => [f.path, f.sensitive])).toEqual([['config.voice.settings.api\\.key', true]]);
    expect(change.requests[0]).toMatchObject({
      body: { name: 'Front desk', config: { voice: { settings: { 'api.key': '(sensitive)' } } } },
      fills: [{ at: ['config', 'voice', 'settings', 'api.key'], value: { secret: { address: 'agent.front', from: 'manifest', path: ['config', 'voice', 'settings', 'api.key'] } } }],
    });
    const plan = planOf([change]);
    const shown = renderPlanJson(plan) + renderPlanText(plan, { color: false });
    for (const secret of ['planted-old-5151', 'planted-new-6262']) expect(shown).not.toContain(secret);
  });

  it('holds a phone import field filled from ${env:…} as a reference, like the schema-marked keys', () => {
    const phone = desiredPhone('+15550000002', {
      import: { provider: 'twilio', country: 'US', region: 'planted-region-4411', api_key: 'key-secret-3', api_secret: 'secret-secret-4' },
      sensitivePaths: ['import.region'],
    });
    const { changes } = diffStates({
      desired: desiredState({ phones: [phone] }),
      live: { agents: new Map(), phones: [] },
      state: emptyWorkspace(),
      salt: 'salt',
      baseUrl: 'local',
      files: [],
    });
    const [importRequest] = changes[0]!.requests;
    expect(importRequest).toMatchObject({
      body: { phone: '+15550000002', provider: 'twilio', country: 'US', region: '(sensitive)', api_key: '(sensitive)', api_secret: '(sensitive)' },
      fills: [
        { at: ['region'], value: { secret: { address: 'phone.+15550000002', from: 'manifest', path: ['import', 'region'] } } },
        { at: ['api_key'], value: { secret: { address: 'phone.+15550000002', from: 'manifest', path: ['import', 'api_key'] } } },
        { at: ['api_secret'], value: { secret: { address: 'phone.+15550000002', from: 'manifest', path: ['import', 'api_secret'] } } },
      ],
    });
    const plan = planOf(changes);
    const shown = renderPlanJson(plan) + renderPlanText(plan, { color: false }) + JSON.stringify(changes[0]!.requests);
    expect(changes[0]!.fieldChanges.find((f) => f.path === 'import.region')?.sensitive).toBe(true);
    expect(changes[0]!.sensitivePaths).toContain('import.region');
    for (const secret of ['planted-region-4411', 'key-secret-3', 'secret-secret-4']) expect(shown).not.toContain(secret);
  });

  it('fills a secret the update body sends back as the service has it from the service, never holding it', () => {
    const agent = desiredAgent('front', { id: 'a1', config: { session_data_webhook: { url: 'https://new.example.com/hook' } } });
    const live = liveAgent('a1', { session_data_webhook: { url: 'https://old.example.com/hook', headers: { 'x-token': 'live-secret-7788' } } });
    const { changes } = diffStates({
      desired: desiredState({ agents: [agent] }),
      live: { agents: new Map([['a1', live]]), phones: [] },
      state: emptyWorkspace(),
      salt: 'salt',
      baseUrl: 'local',
      files: [],
    });
    const [put, readBack] = changes[0]!.requests;
    expect(put).toEqual({
      id: 'agent.front/1',
      operation: 'update_agent',
      method: 'PUT',
      path: '/agents/a1',
      body: { name: 'Front desk', config: { session_data_webhook: { url: 'https://new.example.com/hook', headers: { 'x-token': '(sensitive)' } } } },
      fills: [
        {
          at: ['config', 'session_data_webhook', 'headers', 'x-token'],
          value: { secret: { address: 'agent.front', from: 'live', path: ['config', 'session_data_webhook', 'headers', 'x-token'] } },
        },
      ],
      dependsOn: [],
    });
    expect(readBack).toMatchObject({ operation: 'read_agent', method: 'GET', path: '/agents/a1', body: undefined, dependsOn: ['agent.front/1'] });
    expect(JSON.stringify(changes[0]!.requests)).not.toContain('live-secret-7788');
  });

  it('chains knowledge upload → set_agent_files, agent update → phone import and binding → campaign caller', () => {
    const file = {
      kind: 'knowledge' as const,
      address: 'knowledge.faq',
      source: here,
      localName: 'faq',
      path: '/project/docs/faq.md',
      name: 'FAQ',
      description: undefined,
      contentHash: 'sha256:c0ffee',
      size: 12,
      mimeType: 'text/markdown',
      sensitivePaths: [],
    };
    const agent = desiredAgent('front', { id: 'a 1', config: { first_message: 'Hi' }, knowledge: ['faq'] });
    const phone = desiredPhone('+15550000001', {
      agent: { id: 'a 1', localName: 'front' },
      import: { provider: 'twilio', country: 'US', region: 'us-west', api_key: 'key-secret-1', api_secret: 'secret-secret-2' },
    });
    const campaign = desiredCampaign('spring', { name: 'Spring', caller: '+15550000001' });
    const { changes } = diffStates({
      desired: desiredState({ agents: [agent], phones: [phone], campaigns: [campaign], knowledge: [file] }),
      live: { agents: new Map([['a 1', liveAgent('a 1', { first_message: 'Hello', knowledge_base: { files: [], messages: ['One moment.'] } })]]), phones: [] },
      state: emptyWorkspace(),
      salt: 'salt',
      baseUrl: 'local',
      files: [],
    });
    const c = byAddress(changes);
    const ids = (address: string) => c[address]!.requests.map((r) => [r.id, r.operation, r.path, r.dependsOn]);
    expect(ids('knowledge.faq')).toEqual([['knowledge.faq/1', 'upload_knowledge_file', '/knowledge/create_file', []]]);
    expect(c['knowledge.faq']!.requests[0]!.body).toEqual({ filename: 'faq.md', content_hash: 'sha256:c0ffee', name: 'FAQ', file_type: 'text/markdown', size: 12 });
    expect(ids('agent.front')).toEqual([
      ['agent.front/1', 'update_agent', '/agents/a%201', []],
      ['agent.front/2', 'read_agent', '/agents/a%201', ['agent.front/1']],
      ['agent.front/3', 'set_agent_files', '/knowledge/set_agent_files', ['agent.front/2', 'knowledge.faq/1']],
    ]);
    expect(c['agent.front']!.requests[2]).toMatchObject({
      body: { agent_id: 'a 1', files: ['(known after apply)'], messages: ['One moment.'] },
      fills: [{ at: ['files', 0], value: { resultOf: 'knowledge.faq/1' } }],
    });
    expect(c['agent.front']!.dependsOn).toEqual(['knowledge.faq']);
    expect(ids('phone.+15550000001')).toEqual([
      ['phone.+15550000001/1', 'import_phone', '/phones/import', []],
      ['phone.+15550000001/2', 'set_phone_agent', '/phones/%2B15550000001/set_agent', ['phone.+15550000001/1', 'agent.front/1']],
    ]);
    expect(c['phone.+15550000001']!.requests[0]).toMatchObject({
      body: { phone: '+15550000001', provider: 'twilio', country: 'US', region: 'us-west', api_key: '(sensitive)', api_secret: '(sensitive)' },
      fills: [
        { at: ['api_key'], value: { secret: { address: 'phone.+15550000001', from: 'manifest', path: ['import', 'api_key'] } } },
        { at: ['api_secret'], value: { secret: { address: 'phone.+15550000001', from: 'manifest', path: ['import', 'api_secret'] } } },
      ],
    });
    expect(ids('campaign.spring')).toEqual([
      ['campaign.spring/1', 'edit_campaign_info', '/campaigns/cmp_spring/info', []],
      ['campaign.spring/2', 'set_campaign_caller', '/campaigns/cmp_spring/set_caller', ['campaign.spring/1', 'phone.+15550000001/1', 'phone.+15550000001/2']],
    ]);
    const json = renderPlanJson({
      formatVersion: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      manifestHash: 'sha256:m',
      files: [],
      environment: undefined,
      baseUrl: 'local',
      targets: [],
      changes,
      summary: { create: 0, update: 0, unchanged: 0, drifted: 0 },
    });
    expect(json).not.toMatch(/key-secret-1|secret-secret-2/);
  });

  it('plans no request for a change with nothing to do', () => {
    const agent = desiredAgent('front', { id: 'a1', config: { first_message: 'Hi' } });
    const { changes } = diffStates({
      desired: desiredState({ agents: [agent] }),
      live: { agents: new Map([['a1', liveAgent('a1', { first_message: 'Hi' })]]), phones: [] },
      state: emptyWorkspace(),
      salt: 'salt',
      baseUrl: 'local',
      files: [],
    });
    expect(changes[0]).toMatchObject({ action: 'no-op', requests: [], dependsOn: [] });
  });
});
