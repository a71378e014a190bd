import path from 'node:path';
import { FileStateBackend } from '../../src/state/file-backend.js';
import { describe, expect, it } from 'vitest';
import type { ApplyClient } from '../../src/apply/client.js';
import { executePlan, type ProgressEvent } from '../../src/apply/execute-plan.js';
import { diffStates, summarize } from '../../src/plan/diff.js';
import type { LiveState } from '../../src/plan/read-live.js';
import type { Plan } from '../../src/plan/types.js';
import type { Agent } from '../../src/schema/types.gen.js';
import { PERSIST_INTERVAL_MS, readStateFile, StateStore } from '../../src/state/state-file.js';
import { ManualClock, RefusingWrites } from '../helpers/state.js';
import { emptyWorkspace, type WorkspaceState } from '../../src/state/types.js';
import type { DesiredState } from '../../src/manifest/types.js';
import { useTempDirs } from '../helpers/cli.js';
import { desiredAgent, desiredCampaign, desiredKnowledge, desiredPhone, desiredState } from '../helpers/desired.js';

const tempDir = useTempDirs();

/** A client that records each call; `fail` names operations that throw. */
function fakeClient(live: Agent, fail: string[] = []) {
  const calls: Array<[string, ...unknown[]]> = [];
  const call = (name: string, ...args: unknown[]) => {
    calls.push([name, ...args]);
    if (fail.includes(name)) return Promise.reject(new Error(`${name} failed`));
    return Promise.resolve(undefined);
  };
  const client: ApplyClient = {
    getAgent: async () => (calls.push(['getAgent']), live),
    listPhones: async () => [],
    updateAgent: (id, body) => call('updateAgent', id, body),
    setAgentFiles: (body) => call('setAgentFiles', body),
    importPhone: (body) => call('importPhone', body),
    setPhoneAgent: (phone, agentId) => call('setPhoneAgent', phone, agentId),
    editCampaignInfo: (id, body) => call('editCampaignInfo', id, body),
    setCampaignCaller: (id, caller) => call('setCampaignCaller', id, caller),
    setCredential: (body) => call('setCredential', body),
    uploadKnowledgeFile: async () => (calls.push(['uploadKnowledgeFile']), 'file_new'),
  };
  return { client, calls };
}

async function setup() {
  const agent = desiredAgent('front', {
    id: 'a1',
    config: { session_data_webhook: { url: 'https://new.example.com/hook' }, tools: [{ name: 't', header: { authorization: 'manifest-secret-1' } }] },
  });
  const phone = desiredPhone('+15550000001', { agent: { id: 'a1', localName: 'front' } });
  const live: Agent = {
    id: 'a1',
    name: 'Front desk',
    created_at: 1,
    config: { session_data_webhook: { url: 'https://old.example.com/hook', headers: { 'x-token': 'live-secret-2' } } },
  };
  const desired = desiredState({ agents: [agent], phones: [phone] });
  const liveState: LiveState = { agents: new Map([['a1', live]]), phones: [{ id: '+15550000001', agent_id: 'other' } as LiveState['phones'][number]] };
  const { changes } = diffStates({ desired, live: liveState, state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] });
  const plan: Plan = {
    formatVersion: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
    manifestHash: desired.manifestHash,
    files: [],
    environment: undefined,
    baseUrl: 'local',
    targets: [],
    changes,
    summary: summarize(changes),
  };
  const store = await StateStore.open(new FileStateBackend(path.join(await tempDir(), 'state.json')), 'default@local', 'fingerprint-key');
  return { desired, live, liveState, plan, store };
}

/**
 * A request the test lets through by hand: `called` resolves when the client is asked to send it,
 * and it is answered when `answer()` is called (the service accepted it while the test acted).
 */
function heldRequest() {
  let called: () => void = () => undefined;
  let answer: () => void = () => undefined;
  const wasCalled = new Promise<void>((resolve) => (called = resolve));
  const answered = new Promise<void>((resolve) => (answer = resolve));
  return { wasCalled, answer, send: async () => (called(), await answered, undefined) };
}

/** `count` agents whose live prompt is "Same", and a plan of them with `prompt` desired. */
async function manyAgents(count: number, prompt: string) {
  const agents = Array.from({ length: count }, (_, i) => desiredAgent(`agent-${String(i).padStart(5, '0')}`, { id: `a${i}`, config: { prompt } }));
  const live: Agent = { id: 'a0', name: 'Desk', created_at: 1, config: { prompt: 'Same' } };
  const desired = desiredState({ agents });
  const liveState: LiveState = { agents: new Map(agents.map((a) => [a.id, { ...live, id: a.id }])), phones: [] };
  const { changes } = diffStates({ desired, live: liveState, state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] });
  const plan: Plan = { formatVersion: 1, createdAt: '2026-01-01T00:00:00.000Z', manifestHash: desired.manifestHash, files: [], environment: undefined, baseUrl: 'local', targets: [], changes, summary: summarize(changes) };
  const store = await StateStore.open(new FileStateBackend(path.join(await tempDir(), 'state.json')), 'default@local', 'fingerprint-key');
  return { desired, plan, live, liveState, store };
}

