import { describe, expect, it } from 'vitest';
import { historyEntries, renderHistoryJson, renderHistoryText, testRunEntries, testRunTally } from '../../src/history/render.js';
import { recordedAgent, type HistoryRecord, type TestRunRecord } from '../../src/history/types.js';

function record(id: string, agents: Record<string, string>, extra: Partial<HistoryRecord> = {}): HistoryRecord {
  return {
    id,
    workspace: 'default@local',
    at: '2026-11-23T12:00:00.000Z',
    by: 'dev@laptop',
    command: 'voxform apply',
    outcome: 'applied',
    source: { commit: 'abcdef0123456789abcdef0123456789abcdef01', branch: 'main', pullRequest: 12, ciJobUrl: 'https://ci.example.com/run/1' },
    summary: { create: 0, update: 1, unchanged: 1, drifted: 0, applied: 1, failed: 0, skipped: 0 },
    agents: Object.fromEntries(Object.entries(agents).map(([name, hash]) => [name, { id: `ag-${name}`, config: { prompt: 'hi' }, configHash: hash, maskedPaths: [] }])),
    ...extra,
  };
}

/** The agents `changer` changed, against `older` (the records before it, newest first). */
function agentsChanged(changer: HistoryRecord, older: readonly HistoryRecord[]): string[] | undefined {
  return historyEntries([changer, ...older], { limit: 1 })[0]?.agentsChanged;
}

const older = record('20261123T110000000Z-aaaaaa', { desk: 'h1', booking: 'b1' });
const newer = record('20261123T120000000Z-bbbbbb', { desk: 'h2', booking: 'b1' }, { source: { rollbackOf: older.id } });

