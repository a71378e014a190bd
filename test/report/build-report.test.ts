import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { historyEntries } from '../../src/history/render.js';
import { buildCallReport } from '../../src/report/build-report.js';
import { deployedUntil, sinceDeployReport, sinceDeployWindow } from '../../src/report/since-deploy.js';
import { diffLinkFromEnv } from '../../src/report/diff-links.js';
import { functionCallFailed, isTransferCall } from '../../src/report/outcomes.js';
import { VersionResolver, deployedVersions, extraPromptCut } from '../../src/report/versions.js';
import { renderReportHtml } from '../../src/report/render-html.js';
import { renderReportMarkdown } from '../../src/report/render-markdown.js';
import { repoRoot } from '../helpers/cli.js';
import { agentConfig, callRecord, historyRecord, newestFirst, PLANTED_HEADER } from './helpers.js';

const addFormats = addFormatsModule.default;

const AGENT = '-OKagentFrontDesk001';
const T0 = Date.parse('2026-03-01T00:00:00Z') / 1000;
const v1 = agentConfig('You are the receptionist.');
const v2 = agentConfig('You are the receptionist. Offer the earliest slot.');
const deploy1 = historyRecord('2026-03-01T00:00:00.000Z', { [AGENT]: { name: 'front-desk', config: v1 } }, { commit: 'a'.repeat(40), pullRequest: 41 });
const deploy2 = historyRecord('2026-03-02T00:00:00.000Z', { [AGENT]: { name: 'front-desk', config: v2 } }, { commit: 'b'.repeat(40), pullRequest: 42 });

/** After deploy1, B applied on a clock ten minutes ahead, then C on one that was right: C is recorded before B and appended after it. */
const SKEWED = (() => {
  const v3 = { ...v2, first_message: 'Hi, Acme Dental.' };
  const b = { ...historyRecord('2026-03-02T00:10:00.000Z', { [AGENT]: { name: 'front-desk', config: v2 } }), id: '20260302T001000000Z-00000b' };
  const c = { ...historyRecord('2026-03-02T00:02:00.000Z', { [AGENT]: { name: 'front-desk', config: v3 } }), id: '20260302T001000001Z-00000c' };
  return { v3, b, c };
})();