describe('executePlan', () => {
  it('sends the planned body with secrets filled in from the manifests and from the service', async () => {
    const { desired, live, liveState, plan, store } = await setup();
    const { client, calls } = fakeClient(live);
    const result = await executePlan({ plan, desired, live: liveState, client, store, parallelism: 2 });
    expect(result).toMatchObject({ applied: ['agent.front', 'phone.+15550000001'], failed: [], skipped: [], stopped: [], interrupted: false });
    expect(calls.find((c) => c[0] === 'updateAgent')).toEqual([
      'updateAgent',
      'a1',
      {
        name: 'Front desk',
        config: {
          session_data_webhook: { url: 'https://new.example.com/hook', headers: { 'x-token': 'live-secret-2' } },
          tools: [{ name: 't', header: { authorization: 'manifest-secret-1' } }],
        },
      },
    ]);
    // The plan itself still holds placeholders only.
    expect(JSON.stringify(plan.changes.flatMap((c) => c.requests))).not.toMatch(/secret-1|secret-2/);
    expect(store.workspace.phones['phone.+15550000001']).toEqual({ agentId: 'a1', imported: false });
  });

  it('skips what depends on a failed request and goes on with the rest', async () => {
    const { desired, live, liveState, plan, store } = await setup();
    const { client, calls } = fakeClient(live, ['updateAgent']);
    const result = await executePlan({ plan, desired, live: liveState, client, store, parallelism: 2 });
    expect(result.failed.map((f) => f.address)).toEqual(['agent.front']);
    expect(result.skipped).toEqual([{ address: 'phone.+15550000001', because: 'agent.front did not apply' }]);
    expect(calls.map((c) => c[0])).toEqual(['updateAgent']);
  });

  it('lists a change whose later write failed as partly applied, naming what reached the service and the error', async () => {
    // The number is not on the account: it is imported, then bound.
    const phone = desiredPhone('+15550000009', {
      agent: { id: 'a1', localName: 'front' },
      import: { provider: 'twilio', country: 'US', region: 'CA', api_key: 'import-key', api_secret: 'import-secret' },
    });
    const desired = desiredState({ phones: [phone] });
    const liveState: LiveState = { agents: new Map(), phones: [] };
    const { changes } = diffStates({ desired, live: liveState, state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] });
    expect(changes[0]?.requests.map((r) => r.operation)).toEqual(['import_phone', 'set_phone_agent']);
    const plan: Plan = { formatVersion: 1, createdAt: '2026-01-01T00:00:00.000Z', manifestHash: desired.manifestHash, files: [], environment: undefined, baseUrl: 'local', targets: [], changes, summary: summarize(changes) };
    const store = await StateStore.open(new FileStateBackend(path.join(await tempDir(), 'state.json')), 'default@local', 'fingerprint-key');
    const { client, calls } = fakeClient({ id: 'x', name: 'x', created_at: 1, config: {} }, ['setPhoneAgent']);
    const result = await executePlan({ plan, desired, live: liveState, client, store, parallelism: 2 });
    expect(result).toMatchObject({ applied: [], failed: [], skipped: [], stopped: [] });
    expect(result.partlyApplied).toEqual([{ address: 'phone.+15550000009', reached: ['import_phone'], notReached: ['set_phone_agent'], error: new Error('setPhoneAgent failed') }]);
    expect(calls.map((c) => c[0])).toEqual(['importPhone', 'setPhoneAgent']);
    // The import is recorded, so the next plan sends only the binding.
    expect(store.workspace.phones['phone.+15550000009']).toMatchObject({ imported: true });
  });

  it('lists a change whose later write was skipped as partly applied, saying why', async () => {
    const phone = desiredPhone('+15550000009', { agent: { id: 'a1', localName: 'front' } });
    const campaign = desiredCampaign('spring', { name: 'Spring recall', caller: '+15550000009' });
    const desired = desiredState({ phones: [phone], campaigns: [campaign] });
    const liveState: LiveState = { agents: new Map(), phones: [{ id: '+15550000009', agent_id: 'other' } as LiveState['phones'][number]] };
    const { changes } = diffStates({ desired, live: liveState, state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] });
    const plan: Plan = { formatVersion: 1, createdAt: '2026-01-01T00:00:00.000Z', manifestHash: desired.manifestHash, files: [], environment: undefined, baseUrl: 'local', targets: [], changes, summary: summarize(changes) };
    const store = await StateStore.open(new FileStateBackend(path.join(await tempDir(), 'state.json')), 'default@local', 'fingerprint-key');
    const { client, calls } = fakeClient({ id: 'x', name: 'x', created_at: 1, config: {} }, ['setPhoneAgent']);
    const events: string[] = [];
    const result = await executePlan({ plan, desired, live: liveState, client, store, parallelism: 2, onProgress: (event) => void events.push(event.type) });
    expect(result.failed.map((f) => f.address)).toEqual(['phone.+15550000009']);
    expect(result.skipped).toEqual([]);
    expect(result.partlyApplied).toEqual([{ address: 'campaign.spring', reached: ['edit_campaign_info'], notReached: ['set_campaign_caller'], because: 'phone.+15550000009 did not apply' }]);
    expect(events).toContain('partly');
    expect(calls.map((c) => c[0]).sort()).toEqual(['editCampaignInfo', 'setPhoneAgent']);
  });

  it('counts an update whose read-back failed as applied, with a warning, and sends what comes after it', async () => {
    const { desired, live, liveState, plan, store } = await setup();
    const { client, calls } = fakeClient(live);
    client.getAgent = () => (calls.push(['getAgent']), Promise.reject(Object.assign(new Error('the service answered 429'), { code: 'api_rate_limited' })));
    const result = await executePlan({ plan, desired, live: liveState, client, store, parallelism: 2 });
    // The phone's binding waits for the agent's read-back, not for its success: a read changes nothing.
    expect(result).toMatchObject({ applied: ['agent.front', 'phone.+15550000001'], partlyApplied: [], failed: [], skipped: [] });
    expect(result.warnings).toContain('agent.front: applied, but not read back (api_rate_limited: the service answered 429); `voxform plan` shows what the service kept.');
    expect(calls.map((c) => c[0])).toEqual(['updateAgent', 'getAgent', 'setPhoneAgent']);
  });

  it('starts nothing once the signal has fired, and says so', async () => {
    const { desired, live, liveState, plan, store } = await setup();
    const { client, calls } = fakeClient(live);
    const stop = new AbortController();
    stop.abort();
    const result = await executePlan({ plan, desired, live: liveState, client, store, parallelism: 2, signal: stop.signal });
    expect(result).toMatchObject({ applied: [], interrupted: true, stopped: ['agent.front', 'phone.+15550000001'] });
    expect(calls).toEqual([]);
  });

  it('sets a plan of thousands going, sending in plan order', async () => {
    const { desired, plan, live, liveState, store } = await manyAgents(1_000, 'New');
    const { client, calls } = fakeClient(live);
    const result = await executePlan({ plan, desired, live: liveState, client, store, parallelism: 1 });
    expect(result.applied).toHaveLength(1_000);
    expect(calls.filter((c) => c[0] === 'updateAgent').map((c) => c[1])).toEqual(plan.changes.map((c) => c.id));
  });

  it('records nothing once a stop has ended the run', async () => {
    // Unchanged agents: each records its state as it is set going, without a request.
    const { desired, plan, live, liveState, store } = await manyAgents(2_000, 'Same');
    const stop = new AbortController();
    stop.abort();
    const result = await executePlan({ plan, desired, live: liveState, client: fakeClient(live).client, store, parallelism: 2, signal: stop.signal, stopGraceMs: 0 });
    const recordedAtReport = Object.keys(store.workspace.agents).length;
    // More turns of the event loop than setting 2,000 changes going takes.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(Object.keys(store.workspace.agents)).toHaveLength(recordedAtReport);
    expect(result.interrupted).toBe(true);
    expect(result.applied.length + result.stopped.length).toBe(2_000);
    // The writes of what was recorded before the stop, stored before the folder is removed (apply
    // itself ends with such a write: recordApplyEnd).
    store.flush();
    await store.save();
  });

  it('does not make its last state writes wait out the interval once every request is answered', async () => {
    const { desired, live, liveState, plan } = await setup();
    // Time never moves: a write left waiting for the interval would never be made.
    const store = await StateStore.open(new FileStateBackend(path.join(await tempDir(), 'state.json')), 'default@local', 'fingerprint-key', new ManualClock());
    const { client } = fakeClient(live);
    const result = await executePlan({ plan, desired, live: liveState, client, store, parallelism: 1 });
    expect(result.applied).toEqual(['agent.front', 'phone.+15550000001']);
    expect((await readStateFile(store.backend.display)).workspaces['default@local']?.phones['phone.+15550000001']).toEqual({ agentId: 'a1', imported: false });
  });

  it('does not make the state writes of a plan without requests wait out the interval', async () => {
    const { desired, plan, live, liveState } = await manyAgents(3, 'Same');
    // Time never moves: the unchanged agents' records after the first would otherwise never be written.
    const store = await StateStore.open(new FileStateBackend(path.join(await tempDir(), 'state.json')), 'default@local', 'fingerprint-key', new ManualClock());
    await executePlan({ plan, desired, live: liveState, client: fakeClient(live).client, store, parallelism: 2 });
    expect(Object.keys((await readStateFile(store.backend.display)).workspaces['default@local']?.agents ?? {})).toHaveLength(3);
  });

  it('refuses a request whose path is not the one its operation sends to, sending nothing', async () => {
    const { desired, live, liveState, plan, store } = await setup();
    plan.changes[0]!.requests[0]!.path = '/agents/someone-else';
    const { client, calls } = fakeClient(live);
    const result = await executePlan({ plan, desired, live: liveState, client, store, parallelism: 2 });
    expect(result.failed[0]).toMatchObject({ address: 'agent.front', error: { code: 'plan_unreadable' } });
    expect(calls).toEqual([]);
  });
});