describe('history renderers', () => {
  it('names the agents whose hash differs from the next older record holding them', () => {
    expect(agentsChanged(newer, [older])).toEqual(['desk']);
    expect(agentsChanged(older, [])).toEqual(['booking', 'desk']);
  });

  it('names no agent as changed by a record that wrote nothing, with or without an older record to compare with', () => {
    const nothing = { create: 0, update: 0, unchanged: 2, drifted: 0, applied: 0, failed: 0, skipped: 0 };
    const idle = record('20261123T130000000Z-cccccc', { desk: 'h3', booking: 'b1' }, { outcome: 'nothing_to_do', summary: nothing });
    expect(agentsChanged(idle, [])).toEqual([]);
    expect(agentsChanged(idle, [newer, older])).toEqual([]);
    expect(renderHistoryText(historyEntries([idle]), 'default@local')).toContain('0 applied, 0 failed, 0 skipped\n  agents changed: none\n');
    // A newer record compares with it all the same: it holds the agents as they ran.
    expect(agentsChanged(record('20261123T140000000Z-dddddd', { desk: 'h3', booking: 'b2' }), [idle, newer, older])).toEqual(['booking']);
    // A write that failed may have reached the service: its record is compared as any other.
    const failed = record('20261123T130000000Z-cccccc', { desk: 'h3' }, { outcome: 'failed', summary: { ...nothing, update: 1, unchanged: 1, failed: 1 } });
    expect(agentsChanged(failed, [newer, older])).toEqual(['desk']);
  });

  it('says of the first record that wrote something that it counts every agent, and of no later record', () => {
    const text = renderHistoryText(historyEntries([newer, older]), 'default@local');
    expect(text).toContain('agents changed: booking, desk (first record: every agent)\n');
    expect(text).toContain('agents changed: desk\n');
    const added = record('20261123T130000000Z-cccccc', { desk: 'h2', booking: 'b1', front: 'f1' });
    expect(renderHistoryText(historyEntries([added, newer, older], { limit: 1 }), 'default@local')).toContain('agents changed: front\n');
  });

  it('names every agent a heal put back, though its version is the one recorded before', () => {
    const heal = record('20261123T130000000Z-cccccc', { desk: 'h2' }, { command: 'voxform drift --heal', source: { healOf: [newer.id] } });
    expect(agentsChanged(heal, [newer, older])).toEqual(['desk']);
    expect(historyEntries([heal, newer, older], { limit: 1 })[0]?.agentsChanged).toEqual(['desk']);
    expect(renderHistoryText(historyEntries([heal, newer, older]), 'default@local')).toContain(`heal of drift: back to ${newer.id}\n  plan 0 to create, 1 to update, 1 unchanged; 1 applied, 0 failed, 0 skipped\n  agents changed: desk\n`);
  });

  it('names an agent whose recorded configuration changed under the same hash (a ${env:…} reference renamed), as rollback counts it', () => {
    const before = record('20261123T110000000Z-aaaaaa', { desk: 'h1' });
    const renamed = record('20261123T120000000Z-bbbbbb', { desk: 'h1' });
    (renamed.agents.desk as { config: Record<string, unknown> }).config = { prompt: 'hi', headers: { 'x-token': '${env:TOKEN_B}' } };
    expect(agentsChanged(renamed, [before])).toEqual(['desk']);
    expect(agentsChanged(record('20261123T130000000Z-cccccc', { desk: 'h1' }), [before])).toEqual([]);
  });

  it('takes only a record\'s own agents: toString and constructor are agent names like any other', () => {
    const plain = record('20261123T110000000Z-aaaaaa', { desk: 'h1' });
    const named = record('20261123T120000000Z-bbbbbb', { toString: 'h1', desk: 'h1' });
    expect(agentsChanged(named, [plain])).toEqual(['toString']);
    expect(recordedAgent(plain, 'toString')).toBeUndefined();
    expect(recordedAgent(plain, 'constructor')).toBeUndefined();
    expect(recordedAgent(named, 'toString')?.configHash).toBe('h1');
  });

  it('names what a record changed against the whole history before it, whatever --limit and --agent show', () => {
    // Three agents with names an object has anyway; v1; all v2; a rollback of one, then of another; an apply of v2 again.
    const all = (hash: string) => ({ constructor: hash, toString: hash, hasOwnProperty: hash });
    const v1 = record('20261123T100000000Z-aaaaaa', all('v1'));
    const v2 = record('20261123T110000000Z-bbbbbb', all('v2'));
    const backConstructor = record('20261123T120000000Z-cccccc', { constructor: 'v1' });
    const backToString = record('20261123T130000000Z-dddddd', { toString: 'v1' });
    const again = record('20261123T140000000Z-eeeeee', all('v2'));
    const history = [again, backToString, backConstructor, v2, v1];
    const changedOfNewest = (options: { agent?: string; limit?: number }) => historyEntries(history, options)[0]?.agentsChanged;
    for (const options of [{}, { limit: 1 }, { limit: 2 }, { limit: 5 }, { agent: 'constructor' }, { agent: 'toString', limit: 1 }, { agent: 'hasOwnProperty' }]) {
      expect(changedOfNewest(options), JSON.stringify(options)).toEqual(['constructor', 'toString']);
    }
    expect(historyEntries(history, { agent: 'constructor' }).map((entry) => entry.record.id)).toEqual([again.id, backConstructor.id, v2.id, v1.id]);
    expect(historyEntries(history, { agent: 'hasOwnProperty', limit: 2 }).map((entry) => entry.agentsChanged)).toEqual([['constructor', 'toString'], ['constructor', 'hasOwnProperty', 'toString']]);
  });

  it('prints each record with who, the short commit, branch and pull request, outcome, summary and agents changed', () => {
    const text = renderHistoryText(historyEntries([older]), 'default@local');
    expect(text).toContain('20261123T110000000Z-aaaaaa  2026-11-23T12:00:00.000Z  applied');
    expect(text).toContain('by dev@laptop, commit abcdef0 on main (PR #12)');
    expect(text).toContain('job https://ci.example.com/run/1');
    expect(text).toContain('plan 0 to create, 1 to update, 1 unchanged; 1 applied, 0 failed, 0 skipped');
    expect(text).toContain('agents changed: booking, desk');
    expect(renderHistoryText(historyEntries([newer, older], { limit: 1 }), 'default@local')).toContain(`rollback to ${older.id}`);
  });

  it('counts the partly applied and not applied changes of a stopped run as apply did; a record older than those counts reads as before', () => {
    const stopped = record('20261123T130000000Z-dddddd', { desk: 'h3' }, {
      outcome: 'interrupted',
      summary: { create: 3, update: 4, unchanged: 0, drifted: 0, applied: 3, partlyApplied: 2, failed: 0, skipped: 0, notApplied: 2 },
    });
    expect(renderHistoryText(historyEntries([stopped]), 'default@local')).toContain('plan 3 to create, 4 to update, 0 unchanged; 3 applied, 2 partly applied, 0 failed, 0 skipped, 2 not applied\n');
    const oldInterrupted = { ...stopped, summary: { create: 3, update: 4, unchanged: 0, drifted: 0, applied: 3, failed: 0, skipped: 0 } };
    expect(renderHistoryText(historyEntries([oldInterrupted]), 'default@local')).toContain('; 3 applied, 0 failed, 0 skipped\n');
    const json = (entry: HistoryRecord) => JSON.parse(renderHistoryJson(historyEntries([entry]), 'default@local')).records[0].summary;
    expect(json(stopped)).toEqual({ create: 3, update: 4, unchanged: 0, drifted: 0, applied: 3, partly_applied: 2, failed: 0, skipped: 0, not_applied: 2 });
    expect(json(oldInterrupted)).toMatchObject({ partly_applied: null, not_applied: null });
  });

  it('sets a rollback, a heal and a promotion off from the commit it came from with "; "', () => {
    const source = { commit: older.source.commit, branch: 'master' };
    const line = (extra: Partial<HistoryRecord['source']>) => renderHistoryText(historyEntries([record('20261123T130000000Z-dddddd', { desk: 'h3' }, { source: { ...source, ...extra } })]), 'default@local');
    expect(line({ healOf: ['desk'] })).toContain('commit abcdef0 on master; heal of drift: back to desk\n');
    expect(line({ rollbackOf: older.id })).toContain(`commit abcdef0 on master; rollback to ${older.id}\n`);
    expect(line({ promotedFrom: { workspace: 'staging@local', record: older.id } })).toContain(`commit abcdef0 on master; promoted from staging@local record ${older.id}\n`);
  });

  it('says when a record was applied from a work tree with uncommitted changes, in text and JSON', () => {
    const dirty = record('20261123T130000000Z-dddddd', { desk: 'h3' }, { source: { ...older.source, uncommitted: true } });
    expect(renderHistoryText(historyEntries([dirty]), 'default@local')).toContain('commit abcdef0 with uncommitted changes on main (PR #12)');
    expect(renderHistoryText(historyEntries([older]), 'default@local')).not.toContain('uncommitted');
    const document = JSON.parse(renderHistoryJson(historyEntries([dirty, older]), 'default@local'));
    expect(document.records.map((entry: { source: { uncommitted: unknown } }) => entry.source.uncommitted)).toEqual([true, null]);
  });

  it('never prints a control character from a record', () => {
    const hostile = record('20261123T130000000Z-cccccc', { desk: 'h3' }, { by: 'x\u001b[31m@y', source: { branch: 'b\u0007' } });
    const text = renderHistoryText(historyEntries([hostile]), 'default@local');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(text).toContain('x?[31m@y');
  });

  it('says when there is nothing, and when nothing holds the agent asked for', () => {
    expect(renderHistoryText([], 'default@local')).toContain('No history for default@local yet');
    expect(renderHistoryText([], 'default@local', 'desk')).toContain('No record of default@local holds agent "desk"');
  });

  it('writes JSON in snake_case with nulls for what is unknown', () => {
    const document = JSON.parse(renderHistoryJson(historyEntries([newer, older], { limit: 1 }), 'default@local'));
    expect(document.format_version).toBe('1.1');
    expect(document.records).toHaveLength(1);
    expect(document.records[0].source).toEqual({ commit: null, branch: null, pull_request: null, ci_job_url: null, uncommitted: null, rollback_of: older.id, heal_of: null, promoted_from: null });
    expect(document.records[0].agents_changed).toEqual(['desk']);
    expect(document.records[0].keys_moved).toEqual([]);
    expect(document.records[0].agents.desk).toEqual({ id: 'ag-desk', name: null, config: { prompt: 'hi' }, knowledge: null, config_hash: 'h2', masked_paths: [], prompt_length: null, unrecorded_secrets: [] });
  });

  it('shows a promotion\'s source, and the test runs after the applies, each failing test by name', () => {
    const promoted = record('20261123T130000000Z-cccccc', { desk: 'h3' }, { source: { commit: 'abcdef0123456789abcdef0123456789abcdef01', promotedFrom: { workspace: 'staging@local', record: older.id } } });
    const run: TestRunRecord = {
      id: '20261123T140000000Z-dddddd',
      workspace: 'default@local',
      at: '2026-11-23T14:00:00.000Z',
      by: 'dev@laptop',
      command: 'voxform test --against live',
      source: { commit: 'abcdef0123456789abcdef0123456789abcdef01', uncommitted: false },
      agents: { desk: { id: 'ag-desk', configHash: `sha256:${'c'.repeat(64)}` } },
      summary: { passed: 1, failed: 1, skipped: 0, errors: 0 },
      tests: [
        { file: 'tests/desk.test.yaml', agent: 'desk', name: 'greets', status: 'passed', passes: 2, runs: 2, passRate: 1 },
        { file: 'tests/desk.test.yaml', agent: 'desk', name: 'books \u001b[31m', status: 'failed', passes: 1, runs: 2, passRate: 1 },
      ],
    };
    const text = renderHistoryText(historyEntries([promoted]), 'default@local', undefined, testRunEntries([run], { agent: 'desk' }));
    // An error is counted in its own words, one or more.
    expect(testRunTally({ summary: { passed: 0, failed: 0, skipped: 0, errors: 1 } })).toBe('0 passed, 0 failed, 1 error');
    expect(testRunTally({ summary: { passed: 0, failed: 0, skipped: 0, errors: 2 } })).toBe('0 passed, 0 failed, 2 errors');
    expect(text).toContain(`  by dev@laptop, commit abcdef0; promoted from staging@local record ${older.id}\n`);
    expect(text).toContain(
      [
        'Test runs against the live agents, newest first:',
        '',
        '20261123T140000000Z-dddddd  2026-11-23T14:00:00.000Z  1 passed, 1 failed',
        '  by dev@laptop, tests of commit abcdef0',
        '  agents: desk cccccccccccc',
        '  failed: tests/desk.test.yaml › books ?[31m (1/2 passed)',
        '',
      ].join('\n'),
    );
    expect(testRunEntries([run], { agent: 'booking' })).toEqual([]);
    const document = JSON.parse(renderHistoryJson(historyEntries([promoted]), 'default@local', [run]));
    expect(document.records[0].source.promoted_from).toEqual({ workspace: 'staging@local', record: older.id });
    expect(document.test_runs[0]).toMatchObject({ id: run.id, commit: run.source.commit, summary: run.summary, agents: { desk: { id: 'ag-desk', config_hash: run.agents.desk?.configHash } } });
    expect(document.test_runs[0].tests[1]).toEqual({ file: 'tests/desk.test.yaml', agent: 'desk', name: 'books \u001b[31m', status: 'failed', passes: 1, runs: 2, pass_rate: 1 });
  });

  it("a test run's summary shows the counts it knows, not what else a committed record's summary holds", () => {
    const summary = { passed: 1, failed: 0, skipped: 0, errors: 0, padding: 'x'.repeat(1000) };
    const run: TestRunRecord = {
      id: '20261123T140000000Z-eeeeee',
      workspace: 'default@local',
      at: '2026-11-23T14:00:00.000Z',
      by: 'dev@laptop',
      command: 'voxform test',
      source: {},
      agents: {},
      summary,
      tests: [],
    };
    const document = JSON.parse(renderHistoryJson([], 'default@local', [run]));
    expect(document.test_runs[0].summary).toEqual({ passed: 1, failed: 0, skipped: 0, errors: 0 });
  });
});