describe('VersionResolver', () => {
  const resolver = new VersionResolver(deployedVersions([deploy2, deploy1]));

  it('labels a call with the deploy whose configuration it ran, whatever the secret values were', () => {
    expect(resolver.resolve(AGENT, v1, T0 + 10).key).toBe(deploy1.id);
    expect(resolver.resolve(AGENT, agentConfig('You are the receptionist.', 'another-secret-value'), T0 + 10).key).toBe(deploy1.id);
    expect(resolver.resolve(AGENT, v2, T0 + 86_400 + 10).key).toBe(deploy2.id);
  });

  it('cuts a prefetch webhook’s extra prompt back to the deployed prompt', () => {
    const withExtra = { ...v2, prompt: `${v2.prompt as string}\n\nThe caller is a returning patient.` };
    expect(resolver.resolve(AGENT, withExtra, T0 + 86_400 + 10).key).toBe(deploy2.id);
    // Without the blank line the service puts before it, it is not an extra prompt but another prompt.
    expect(resolver.resolve(AGENT, { ...v2, prompt: `${v2.prompt as string} More.` }, T0 + 86_400 + 10).key).toMatch(/^outside:[0-9a-f]{12}$/);
    expect(extraPromptCut('extra', 0)).toBe('');
    expect(extraPromptCut('base\n\nextra', 4)).toBe('base');
    expect(extraPromptCut('base more', 4)).toBeUndefined();
    expect(extraPromptCut('base', 4)).toBeUndefined();
    expect(extraPromptCut(undefined, 4)).toBeUndefined();
  });

  it('gives the calls after a deploy that appended lines to the prompt to that deploy, with or without an extra prompt', () => {
    // v2 is v1 with a paragraph appended: cut at v1's length, v2's prompt looks like v1 plus an extra prompt.
    const appended = agentConfig('You are the receptionist.\n\nOffer the earliest slot.');
    const deployAppended = historyRecord('2026-03-02T00:00:00.000Z', { [AGENT]: { name: 'front-desk', config: appended } });
    const appendResolver = new VersionResolver(deployedVersions([deploy1, deployAppended]));
    const after = T0 + 86_400 + 10;
    expect(appendResolver.resolve(AGENT, appended, after).key).toBe(deployAppended.id);
    const withExtra = { ...appended, prompt: `${appended.prompt as string}\n\nThe caller is a returning patient.` };
    expect(appendResolver.resolve(AGENT, withExtra, after).key).toBe(deployAppended.id);
    // Before the deploy, v1 with an extra prompt is still v1, and v1 as it ran is v1 at any time.
    expect(appendResolver.resolve(AGENT, { ...v1, prompt: 'You are the receptionist.\n\nThe caller is new.' }, T0 + 10).key).toBe(deploy1.id);
    expect(appendResolver.resolve(AGENT, v1, after).key).toBe(deploy1.id);
    // After v2's deploy, v1's prompt with an extra prompt is not v1's call: that deploy was over.
    expect(appendResolver.resolve(AGENT, { ...v1, prompt: 'You are the receptionist.\n\nThe caller is new.' }, after).key).toMatch(/^outside:/);
  });

  it("gives a cut call only to a version live at its time: from the ledger's record before its deploy, whichever agent that record changed", () => {
    const appended = agentConfig('You are the receptionist.\n\nOffer the earliest slot.');
    // Between v1 and v2, an apply that changed another agent only.
    const otherAgent = historyRecord('2026-03-02T00:00:00.000Z', { '-OKagentBooking000001': { name: 'booking', config: agentConfig('You book.') } });
    const deployAppended = historyRecord('2026-03-03T00:00:00.000Z', { [AGENT]: { name: 'front-desk', config: appended } });
    const appendResolver = new VersionResolver(deployedVersions([deploy1, otherAgent, deployAppended]));
    // v1's prompt with an extra prompt that begins as v2's paragraph does, made before the other apply: v2's deploy had not begun.
    const call = { ...v1, prompt: 'You are the receptionist.\n\nOffer the earliest slot.\n\nThe caller is a VIP.' };
    expect(appendResolver.resolve(AGENT, call, T0 + 43_200).key).toBe(deploy1.id);
    // Made after the other apply's record, during v2's: v2's.
    expect(appendResolver.resolve(AGENT, call, T0 + 86_400 + 10).key).toBe(deployAppended.id);
  });

  it('keeps one outside version for calls that differ only in their extra prompt, and bounds their number', () => {
    const edited = agentConfig('You are the receptionist. Edited.');
    const keys = new Set(
      Array.from({ length: 10 }, (_, i) => resolver.resolve(AGENT, { ...agentConfig('You are the receptionist.'), first_message: 'Hi', prompt: `You are the receptionist.\n\nCaller ${i}` }, T0 + 10).key),
    );
    expect(keys.size).toBe(1);
    const many = new VersionResolver(deployedVersions([deploy1]));
    const outside = new Set(Array.from({ length: 60 }, (_, i) => many.resolve(AGENT, { ...edited, first_message: `Hi ${i}` }, T0).key));
    expect(outside.size).toBe(51);
    expect(outside.has('outside:more')).toBe(true);
  });

  it('names a configuration the history does not hold by its hash, as changed outside voxform', () => {
    const outside = resolver.resolve(AGENT, agentConfig('Edited on the dashboard.'), T0 + 100);
    expect(outside.key).toMatch(/^outside:/);
    expect(outside.deployed).toBeUndefined();
    expect(resolver.resolve('-OKotherAgent', v1, T0).key).toMatch(/^outside:/);
  });

  it('gives a configuration deployed again (a rollback) to the latest deploy before the call', () => {
    const rollback = historyRecord('2026-03-03T00:00:00.000Z', { [AGENT]: { name: 'front-desk', config: v1 } }, { commit: 'c'.repeat(40) });
    const withRollback = new VersionResolver(deployedVersions([deploy1, deploy2, rollback]));
    expect(withRollback.resolve(AGENT, v1, T0 + 10).key).toBe(deploy1.id);
    expect(withRollback.resolve(AGENT, v1, T0 + 2 * 86_400 + 10).key).toBe(rollback.id);
  });

  it('gives a call made while the rollback was applied, before its record, to the rollback: the version before it was live in between', () => {
    // The service runs a configuration from the moment its update returns; the record is written
    // when the apply ends, a little later. v1's first deploy was over once v2's record was written.
    const rollback = historyRecord('2026-03-03T00:00:00.000Z', { [AGENT]: { name: 'front-desk', config: v1 } });
    const withRollback = new VersionResolver(deployedVersions([deploy1, deploy2, rollback]));
    expect(withRollback.resolve(AGENT, v1, T0 + 2 * 86_400 - 0.01).key).toBe(rollback.id);
    // Calls of the first deploy: moments before its record, and up to v2's update (before v2's record).
    expect(withRollback.resolve(AGENT, v1, T0 - 0.01).key).toBe(deploy1.id);
    expect(withRollback.resolve(AGENT, v1, T0 + 86_400 - 0.01).key).toBe(deploy1.id);
    // v2's calls, also those made while its apply was still finishing.
    expect(withRollback.resolve(AGENT, v2, T0 + 86_400 - 0.01).key).toBe(deploy2.id);
  });

  it('does not start a version for an apply that left the agent as it was', () => {
    const other = historyRecord('2026-03-01T12:00:00.000Z', { [AGENT]: { name: 'front-desk', config: v1 }, '-OKother': { name: 'other', config: v2 } });
    const versions = deployedVersions([deploy1, other, deploy2]).get(AGENT) ?? [];
    expect(versions.map((version) => version.key)).toEqual([deploy1.id, deploy2.id]);
    expect(versions[1]?.deployed?.changedFields).toEqual(['prompt']);
    // A field absent on one side counts as null; a field whose keys only moved has not changed.
    const changedFields = (before: Record<string, unknown>, after: Record<string, unknown>) =>
      deployedVersions([
        historyRecord('2026-03-03T00:00:00.000Z', { [AGENT]: { name: 'front-desk', config: before } }),
        historyRecord('2026-03-04T00:00:00.000Z', { [AGENT]: { name: 'front-desk', config: after } }),
      ]).get(AGENT)?.[1]?.deployed?.changedFields;
    expect(changedFields({ prompt: 'a', first_message: 'Hi' }, { prompt: 'b', language: null })).toEqual(['first_message', 'prompt']);
    const tool = { name: 'lookup', description: 'find a booking' };
    expect(changedFields({ prompt: 'a', tools: [tool] }, { prompt: 'b', tools: [{ description: tool.description, name: tool.name }] })).toEqual(['prompt']);
  });
});