describe('executePlan stopped while a write is on the wire', () => {
  it('counts a change whose write the service accepted as applied, reads it back, and sends nothing new', async () => {
    const { desired, live, liveState, plan, store } = await setup();
    const { client, calls } = fakeClient(live);
    const update = heldRequest();
    client.updateAgent = (id, body) => (calls.push(['updateAgent', id, body]), update.send());
    const stop = new AbortController();
    const running = executePlan({ plan, desired, live: liveState, client, store, parallelism: 2, signal: stop.signal });
    await update.wasCalled;
    stop.abort();
    update.answer();
    const result = await running;
    expect(result).toMatchObject({ applied: ['agent.front'], partlyApplied: [], stopped: ['phone.+15550000001'], interrupted: true });
    // The read-back after the update changes nothing and tells what the service kept; the phone's
    // binding, a write, is not sent after the stop.
    expect(calls.map((c) => c[0])).toEqual(['updateAgent', 'getAgent']);
    expect(store.workspace.agents['agent.front']?.id).toBe('a1');
  });

  it('says it waits only for the writes on the wire: one waiting to be retried is withdrawn by the stop', async () => {
    const { desired, live, liveState, plan, store } = await setup();
    const { client } = fakeClient(live);
    let waiting: () => void = () => undefined;
    const retryWaitStarted = new Promise<void>((resolve) => (waiting = resolve));
    // As the client's retry wait does: it ends at once on the stop, the request not sent again.
    client.updateAgent = () => {
      waiting();
      return new Promise((_, reject) => stop.signal.addEventListener('abort', () => reject(Object.assign(new Error('not sent again'), { code: 'api_not_sent' }))));
    };
    const stop = new AbortController();
    const events: Array<{ type: string; inFlight?: number }> = [];
    const running = executePlan({ plan, desired, live: liveState, client, store, parallelism: 2, signal: stop.signal, onProgress: (event) => events.push(event) });
    await retryWaitStarted;
    stop.abort();
    const result = await running;
    // Nothing was on the wire: no "waiting for 1 in flight"; the run ends at once, and says it stops as it ends.
    expect(events.filter((event) => event.type === 'stopping')).toEqual([{ type: 'stopping', inFlight: 0, because: 'signal' }]);
    expect(result.stopped).toContain('agent.front');
  });

  it('lists a change some of whose writes reached the service as partly applied, naming them', async () => {
    const campaign = desiredCampaign('spring', { name: 'Spring recall', caller: '+15550000009' });
    const desired = desiredState({ campaigns: [campaign] });
    const liveState: LiveState = { agents: new Map(), phones: [] };
    const { changes } = diffStates({ desired, live: liveState, state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] });
    const plan: Plan = { formatVersion: 1, createdAt: '2026-01-01T00:00:00.000Z', manifestHash: desired.manifestHash, files: [], environment: undefined, baseUrl: 'local', targets: [], changes, summary: summarize(changes) };
    expect(plan.changes[0]?.requests.map((r) => r.operation)).toEqual(['edit_campaign_info', 'set_campaign_caller']);
    const store = await StateStore.open(new FileStateBackend(path.join(await tempDir(), 'state.json')), 'default@local', 'fingerprint-key');
    const { client, calls } = fakeClient({ id: 'x', name: 'x', created_at: 1, config: {} });
    const info = heldRequest();
    client.editCampaignInfo = (id, body) => (calls.push(['editCampaignInfo', id, body]), info.send());
    const stop = new AbortController();
    const running = executePlan({ plan, desired, live: liveState, client, store, parallelism: 2, signal: stop.signal });
    await info.wasCalled;
    stop.abort();
    info.answer();
    const result = await running;
    expect(result).toMatchObject({
      applied: [],
      partlyApplied: [{ address: 'campaign.spring', reached: ['edit_campaign_info'], notReached: ['set_campaign_caller'] }],
      stopped: [],
    });
    expect(calls.map((c) => c[0])).toEqual(['editCampaignInfo']);
    // What reached the service is recorded, so the next plan sends only the rest.
    expect(store.workspace.campaigns['campaign.spring']).toEqual({ id: 'cmp_spring', applied: { name: 'Spring recall' } });
  });

  it('times a change by its own requests, not by the wait for its state write that the stop ends', async () => {
    const { desired, plan, live, liveState } = await manyAgents(3, 'New');
    // Time never moves for the state: the second change's record waits for the next paced write.
    const store = await StateStore.open(new FileStateBackend(path.join(await tempDir(), 'state.json')), 'default@local', 'fingerprint-key', new ManualClock());
    let now = 0;
    const { client } = fakeClient(live);
    let reads = 0;
    let bothRead: () => void = () => undefined;
    const readBacks = new Promise<void>((resolve) => (bothRead = resolve));
    // Each read-back takes 7 ms of the injected clock.
    client.getAgent = async () => {
      now += 7;
      if (++reads === 2) bothRead();
      return live;
    };
    const held = heldRequest();
    client.updateAgent = (id) => (id === 'a2' ? held.send() : Promise.resolve());
    const stop = new AbortController();
    const done: Array<[string, number]> = [];
    const running = executePlan({
      plan, desired, live: liveState, client, store, parallelism: 3, signal: stop.signal, now: () => now,
      onProgress: (event) => void (event.type === 'done' && done.push([event.change.address, event.ms])),
    });
    await held.wasCalled;
    await readBacks;
    await new Promise((resolve) => setImmediate(resolve));
    // Ten seconds later, Ctrl-C: the waiting record is written at once, and its change reported.
    now += 10_000;
    stop.abort();
    held.answer();
    await running;
    // Both read-backs were answered 14 ms of the clock after the changes started, ten seconds before they were reported.
    expect(done.filter(([address]) => address !== 'agent.agent-00002')).toEqual([
      ['agent.agent-00000', 14],
      ['agent.agent-00001', 14],
    ]);
  });

  it('counts an accepted write as applied also when the wait for the read-back runs out', async () => {
    const { desired, live, liveState, plan, store } = await setup();
    const { client, calls } = fakeClient(live);
    const update = heldRequest();
    client.updateAgent = (id, body) => (calls.push(['updateAgent', id, body]), update.send());
    // The read-back never answers: the stop's wait ends first.
    client.getAgent = () => (calls.push(['getAgent']), new Promise(() => undefined));
    const stop = new AbortController();
    const running = executePlan({ plan, desired, live: liveState, client, store, parallelism: 2, signal: stop.signal, stopGraceMs: 0 });
    await update.wasCalled;
    stop.abort();
    update.answer();
    const result = await running;
    // As the apply does before it reports: the state's last write stored, not racing the temp folder's removal.
    await store.save();
    expect(result.applied).toEqual(['agent.front']);
    expect(result.stopped).toEqual(['phone.+15550000001']);
    expect(result.warnings).toContain('agent.front: applied, but not read back after the stop; `voxform plan` shows what the service kept.');
  });

  it('reports a write still unanswered when the stop stops waiting as outcome unknown, never as not applied', async () => {
    const { desired, live, liveState, plan, store } = await setup();
    const { client, calls } = fakeClient(live);
    const update = heldRequest();
    client.updateAgent = (id, body) => (calls.push(['updateAgent', id, body]), update.send());
    const stop = new AbortController();
    // No wait at all: the update is on the wire when the run reports, and the service answers it only after.
    const running = executePlan({ plan, desired, live: liveState, client, store, parallelism: 2, signal: stop.signal, stopGraceMs: 0 });
    await update.wasCalled;
    stop.abort();
    const result = await running;
    update.answer();
    expect(result.stopped).toEqual(['phone.+15550000001']);
    expect(result.failed.map(({ address }) => address)).toEqual(['agent.front']);
    expect(result.failed[0]?.error).toMatchObject({
      code: 'api_outcome_unknown',
      message: 'PUT /agents/a1 was sent, but the stop gave up waiting for its answer: the service may have acted on it.',
      hint: expect.stringMatching(/^Check before running it again, or it may be done twice/),
    });
  });

  it('says to look in the dashboard for a knowledge file whose upload the stop gave up waiting for: the next plan cannot show it', async () => {
    const desired = desiredState({ knowledge: [desiredKnowledge('faq')] });
    const liveState: LiveState = { agents: new Map(), phones: [] };
    const plan = planOf(desired, liveState, emptyWorkspace());
    const store = await StateStore.open(new FileStateBackend(path.join(await tempDir(), 'state.json')), 'default@local', 'fingerprint-key');
    const { client } = fakeClient({ id: 'a1', name: 'Front desk', created_at: 1, config: {} });
    const upload = heldRequest();
    client.uploadKnowledgeFile = async () => (await upload.send(), 'file_faq');
    const stop = new AbortController();
    const running = executePlan({ plan, desired, live: liveState, client, store, parallelism: 2, signal: stop.signal, stopGraceMs: 0 });
    await upload.wasCalled;
    stop.abort();
    const result = await running;
    upload.answer();
    expect(result.failed.map(({ address }) => address)).toEqual(['knowledge.faq']);
    expect(result.failed[0]?.error).toMatchObject({
      code: 'api_outcome_unknown',
      hint: 'Check before running it again, or it may be done twice: the service cannot list its knowledge files, so look for the file in its dashboard: another upload makes a second one.',
    });
  });
});