describe('the keys a record moved', () => {
  it('are found with a few listings of the record before, however many keys moved: a planted record of thousands of renamed keys stays linear', () => {
    const before = record('20261123T110000000Z-aaaaaa', {});
    const after = record('20261123T120000000Z-bbbbbb', {});
    const plain: HistoryRecord['agents'] = {};
    for (let i = 0; i < 2_000; i++) {
      plain[`old-${i}`] = { id: `ag-${i}`, config: { prompt: 'hi' }, configHash: 'h', maskedPaths: [] };
      after.agents[`new-${i}`] = { id: `ag-${i}`, config: { prompt: 'hi' }, configHash: 'h', maskedPaths: [] };
    }
    let listings = 0;
    before.agents = new Proxy(plain, {
      ownKeys(target) {
        listings++;
        return Reflect.ownKeys(target);
      },
    });
    const [entry] = historyEntries([after, before]);
    expect(entry?.keysMoved).toHaveLength(2_000);
    expect(entry?.keysMoved.find((move) => move.to === 'new-7')).toEqual({ from: 'old-7', to: 'new-7' });
    // A few listings in all (the record's index by id, its entries), not one per key moved.
    expect(listings).toBeLessThan(10);
  });
});

/** `agents` behind a proxy that counts every look at them into `looks.count`. */
function counted(agents: HistoryRecord['agents'], looks: { count: number }): HistoryRecord['agents'] {
  return new Proxy(agents, {
    get: (...args) => (looks.count++, Reflect.get(...args)),
    ownKeys: (target) => (looks.count++, Reflect.ownKeys(target)),
    getOwnPropertyDescriptor: (...args) => (looks.count++, Reflect.getOwnPropertyDescriptor(...args)),
  });
}

describe('the walk of the records', () => {
  it('looks at each record a few times, however many entries are shown: a planted ledger of thousands of records, each an agent no older record holds, stays linear', () => {
    const looks = { count: 0 };
    const records = Array.from({ length: 2_000 }, (_, i) => {
      const made = record(`20261123T${String(100000000 + i).padStart(9, '0')}Z-aaaaaa`, { [`agent-${i}`]: 'h' });
      made.agents = counted(made.agents, looks);
      return made;
    }).reverse();
    const entries = historyEntries(records, { limit: 1_000_000 });
    expect(entries).toHaveLength(2_000);
    expect(entries[0]?.agentsChanged).toEqual(['agent-1999']);
    expect(entries[1_999]?.first).toBe(true);
    // A few dozen looks per record, not one per record for each entry shown before it.
    expect(looks.count).toBeLessThan(50 * 2_000);
  });
});