describe('outcomes', () => {
  it('counts a tool call as failed only when it says so', () => {
    expect(functionCallFailed({ name: 'x', error: 'timeout' })).toBe(true);
    expect(functionCallFailed({ name: 'x', success: false })).toBe(true);
    expect(functionCallFailed({ name: 'x', status: 502 })).toBe(true);
    expect(functionCallFailed({ name: 'x', status_code: '200', status: 'ok' })).toBe(false);
    expect(functionCallFailed({ name: 'x', params: {}, error: null })).toBe(false);
    expect(isTransferCall('transfer_call') && !isTransferCall('transfer_lookup') && !isTransferCall('lookup')).toBe(true);
  });
});

function calls(config: Record<string, unknown>, start: number, count: number, errorsEvery: number, extra: Partial<Parameters<typeof callRecord>[0]> = {}) {
  return Array.from({ length: count }, (_, i) =>
    callRecord({ agentId: AGENT, config, ts: start + i * 60, status: i % errorsEvery === 0 ? 'error' : 'user-ended', duration: 30 + i, ...extra }),
  );
}

describe('buildCallReport', () => {
  it('reports each version’s metrics and compares it with the one before', async () => {
    const records = [
      ...calls(v1, T0 + 60, 60, 20, { functionCalls: [{ name: 'lookup' }] }),
      ...calls(v2, T0 + 86_400 + 60, 60, 2, { credit: 0.25, functionCalls: [{ name: 'transfer_call' }, { name: 'lookup', error: 'HTTP 500' }] }),
    ];
    const report = await buildCallReport({
      calls: [newestFirst(records)],
      history: [deploy2, deploy1],
      workspace: 'default@local',
      names: new Map(),
      now: new Date('2026-03-03T00:00:00Z'),
      diffLink: diffLinkFromEnv({ GITHUB_SERVER_URL: 'https://github.example', GITHUB_REPOSITORY: 'acme/agents' }),
    });
    expect(report.calls).toBe(120);
    const [agent] = report.agents;
    expect(agent?.name).toBe('front-desk');
    expect(agent?.versions.map((v) => [v.key, v.metrics.calls, v.deploy?.commit, v.deploy?.pull_request])).toEqual([
      [deploy1.id, 60, 'a'.repeat(40), 41],
      [deploy2.id, 60, 'b'.repeat(40), 42],
    ]);
    const [first, second] = agent?.versions ?? [];
    expect(first?.metrics.error_rate).toMatchObject({ count: 3, of: 60, value: 0.05 });
    expect(first?.comparison).toBeNull();
    expect(second?.metrics.transfer_rate).toMatchObject({ count: 60, of: 60, value: 1 });
    // The transfer is not a tool call (docs/report.md, Metrics): 60 lookups, every one failed.
    expect(second?.metrics.tool_calls).toMatchObject({ calls: 60, failed: 60 });
    expect(second?.metrics.credits).toEqual({ total: 15, mean_per_call: 0.25 });
    expect(second?.metrics.duration_seconds).toMatchObject({ calls: 60, median: 59, p90: 83, exact: true });
    expect(second?.comparison).toMatchObject({ against: deploy1.id, enough_calls: true });
    expect(second?.comparison?.error_rate.verdict).toBe('higher');
    expect(second?.comparison?.transfer_rate.verdict).toBe('higher');
    expect(second?.comparison?.mean_duration_seconds.verdict).toBe('no clear difference');
    expect(second?.deploy?.diff_url).toBe(`https://github.example/acme/agents/compare/${'a'.repeat(40)}...${'b'.repeat(40)}`);
    expect(agent?.deploys.map((d) => d.record_id)).toEqual([deploy1.id, deploy2.id]);
    expect(agent?.series.points.reduce((sum, p) => sum + p.calls, 0)).toBe(120);
    expect(JSON.stringify(report)).not.toContain(PLANTED_HEADER);
  });

  it('says "not enough calls" below the minimum instead of claiming a difference', async () => {
    const report = await buildCallReport({
      calls: [newestFirst([...calls(v1, T0 + 60, 10, 100), ...calls(v2, T0 + 86_400 + 60, 10, 1)])],
      history: [deploy1, deploy2],
      workspace: 'default@local',
      names: new Map([[AGENT, 'desk']]),
      now: new Date(),
      diffLink: () => null,
    });
    const comparison = report.agents[0]?.versions[1]?.comparison;
    expect(comparison?.enough_calls).toBe(false);
    expect(comparison?.error_rate.verdict).toBe('not enough calls');
    expect(report.agents[0]?.name).toBe('desk');
  });

  it('orders versions as the ledger does and compares each with the one deployed before it, whatever the applying clocks said', async () => {
    const { b, c, v3 } = SKEWED;
    const report = await buildCallReport({
      calls: [newestFirst([...calls(v1, T0 + 60, 40, 10), ...calls(v2, T0 + 86_400 - 60 * 60, 40, 10), ...calls(v3, T0 + 86_400 + 20 * 60, 40, 10)])],
      history: [c, b, deploy1],
      workspace: 'default@local',
      names: new Map(),
      now: new Date('2026-03-03T00:00:00Z'),
      diffLink: () => null,
    });
    const [agent] = report.agents;
    expect(agent?.versions.map((v) => [v.key, v.comparison?.against ?? null, v.deploy?.changed_fields])).toEqual([
      // The agent's first deploy in the history: what it replaced is not recorded, so what it changed is unknown.
      [deploy1.id, null, null],
      [b.id, deploy1.id, ['prompt']],
      [c.id, b.id, ['first_message']],
    ]);
    expect(agent?.deploys.map((d) => [d.record_id, d.at])).toEqual([
      [deploy1.id, deploy1.at],
      [b.id, b.at],
      // Recorded before B, appended after it: on the report's timeline no earlier than B.
      [c.id, b.at],
    ]);
  });
});