/**
 * A client that, as `ApiClient` does, has one request on the wire at a time: the others wait in its
 * queue until the test lets the next one go (`sendNext`), and a stop withdraws them unsent.
 */
function queuingClient(live: Agent) {
  const queue: Array<{ go: () => void }> = [];
  const answers: Array<() => void> = [];
  const make = (signal: AbortSignal | undefined, onSent: ((path: string) => void) | undefined): ApplyClient => ({
    ...fakeClient(live).client,
    withSignal: (withdrawing) => make(withdrawing, onSent),
    withOnSent: (told) => make(signal, told),
    updateAgent: (id) =>
      new Promise((resolve, reject) => {
        const entry = { go: () => (onSent?.(`/agents/${encodeURIComponent(id)}`), answers.push(() => resolve(undefined))) };
        queue.push(entry);
        signal?.addEventListener('abort', () => {
          if (!queue.includes(entry)) return;
          queue.splice(queue.indexOf(entry), 1);
          reject(Object.assign(new Error('withdrawn'), { code: 'api_not_sent' }));
        });
      }),
  });
  const sendNext = () => queue.shift()?.go();
  return { client: make(undefined, undefined), queue, sendNext, answers };
}

describe('executePlan with a client that queues requests', () => {
  it('announces a change once its first request leaves the queue: one withdrawn by the stop was never said to start', async () => {
    const { desired, plan, live, liveState, store } = await manyAgents(2, 'New');
    const { client, queue, sendNext, answers } = queuingClient(live);
    const started: string[] = [];
    const stop = new AbortController();
    // Two in flight for apply, one for the client: both updates are handed to it, one to send and the next queued behind it.
    const running = executePlan({ plan, desired, live: liveState, client, store, parallelism: 2, signal: stop.signal, onProgress: (event) => void (event.type === 'start' && started.push(event.change.address)) });
    while (queue.length < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([]);
    sendNext();
    expect(started).toEqual(['agent.agent-00000']);
    stop.abort();
    answers[0]?.();
    const result = await running;
    expect(result).toMatchObject({ applied: ['agent.agent-00000'], stopped: ['agent.agent-00001'], interrupted: true });
    expect(started).toEqual(['agent.agent-00000']);
  });
});

/** A plan of `campaigns` against a state whose entry of each says its name is `Old`, and the store of that state. */
async function campaignsOnceApplied(names: string[]) {
  const campaigns = names.map((name) => desiredCampaign(name, { name: 'New' }));
  const desired = desiredState({ campaigns });
  const liveState: LiveState = { agents: new Map(), phones: [] };
  const file = path.join(await tempDir(), 'state.json');
  const store = await StateStore.open(new FileStateBackend(file), 'default@local', 'fingerprint-key');
  for (const campaign of campaigns) store.workspace.campaigns[campaign.address] = { id: campaign.id, applied: { name: 'Old' } };
  const plan = planOf(desired, liveState, store.workspace);
  return { desired, liveState, file, store, plan };
}

function planOf(desired: DesiredState, live: LiveState, state: WorkspaceState): Plan {
  const { changes } = diffStates({ desired, live, state, salt: 'fingerprint-key', baseUrl: 'local', files: [] });
  return { formatVersion: 1, createdAt: '2026-01-01T00:00:00.000Z', manifestHash: desired.manifestHash, files: [], environment: undefined, baseUrl: 'local', targets: [], changes, summary: summarize(changes) };
}

describe('executePlan and what the service cannot show back', () => {
  it("stores a campaign's entry marked before its write is sent, so a write landing unrecorded leaves it unknown; recorded, the mark goes", async () => {
    const { desired, liveState, file, store, plan } = await campaignsOnceApplied(['spring']);
    const { client } = fakeClient({ id: 'x', name: 'x', created_at: 1, config: {} });
    let storedWhenSent: WorkspaceState | undefined;
    client.editCampaignInfo = async () => void (storedWhenSent = (await readStateFile(file)).workspaces['default@local']);
    const result = await executePlan({ plan, desired, live: liveState, client, store, parallelism: 1 });
    expect(result.applied).toEqual(['campaign.spring']);
    // Killed or without its lock from here on, the run would leave this: the next plan sends the campaign again.
    expect(storedWhenSent?.campaigns['campaign.spring']).toEqual({ id: 'cmp_spring', applied: { name: 'Old' }, writeUnrecorded: true });
    expect(planOf(desired, liveState, storedWhenSent!).changes[0]).toMatchObject({ reason: 'live_unknown', before: null });
    expect(store.workspace.campaigns['campaign.spring']).toEqual({ id: 'cmp_spring', applied: { name: 'New' } });
  });

  it('keeps the mark of a write sent and not accepted, and takes back that of one never sent', async () => {
    const { desired, liveState, store, plan } = await campaignsOnceApplied(['early', 'late']);
    const { client } = fakeClient({ id: 'x', name: 'x', created_at: 1, config: {} });
    const early = heldRequest();
    client.editCampaignInfo = async () => {
      await early.send();
      throw new Error('the connection dropped after the request was sent');
    };
    const stop = new AbortController();
    const running = executePlan({ plan, desired, live: liveState, client, store, parallelism: 1, signal: stop.signal });
    await early.wasCalled;
    stop.abort();
    early.answer();
    expect(await running).toMatchObject({ applied: [], failed: [{ address: 'campaign.early' }], stopped: ['campaign.late'] });
    expect(store.workspace.campaigns['campaign.early']).toMatchObject({ writeUnrecorded: true });
    expect(store.workspace.campaigns['campaign.late']).toEqual({ id: 'cmp_late', applied: { name: 'Old' } });
  });

  it('keeps the mark an earlier run left until every write of the campaign is recorded: one write landing is not the whole campaign known', async () => {
    const campaign = desiredCampaign('recall', { name: 'New', caller: '+15550000002' });
    const desired = desiredState({ campaigns: [campaign] });
    const liveState: LiveState = { agents: new Map(), phones: [] };
    const store = await StateStore.open(new FileStateBackend(path.join(await tempDir(), 'state.json')), 'default@local', 'fingerprint-key');
    // A run killed while its caller write was on the wire: which caller the service holds is unknown.
    store.workspace.campaigns['campaign.recall'] = { id: 'cmp_recall', applied: { name: 'Old', caller: '+15550000001' }, writeUnrecorded: true };
    const plan = planOf(desired, liveState, store.workspace);
    expect(plan.changes[0]?.requests.map((request) => request.operation)).toEqual(['edit_campaign_info', 'set_campaign_caller']);

    const { client } = fakeClient({ id: 'x', name: 'x', created_at: 1, config: {} }, ['setCampaignCaller']);
    expect(await executePlan({ plan, desired, live: liveState, client, store, parallelism: 1 })).toMatchObject({ applied: [], partlyApplied: [{ address: 'campaign.recall' }] });
    expect(store.workspace.campaigns['campaign.recall']).toMatchObject({ applied: { name: 'New' }, writeUnrecorded: true });
    expect(planOf(desired, liveState, store.workspace).changes[0]).toMatchObject({ reason: 'live_unknown', before: null });

    // Nothing sent at all: the earlier run's mark stays, whatever this run did not do.
    const stop = new AbortController();
    stop.abort();
    await executePlan({ plan: planOf(desired, liveState, store.workspace), desired, live: liveState, client, store, parallelism: 1, signal: stop.signal });
    expect(store.workspace.campaigns['campaign.recall']).toMatchObject({ writeUnrecorded: true });

    // Written whole, the campaign is known again.
    const { client: answering } = fakeClient({ id: 'x', name: 'x', created_at: 1, config: {} });
    expect(await executePlan({ plan: planOf(desired, liveState, store.workspace), desired, live: liveState, client: answering, store, parallelism: 1 })).toMatchObject({ applied: ['campaign.recall'] });
    expect(store.workspace.campaigns['campaign.recall']).toEqual({ id: 'cmp_recall', applied: { name: 'New', caller: '+15550000002' } });
  });
});

describe('executePlan and the answers only the state keeps', () => {
  it("stores each knowledge file's id before the upload counts as done, whatever the interval: a run killed after it loses none", async () => {
    const files = [desiredKnowledge('faq'), desiredKnowledge('prices')];
    const agent = desiredAgent('front', { id: 'a1', knowledge: ['faq', 'prices'] });
    const desired = desiredState({ agents: [agent], knowledge: files });
    const live: Agent = { id: 'a1', name: 'Front desk', created_at: 1, config: {} };
    const liveState: LiveState = { agents: new Map([['a1', live]]), phones: [] };
    const plan = planOf(desired, liveState, emptyWorkspace());
    const file = path.join(await tempDir(), 'state.json');
    // Time never moves: a paced write would wait for the test to move it past the interval.
    const clock = new ManualClock();
    const store = await StateStore.open(new FileStateBackend(file), 'default@local', 'fingerprint-key', clock);
    const { client } = fakeClient(live);
    client.uploadKnowledgeFile = async (_path, options) => `file_${options.name}`;
    let storedWhenAttached: WorkspaceState | undefined;
    client.setAgentFiles = async () => void (storedWhenAttached = (await readStateFile(file)).workspaces['default@local']);
    const result = await executePlan({ plan, desired, live: liveState, client, store, parallelism: 2 });
    expect(result.applied.sort()).toEqual(['agent.front', 'knowledge.faq', 'knowledge.prices']);
    // The second upload's answer came within the interval of the first's write: stored all the same.
    expect(clock.now()).toBeLessThan(PERSIST_INTERVAL_MS);
    expect(storedWhenAttached?.knowledge['knowledge.faq']?.fileId).toBe('file_faq.md');
    expect(storedWhenAttached?.knowledge['knowledge.prices']?.fileId).toBe('file_prices.md');
  });
});

describe('executePlan when a state write fails', () => {
  it('leaves no rejection unhandled while the read-back is on the wire, and keeps the change applied but not recorded', async () => {
    const { desired, live, liveState, plan } = await setup();
    const backend = new RefusingWrites(path.join(await tempDir(), 'state.json'));
    const store = await StateStore.open(backend, 'default@local', 'fingerprint-key');
    const { client, calls } = fakeClient(live);
    // The read-back answers only after the refused write has had turns of the event loop to be
    // noticed as unhandled.
    client.getAgent = async () => {
      calls.push(['getAgent']);
      await backend.refused;
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      return live;
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const result = await executePlan({ plan, desired, live: liveState, client, store, parallelism: 2 });
      expect(unhandled).toEqual([]);
      // The phone's binding went out with the update's answer, before the state write failed.
      expect(result).toMatchObject({ failed: [], stopped: [], interrupted: false });
      expect(result.applied.sort()).toEqual(['agent.front', 'phone.+15550000001']);
      expect(result.unrecorded.sort()).toEqual(['agent.front', 'phone.+15550000001']);
      expect(result.stateError).toMatchObject({ code: 'state_conflict' });
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('sends no new write once a state write has failed: nothing more could be recorded', async () => {
    const { desired, plan, live, liveState } = await manyAgents(3, 'New');
    const backend = new RefusingWrites(path.join(await tempDir(), 'state.json'));
    const store = await StateStore.open(backend, 'default@local', 'fingerprint-key');
    const { client, calls } = fakeClient(live);
    // The second update is answered once the first one's state write has been refused (and the
    // refusal has reached the run: a turn of the event loop later).
    client.updateAgent = async (id, body) => {
      calls.push(['updateAgent', id, body]);
      if (id === 'a1') await backend.refused.then(() => new Promise((resolve) => setImmediate(resolve)));
    };
    const result = await executePlan({ plan, desired, live: liveState, client, store, parallelism: 1 });
    expect(calls.filter((c) => c[0] === 'updateAgent').map((c) => c[1])).toEqual(['a0', 'a1']);
    expect(result).toMatchObject({ applied: ['agent.agent-00000', 'agent.agent-00001'], stopped: ['agent.agent-00002'], failed: [], interrupted: false });
    expect(result.unrecorded).toEqual(['agent.agent-00000', 'agent.agent-00001']);
    expect(result.stateError).toMatchObject({ code: 'state_conflict' });
  });

  it('settles an unchanged resource whose state write fails, and says why', async () => {
    const { desired, plan, live, liveState } = await manyAgents(3, 'Same');
    const store = await StateStore.open(new RefusingWrites(path.join(await tempDir(), 'state.json')), 'default@local', 'fingerprint-key');
    const result = await executePlan({ plan, desired, live: liveState, client: fakeClient(live).client, store, parallelism: 2 });
    expect(result).toMatchObject({ applied: [], unrecorded: [], failed: [], stopped: [] });
    expect(result.stateError).toMatchObject({ code: 'state_conflict' });
  });

  it('says nothing of stopping when the plan sends nothing: there is no write to hold back', async () => {
    const { desired, plan, live, liveState } = await manyAgents(3, 'Same');
    // Refused as a file system refuses, some turns of the event loop after the write began.
    class SlowRefusal extends RefusingWrites {
      override async writeWorkspace(...args: Parameters<RefusingWrites['writeWorkspace']>) {
        for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
        return super.writeWorkspace(...args);
      }
    }
    const store = await StateStore.open(new SlowRefusal(path.join(await tempDir(), 'state.json')), 'default@local', 'fingerprint-key');
    const events: ProgressEvent[] = [];
    const result = await executePlan({ plan, desired, live: liveState, client: fakeClient(live).client, store, parallelism: 2, onProgress: (event) => events.push(event) });
    expect(result.stateError).toMatchObject({ code: 'state_conflict' });
    expect(events.filter((event) => event.type === 'stopping')).toEqual([]);
  });
});
