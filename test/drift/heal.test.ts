import { describe, expect, it } from 'vitest';
import { classifyDrift } from '../../src/drift/classify.js';
import { HealRecordChooser, healPlan, type HealPlan } from '../../src/drift/heal.js';
import { summarizeRecord, type AgentVersion, type HistoryRecord, type RecordSummary } from '../../src/history/types.js';
import type { DriftReport } from '../../src/drift/types.js';
import type { FieldChange, Plan, ResourceChange } from '../../src/plan/types.js';
import { emptyWorkspace, hashApplied } from '../../src/state/types.js';
import { desiredAgent, desiredState } from '../helpers/desired.js';

const SALT = 's';

function version(id: string, prompt: string, extra: Partial<AgentVersion> = {}): AgentVersion {
  return { id, config: { prompt }, configHash: `sha256:${'0'.repeat(64)}`, maskedPaths: [], ...extra };
}

function record(id: string, agents: Record<string, AgentVersion>): HistoryRecord {
  return {
    id,
    workspace: 'default@local',
    at: '2026-11-28T12:00:00.000Z',
    by: 'ci@runner',
    command: 'voxform apply',
    outcome: 'applied',
    source: {},
    summary: { create: 0, update: 1, unchanged: 0, drifted: 0, applied: 1, failed: 0, skipped: 0 },
    agents,
  };
}

/** What the command does over whole records: the chooser over the ledger, then the plan of its choice. */
function healDesired(drift: DriftReport, records: readonly HistoryRecord[], options: Parameters<typeof healPlan>[2]): HealPlan | undefined {
  const chooser = new HealRecordChooser<HistoryRecord>(drift, 'voxform apply');
  for (const record of records) if (chooser.add(record)) break;
  const choice = chooser.choice();
  return healPlan(choice, choice.records, options);
}

/** Agents `a` (changed outside voxform) and `b` (in git, not applied yet), as drift reports them. */
function report() {
  const field = (before: string, after: string): FieldChange => ({ path: 'config.prompt', before, after, sensitive: false, drift: false });
  const change = (name: string, f: FieldChange): ResourceChange => ({
    address: `agent.${name}`,
    kind: 'agent',
    action: 'update',
    id: `-OK${name}`,
    before: null,
    after: null,
    fieldChanges: [f],
    sensitivePaths: [],
    reason: undefined,
    dependsOn: [],
    requests: [],
    liveFingerprint: 'f',
  });
  const workspace = emptyWorkspace();
  workspace.agents['agent.a'] = { id: '-OKa', applied: { 'config.prompt': hashApplied(SALT, 'A1') } };
  workspace.agents['agent.b'] = { id: '-OKb', applied: { 'config.prompt': hashApplied(SALT, 'B1') } };
  const plan: Plan = {
    formatVersion: 1,
    createdAt: '2026-11-28T12:00:00.000Z',
    manifestHash: 'sha256:0',
    files: [],
    environment: undefined,
    baseUrl: 'local',
    targets: [],
    changes: [change('a', field('dashboard', 'A1')), change('b', field('B1', 'B2'))],
    summary: { create: 0, update: 2, unchanged: 0, drifted: 0 },
  };
  return classifyDrift({ plan, workspace, salt: SALT, workspaceKey: 'default@local' });
}

const current = desiredState({ agents: [desiredAgent('a'), desiredAgent('b')], environmentVariables: ['HOOK_TOKEN'] });

describe('healDesired', () => {
  it('takes each agent changed outside voxform from the newest record holding it, and only those agents', () => {
    const records = [record('20261128T120000000Z-bbbbbb', { b: version('-OKb', 'B1') }), record('20261127T120000000Z-aaaaaa', { a: version('-OKa', 'A1'), b: version('-OKb', 'B0') })];
    const healing = healDesired(report(), records, { env: {}, current, fingerprintKey: SALT, applyCommand: 'voxform apply' });
    expect(healing?.records).toEqual(['20261127T120000000Z-aaaaaa']);
    expect([...(healing?.desired.agents.values() ?? [])].map((agent) => [agent.localName, agent.id, agent.config])).toEqual([['a', '-OKa', { prompt: 'A1' }]]);
    expect(healing?.desired.phones.size).toBe(0);
    expect(healing?.desired.environmentVariables).toEqual(['HOOK_TOKEN']);
  });

  it('refuses, changing nothing, when no record holds the agent under its current id', () => {
    for (const records of [[], [record('20261127T120000000Z-aaaaaa', { a: version('-OKother', 'A1') })]]) {
      expect(() => healDesired(report(), records, { env: {}, current, fingerprintKey: SALT, applyCommand: 'voxform apply' })).toThrow(expect.objectContaining({ code: 'drift_heal_unrecorded' }));
    }
  });

  it('has nothing to heal when nothing changed outside voxform', () => {
    const onlyPending = { ...report(), resources: report().resources.filter((r) => !r.healable) };
    expect(healDesired(onlyPending, [], { env: {}, current, fingerprintKey: SALT, applyCommand: 'voxform apply' })).toBeUndefined();
  });

  it('chooses from summaries newest first and says when the walk can stop; the plan from those records alone is the same', () => {
    const records = [
      record('20261129T120000000Z-cccccc', { b: version('-OKb', 'B2') }),
      record('20261128T120000000Z-bbbbbb', { a: version('-OKother', 'A9') }),
      record('20261127T120000000Z-aaaaaa', { a: version('-OKa', 'A1') }),
      record('20261126T120000000Z-999999', { a: version('-OKa', 'A0') }),
    ];
    const bothHealable = { ...report(), resources: report().resources.map((r) => ({ ...r, healable: true })) };
    const chooser = new HealRecordChooser<RecordSummary>(bothHealable, 'voxform apply');
    expect(records.slice(0, 3).map((whole) => chooser.add(summarizeRecord(whole)))).toEqual([false, false, true]);
    const choice = chooser.choice();
    expect(choice.records.map((summary) => summary.id)).toEqual(['20261129T120000000Z-cccccc', '20261127T120000000Z-aaaaaa']);
    expect(choice.agents.map(({ name, record }) => ({ name, record }))).toEqual([{ name: 'a', record: 1 }, { name: 'b', record: 0 }]);
    const chosen = [records[0], records[2]] as HistoryRecord[];
    const plan = healPlan(choice, chosen, { env: {}, current, fingerprintKey: SALT, applyCommand: 'voxform apply' });
    expect([plan?.records, [...(plan?.desired.agents.keys() ?? [])]]).toEqual([['20261129T120000000Z-cccccc', '20261127T120000000Z-aaaaaa'], ['a', 'b']]);
    expect(plan).toEqual(healDesired(bothHealable, records, { env: {}, current, fingerprintKey: SALT, applyCommand: 'voxform apply' }));
    // Nothing to heal: nothing to walk.
    expect(new HealRecordChooser(report(), 'voxform apply').complete).toBe(false);
    expect(new HealRecordChooser({ ...report(), resources: [] }, 'voxform apply').complete).toBe(true);
  });
});