describe('test traffic', () => {
  /** 60 production calls of v1, and 5 `voxform test` and 3 `voxform chat` calls, all errors, labelled as voxform labels them. */
  function mixed() {
    const production = calls(v1, T0 + 60, 60, 1000);
    const labelled = (source: string, n: number, offset: number) =>
      calls(v1, T0 + offset, n, 1).map((record) => ({ ...record, metadata: { customer: 'c-1', voxform_source: source } }));
    return [...production, ...labelled('test', 5, 7000), ...labelled('chat', 3, 9000), ...calls(v1, T0 + 11_000, 1, 1).map((r) => ({ ...r, metadata: { voxform_source: 'production-looking' } }))];
  }
  const build = (includeTests?: boolean) =>
    buildCallReport({ calls: [newestFirst(mixed())], history: [deploy1], workspace: 'default@local', names: new Map(), now: new Date('2026-03-03T00:00:00Z'), diffLink: () => null, includeTests });

  it('leaves the calls of voxform test and chat out of every figure by default, and says how many', async () => {
    const report = await build();
    expect(report.test_traffic).toEqual({ included: false, calls: 8 });
    expect(report.calls).toBe(61);
    const [agent] = report.agents;
    expect(agent?.calls).toBe(61);
    expect(agent?.test_calls).toBe(8);
    expect(agent?.versions[0]?.metrics.error_rate).toMatchObject({ count: 2, of: 61 });
    expect(agent?.series.points.reduce((sum, p) => sum + p.calls, 0)).toBe(61);
  });

  it('counts them with includeTests (--include-tests)', async () => {
    const report = await build(true);
    expect(report.test_traffic).toEqual({ included: true, calls: 8 });
    expect(report.agents[0]?.calls).toBe(69);
    expect(report.agents[0]?.versions[0]?.metrics.error_rate).toMatchObject({ count: 10, of: 69 });
  });

  it("counts another environment's calls as its own report would: its test calls only with includeTests", async () => {
    const otherEnvironments = new Map([[AGENT, 'staging']]);
    const left = async (includeTests?: boolean) =>
      (await buildCallReport({ calls: [newestFirst(mixed())], history: [], workspace: 'default@local', names: new Map(), now: new Date('2026-03-03T00:00:00Z'), diffLink: () => null, includeTests, otherEnvironments })).other_environments;
    expect(await left()).toEqual([{ environment: 'staging', agents: 1, calls: 61 }]);
    expect(await left(true)).toEqual([{ environment: 'staging', agents: 1, calls: 69 }]);
    // An agent whose every call was test traffic is no agent that report shows.
    const onlyTests = mixed().filter((record) => record.metadata?.voxform_source === 'test');
    const report = await buildCallReport({ calls: [newestFirst(onlyTests)], history: [], workspace: 'default@local', names: new Map(), now: new Date(), diffLink: () => null, otherEnvironments });
    expect(report.other_environments).toEqual([]);
  });

  it('lists the agents voxform manages first, then the others by their name on the service, which it asks only for those', async () => {
    const agentCalls = (agentId: string, from: number) => Array.from({ length: 3 }, (_, i) => callRecord({ agentId, config: v1, ts: from + i * 60 }));
    const asked: string[][] = [];
    const report = await buildCallReport({
      calls: [newestFirst([...agentCalls('-OKhandMadeZulu', T0 + 10), ...agentCalls('-OKhandMadeAlpha', T0 + 20), ...agentCalls('-OKgone', T0 + 30), ...agentCalls(AGENT, T0 + 40)])],
      history: [deploy1],
      workspace: 'default@local',
      names: new Map(),
      serviceNames: async (ids) => {
        asked.push([...ids].sort());
        return new Map([['-OKhandMadeZulu', 'Alpha line'], ['-OKhandMadeAlpha', 'Zulu line']]);
      },
      now: new Date('2026-03-03T00:00:00Z'),
      diffLink: () => null,
    });
    expect(asked).toEqual([['-OKgone', '-OKhandMadeAlpha', '-OKhandMadeZulu']]);
    expect(report.agents.map(({ agent_id, name, managed, service_name }) => ({ agent_id, name, managed, service_name }))).toEqual([
      { agent_id: AGENT, name: 'front-desk', managed: true, service_name: null },
      // One the service no longer knows goes by its id.
      { agent_id: '-OKgone', name: '-OKgone', managed: false, service_name: null },
      { agent_id: '-OKhandMadeZulu', name: '-OKhandMadeZulu', managed: false, service_name: 'Alpha line' },
      { agent_id: '-OKhandMadeAlpha', name: '-OKhandMadeAlpha', managed: false, service_name: 'Zulu line' },
    ]);
  });

  it('keeps a heal (`drift --heal`) as a deploy that puts the version back, not a version of its own', async () => {
    const edited = agentConfig('Edited on the dashboard.');
    // The heal's record holds only the healed agent, with the configuration it put back.
    const heal = historyRecord('2026-03-01T02:00:00.000Z', { [AGENT]: { name: 'front-desk', config: v1 } }, { healOf: [deploy1.id] });
    // An apply that left the agent as it was is neither.
    const unchanged = historyRecord('2026-03-01T03:00:00.000Z', { [AGENT]: { name: 'front-desk', config: v1 } });
    const records = [...calls(v1, T0 + 60, 40, 10), ...calls(edited, T0 + 3600, 20, 10), ...calls(v1, T0 + 7300, 40, 10)];
    const report = await buildCallReport({ calls: [newestFirst(records)], history: [unchanged, heal, deploy1], workspace: 'w', names: new Map(), now: new Date('2026-03-02T00:00:00Z'), diffLink: () => null });
    const [agent] = report.agents;
    expect(agent?.versions.map((version) => [version.key, version.metrics.calls])).toEqual([[deploy1.id, 80], [expect.stringMatching(/^outside:/), 20]]);
    // What either changed is unknown: the first replaced a configuration not in the history, the heal one changed outside voxform.
    expect(agent?.deploys.map((deploy) => [deploy.record_id, deploy.puts_back, deploy.changed_fields])).toEqual([[deploy1.id, null, null], [heal.id, deploy1.id, null]]);
    expect(agent?.versions[0]?.deploy?.puts_back).toBeNull();
  });

  it('names a rollback as one, by the commit of the configuration it restored, in JSON (valid under the schema), Markdown and HTML', async () => {
    // The rollback ran with v2's commit checked out; what it deployed is v1's, of deploy1's commit.
    const rollback = historyRecord('2026-03-01T02:00:00.000Z', { [AGENT]: { name: 'front-desk', config: v1 } }, { commit: 'b'.repeat(40), rollbackOf: deploy1.id });
    const v2Deploy = { ...deploy2, at: '2026-03-01T01:00:00.000Z', id: '20260301T010000000Z-0000b2' };
    const records = [...calls(v1, T0 + 60, 10, 5), ...calls(v2, T0 + 3660, 10, 5), ...calls(v1, T0 + 7260, 10, 5)];
    const report = await buildCallReport({ calls: [newestFirst(records)], history: [rollback, v2Deploy, deploy1], workspace: 'w', names: new Map(), now: new Date('2026-03-02T00:00:00Z'), diffLink: () => null });
    const [agent] = report.agents;
    expect(agent?.deploys.map((deploy) => deploy.rollback_of)).toEqual([null, null, { record: deploy1.id, commit: 'a'.repeat(40), uncommitted: null }]);
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(await readFile(path.join(repoRoot, 'schemas/report.schema.json'), 'utf8')) as object);
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    const label = `rollback to aaaaaaa (record ${deploy1.id})`;
    const rows = renderReportMarkdown(report).split('\n').filter((line) => line.startsWith('| '));
    expect(rows[rows.length - 1]).toContain(`| ${label} |`);
    expect(renderReportHtml(report)).toContain(`v3 · ${label}`);
    // A rollback to a record the history no longer holds: its record alone.
    const orphan = await buildCallReport({ calls: [newestFirst(calls(v1, T0 + 7260, 10, 5))], history: [rollback], workspace: 'w', names: new Map(), now: new Date('2026-03-02T00:00:00Z'), diffLink: () => null });
    expect(renderReportMarkdown(orphan)).toContain(`| rollback to record ${deploy1.id} |`);
  });

  it('shows no agent whose every call was test traffic', async () => {
    const only = calls(v1, T0 + 60, 4, 1).map((record) => ({ ...record, metadata: { voxform_source: 'chat' } }));
    const report = await buildCallReport({ calls: [newestFirst(only)], history: [deploy1], workspace: 'w', names: new Map(), now: new Date(), diffLink: () => null });
    expect(report.agents).toEqual([]);
    expect(report.test_traffic).toEqual({ included: false, calls: 4 });
  });
});

describe('--since-deploy', () => {
  /** The window `sinceDeployReport` reads first: no version passed over yet. */
  const windowAt = (history: Parameters<typeof deployedUntil>[0], agentId: string | undefined, until: number) => sinceDeployWindow(history, agentId, until, new Map(), { deployed: deployedUntil(history, until) });
  const OTHER = '-OKagentBooking00001';
  const v3 = agentConfig('You are the receptionist. Offer the earliest slot. Confirm the name.');
  const deploy3 = historyRecord('2026-03-03T00:00:00.000Z', { [AGENT]: { name: 'front-desk', config: v3 } });
  const other = historyRecord('2026-03-02T12:00:00.000Z', { [OTHER]: { name: 'booking', config: v1 } });
  const history = [deploy1, deploy2, other, deploy3];
  const DAY = 86_400;

  it('takes the latest deploy and the one before it in the ledger order, whatever the applying clocks said', () => {
    const { b, c } = SKEWED;
    const window = windowAt([deploy1, b, c], undefined, T0 + 4 * DAY);
    expect(window?.only.get(AGENT)?.deploys).toEqual(new Set([b.id, c.id]));
    expect(window?.before.get(AGENT)).toBe(b.id);
    expect(window?.since).toBe(T0); // deploy1's record: the apply of B began after it
  });

  it('selects the latest deploy’s version and the one before it, and reads from the record before that one', () => {
    const window = windowAt(history, undefined, T0 + 4 * DAY);
    expect(window?.since).toBe(T0); // deploy1's record: the apply of v2 began after it
    expect([...(window?.only.keys() ?? [])]).toEqual([AGENT]);
    expect(window?.only.get(AGENT)).toEqual({ deploys: new Set([deploy2.id, deploy3.id]), outsideFrom: T0 + DAY });
    // The latest deploy up to --until; an agent's only deploy is both; the workspace's first record has none before it.
    // An agent's first deploy replaced a configuration changed outside voxform, whenever it began.
    expect(windowAt(history, undefined, T0 + 2 * DAY - 1)?.only).toEqual(new Map([[OTHER, { deploys: new Set([other.id]), outsideFrom: -Infinity }]]));
    expect(windowAt(history, AGENT, T0 + 1.5 * DAY)?.since).toBeUndefined();
    expect(windowAt(history, '-OKnever', T0 + 4 * DAY)).toBeUndefined();
  });

  it('takes an apply that only renamed an agent for the deploy that changed it, as history does: that agent, in the version it runs', () => {
    const renamed = historyRecord('2026-03-04T00:00:00.000Z', { [OTHER]: { name: 'booking', config: v1 } });
    (renamed.agents.booking as { name?: string }).name = 'Appointment booking 2';
    const withRename = [...history, renamed];
    expect(historyEntries([renamed, deploy3, other, deploy2, deploy1])[0]?.agentsChanged).toEqual(['booking']);
    const window = windowAt(withRename, undefined, T0 + 4 * DAY);
    expect(window?.only).toEqual(new Map([[OTHER, { deploys: new Set([other.id]), outsideFrom: -Infinity }]]));
    // Before the rename, the latest deploy was front-desk's, as before.
    expect([...(windowAt(withRename, undefined, T0 + 3 * DAY - 1)?.only.keys() ?? [])]).toEqual([AGENT]);
    // --agent still asks for that agent's latest version and the one before it.
    expect(windowAt(withRename, AGENT, T0 + 4 * DAY)?.only.get(AGENT)?.deploys).toEqual(new Set([deploy2.id, deploy3.id]));
  });

  it('finds the latest deploy that changed something in one walk of the ledger: a planted ledger of thousands of deploys that changed nothing stays linear', () => {
    // Oldest first: agents 0…999 deployed one by one, then again in the reverse order, each as before.
    // The newest 1,000 records changed nothing; the latest change is agent 999's first deploy.
    const half = 1_000;
    let looks = 0;
    const ledger = Array.from({ length: 2 * half }, (_, i) => {
      const agent = i < half ? i : 2 * half - 1 - i;
      const deployed = historyRecord(new Date((T0 + i) * 1000).toISOString(), { [`-OKplanted${String(agent).padStart(10, '0')}`]: { name: `agent-${agent}`, config: v1 } });
      deployed.agents = new Proxy(deployed.agents, {
        get: (...args) => (looks++, Reflect.get(...args)),
        getOwnPropertyDescriptor: (...args) => (looks++, Reflect.getOwnPropertyDescriptor(...args)),
      });
      return deployed;
    });
    const window = windowAt(ledger, undefined, T0 + 2 * half);
    expect([...(window?.only.keys() ?? [])]).toEqual([`-OKplanted${String(half - 1).padStart(10, '0')}`]);
    // A few dozen looks per record, not one for each record between a deploy and the one before it.
    expect(looks).toBeLessThan(50 * 2 * half);
  });

  it('finds where to read from with one sort of the ledger, however many agents the latest deploy changed: a planted record of thousands of agents stays linear', () => {
    const many = 2_000;
    const agents = Object.fromEntries(Array.from({ length: many }, (_, i) => [`-OKplanted${String(i).padStart(10, '0')}`, { name: `agent-${i}`, config: v1 }]));
    const older = Array.from({ length: 2_000 }, (_, i) => historyRecord(new Date((T0 + i) * 1000).toISOString(), { [OTHER]: { name: 'booking', config: i % 2 === 0 ? v1 : v2 } }));
    const latest = historyRecord(new Date((T0 + 2_000) * 1000).toISOString(), agents);
    let reads = 0;
    const ledger = new Proxy([...older, latest], { get: (...args) => (typeof args[1] === 'string' && /^\d+$/.test(args[1]) && reads++, Reflect.get(...args)) });
    const window = windowAt(ledger, undefined, T0 + 3_000);
    expect(window?.only.size).toBe(many);
    expect(window?.since).toBe(T0 + 1_999);
    // A few reads of each record, not one for each agent reported.
    expect(reads).toBeLessThan(50 * 2_001);
  });

  it('passes over a heal, which history names as changing the agents it put back: the deploy before it is the latest', () => {
    const heal = historyRecord('2026-03-04T00:00:00.000Z', { [OTHER]: { name: 'booking', config: v1 } }, { healOf: [other.id] });
    const healed = [...history, heal];
    expect(historyEntries([heal, deploy3, other, deploy2, deploy1])[0]?.agentsChanged).toEqual(['booking']);
    expect(windowAt(healed, undefined, T0 + 4 * DAY)?.only).toEqual(windowAt(history, undefined, T0 + 4 * DAY)?.only);
    expect([...(windowAt(healed, undefined, T0 + 4 * DAY)?.only.keys() ?? [])]).toEqual([AGENT]);
  });

  it('reports those two versions whole and nothing older, though older calls are in the window read', async () => {
    const window = windowAt(history, undefined, T0 + 4 * DAY);
    const records = [
      ...calls(v1, T0 + DAY - 3000, 40, 10), // v1's last calls, after deploy1's record and up to v2's update
      ...calls(v2, T0 + DAY - 0.5, 40, 10), // v2's first call made while its apply was finishing
      ...calls(v3, T0 + 2 * DAY + 60, 40, 10),
      ...calls(agentConfig('Edited on the dashboard.'), T0 + DAY - 600, 5, 10), // outside voxform, while v1 was live
      ...calls(agentConfig('Edited on the dashboard.'), T0 + 3 * DAY, 5, 10), // outside voxform, after the latest deploy
      callRecord({ agentId: OTHER, config: v1, ts: T0 + 2 * DAY }),
    ];
    const report = await buildCallReport({
      calls: [newestFirst(records)],
      history,
      workspace: 'default@local',
      names: new Map(),
      since: window?.since,
      now: new Date('2026-03-05T00:00:00Z'),
      diffLink: () => null,
      only: window?.only,
    });
    expect(report.agents.map((agent) => agent.agent_id)).toEqual([AGENT]);
    const [agent] = report.agents;
    expect(agent?.versions.map((version) => [version.key, version.metrics.calls])).toEqual([
      [deploy2.id, 40],
      [deploy3.id, 40],
      [expect.stringMatching(/^outside:/), 5],
    ]);
    expect(agent?.versions[1]?.comparison?.against).toBe(deploy2.id);
    expect(agent?.deploys.map((deploy) => deploy.record_id)).toEqual([deploy2.id, deploy3.id]);
    expect(report.calls).toBe(85);
  });

  it('reads the call log again at most three times, however many versions without calls the history offers', async () => {
    // Twelve deploys of configurations that took no call (a history a checkout may hold), then the running one.
    const planted = Array.from({ length: 12 }, (_, i) =>
      historyRecord(new Date((T0 + i * 3600) * 1000).toISOString(), { [AGENT]: { name: 'front-desk', config: agentConfig(`You are receptionist number ${i}.`) } }),
    );
    const running = historyRecord(new Date((T0 + DAY) * 1000).toISOString(), { [AGENT]: { name: 'front-desk', config: v2 } });
    const history = [...planted, running];
    const records = calls(v2, T0 + DAY + 60, 40, 5);
    let builds = 0;
    const build = (window: NonNullable<ReturnType<typeof sinceDeployWindow>>) => {
      builds++;
      return buildCallReport({ calls: [newestFirst(records)], history, workspace: 'w', names: new Map(), since: window.since, now: new Date('2026-03-05T00:00:00Z'), diffLink: () => null, only: window.only });
    };
    const built = await sinceDeployReport(history, AGENT, T0 + 4 * DAY, build);
    expect(builds).toBe(4);
    // The report stands as last built: its version before took no call, so there is nothing to compare.
    expect(built?.window.before.get(AGENT)).toBe(planted[8]?.id);
    expect(built?.report.agents[0]?.versions.map((version) => [version.key, version.metrics.calls, version.comparison ?? null])).toEqual([[running.id, 40, null]]);
  });

  it('after a rollback and a re-apply, compares the running configuration with the older one that had calls, not the short rollback nor its own earlier deploy', async () => {
    // v1 (few errors), v2 (many), rolled back to v1 and v2 applied again within the hour: no call of the rollback's v1.
    const rollback = historyRecord('2026-03-03T00:00:00.000Z', { [AGENT]: { name: 'front-desk', config: v1 } });
    const reapply = historyRecord('2026-03-03T01:00:00.000Z', { [AGENT]: { name: 'front-desk', config: v2 } });
    const rolled = [deploy1, deploy2, rollback, reapply];
    const records = [...calls(v1, T0 + 60, 40, 20), ...calls(v2, T0 + DAY + 60, 40, 2), ...calls(v2, T0 + 2 * DAY + 7200, 40, 3)];
    const build = (window: NonNullable<ReturnType<typeof sinceDeployWindow>>) =>
      buildCallReport({ calls: [newestFirst(records)], history: rolled, workspace: 'w', names: new Map(), since: window.since, now: new Date('2026-03-05T00:00:00Z'), diffLink: () => null, only: window.only });
    // Read first over the rollback's version, which had no call; then past it, to v1's first deploy.
    expect(windowAt(rolled, AGENT, T0 + 4 * DAY)?.before.get(AGENT)).toBe(rollback.id);
    const built = await sinceDeployReport(rolled, AGENT, T0 + 4 * DAY, build);
    expect(built?.window.since).toBeUndefined(); // deploy1 is the workspace's first record
    const [agent] = built?.report.agents ?? [];
    expect(agent?.versions.map((version) => [version.key, version.metrics.calls])).toEqual([
      [deploy1.id, 40],
      [reapply.id, 40],
    ]);
    expect(agent?.versions[1]?.comparison?.against).toBe(deploy1.id);
    expect(agent?.versions[1]?.comparison?.error_rate.verdict).toBe('higher');
    // The whole report compares the re-applied v2 with v1 too: v2's own earlier deploy is the same configuration.
    const whole = await buildCallReport({ calls: [newestFirst(records)], history: rolled, workspace: 'w', names: new Map(), now: new Date('2026-03-05T00:00:00Z'), diffLink: () => null });
    expect(whole.agents[0]?.versions.map((version) => [version.key, version.comparison?.against ?? null])).toEqual([
      [deploy1.id, null],
      [deploy2.id, deploy1.id],
      [reapply.id, deploy1.id],
    ]);
  });

  it('when the agent’s first deploy took no call before the next, reads past it to the configuration it replaced (changed outside voxform)', async () => {
    // Promoted (v1), healed twice after edits on the dashboard, then v2 applied; every call ran the configuration set up before voxform.
    const promoted = historyRecord('2026-03-02T00:00:00.000Z', { [AGENT]: { name: 'front-desk', config: v1 } }, { promotedFrom: { workspace: 'staging@local', record: deploy1.id } });
    const heals = [1, 2].map((hour) => historyRecord(`2026-03-02T0${hour}:00:00.000Z`, { [AGENT]: { name: 'front-desk', config: v1 } }, { healOf: [promoted.id] }));
    const applied = historyRecord('2026-03-02T03:00:00.000Z', { [AGENT]: { name: 'front-desk', config: v2 } });
    const walked = [promoted, ...heals, applied];
    const records = calls(agentConfig('Set up on the dashboard.'), T0, 60, 10);
    let builds = 0;
    const build = (window: NonNullable<ReturnType<typeof sinceDeployWindow>>) => {
      builds++;
      return buildCallReport({ calls: [newestFirst(records)], history: walked, workspace: 'w', names: new Map(), since: window.since, now: new Date('2026-03-02T03:00:01Z'), diffLink: () => null, only: window.only });
    };
    expect(windowAt(walked, undefined, T0 + 4 * DAY)?.before.get(AGENT)).toBe(promoted.id);
    const built = await sinceDeployReport(walked, undefined, T0 + 4 * DAY, build);
    expect(builds).toBe(2);
    expect(built?.window.since).toBeUndefined(); // the promotion is the workspace's first record: the whole log
    expect(built?.window.before.has(AGENT)).toBe(false);
    expect(built?.report.calls).toBe(60);
    expect(built?.report.agents[0]?.versions.map((version) => [version.source, version.metrics.calls])).toEqual([['outside', 60]]);
    expect(built?.report.agents[0]?.deploys.map((deploy) => deploy.record_id)).toEqual([applied.id]);
  });

  it('right after an agent’s first deploy, shows the configuration it replaced (changed outside voxform) as the baseline', async () => {
    const window = windowAt([deploy1], AGENT, T0 + 60);
    expect(window?.since).toBeUndefined(); // the workspace's first record: the whole log
    const before = agentConfig('Set up on the dashboard.');
    const report = await buildCallReport({
      calls: [newestFirst(calls(before, T0 - DAY, 40, 10))],
      history: [deploy1],
      workspace: 'default@local',
      names: new Map(),
      since: window?.since,
      now: new Date((T0 + 60) * 1000),
      diffLink: () => null,
      only: window?.only,
    });
    expect(report.calls).toBe(40);
    expect(report.agents[0]?.versions.map((version) => [version.source, version.metrics.calls])).toEqual([['outside', 40]]);
    expect(report.agents[0]?.deploys.map((deploy) => deploy.record_id)).toEqual([deploy1.id]);
  });
});

describe('VersionResolver, call after call', () => {
  it('tells consecutive calls of one agent apart by any change, not only the prompt', () => {
    const first = agentConfig('You are the receptionist.');
    const second = { ...first, tools: [{ ...(first.tools as Array<Record<string, unknown>>)[0], description: 'find a booking by name' }] };
    const history = [historyRecord('2026-03-01T00:00:00.000Z', { a1: { name: 'desk', config: first } }), historyRecord('2026-03-02T00:00:00.000Z', { a1: { name: 'desk', config: second } })];
    const resolver = new VersionResolver(deployedVersions(history));
    // Parsed afresh per call, as pages are: the same content, never the same objects.
    const keys = [first, first, second, first, second, second].map((config) => resolver.resolve('a1', JSON.parse(JSON.stringify(config)), Date.parse('2026-03-03T00:00:00Z') / 1000).key);
    expect(keys).toEqual([history[0]?.id, history[0]?.id, history[1]?.id, history[0]?.id, history[1]?.id, history[1]?.id]);
  });
});
