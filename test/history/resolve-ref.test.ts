import { describe, expect, it } from 'vitest';
import { isVoxformError } from '../../src/errors.js';
import { AgentNames } from '../../src/history/agent-names.js';
import { previousRecord, resolveHistoryRef } from '../../src/history/resolve-ref.js';
import type { AgentVersion, HistoryRecord } from '../../src/history/types.js';

const C1 = '1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const C2 = '2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const C3 = '2222222ccccccccccccccccccccccccccccccccc';

/** A version whose recorded configuration (what a rollback restores) is told by `label`. */
function version(label: string, id: string): AgentVersion {
  return { id, config: { prompt: label }, configHash: `sha256:${label}`, maskedPaths: [] };
}

function record(id: string, commit: string | undefined, agents: Record<string, string>, outcome = 'applied'): HistoryRecord {
  return {
    id,
    workspace: 'default@local',
    at: '',
    by: '',
    command: '',
    outcome,
    source: commit ? { commit } : {},
    summary: {} as HistoryRecord['summary'],
    // Each name its own agent: an agent is its id.
    agents: Object.fromEntries(Object.entries(agents).map(([name, hash]) => [name, version(hash, `ag-${name}`)])),
  };
}

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (isVoxformError(error)) return error.code;
    throw error;
  }
  return 'no error';
}

// Newest first, as HistoryStore.list returns them.
const v1 = record('20260101T100000000Z-aaaaaa', C1, { desk: 'h1', booking: 'b1' });
const v2 = record('20260102T100000000Z-bbbbbb', C2, { desk: 'h2', booking: 'b1' });
const v2again = record('20260103T100000000Z-cccccc', C2, { desk: 'h2', booking: 'b1' }, 'nothing_to_do');
const records = [v2again, v2, v1];

describe('previous', () => {
  it('is the last complete configuration that differs from the current one, passing over applies with nothing to do', () => {
    expect(resolveHistoryRef(records, 'previous')).toBe(v1);
  });

  it('passes over failed and interrupted records', () => {
    const failed = record('20260101T200000000Z-dddddd', C1, { desk: 'h9', booking: 'b1' }, 'failed');
    expect(previousRecord([v2, failed, v1])).toBe(v1);
  });

  it('with --agent, is the version before the current one of that agent', () => {
    const v3 = record('20260104T100000000Z-eeeeee', C3, { desk: 'h2', booking: 'b3' });
    expect(previousRecord([v3, ...records], ['booking'])).toBe(v2again);
    expect(previousRecord([v3, ...records], ['desk'])).toBe(v1);
  });

  it('passes over a record that differs only in what a rollback does not restore (a knowledge file\'s content, in the live hash alone)', () => {
    const temperature = (id: string, value: number, liveHash: string) => {
      const r = record(id, C1, { desk: 'x' });
      r.agents.desk = { id: 'ag', config: { llm: { temperature: value } }, knowledge: ['faq'], configHash: liveHash, maskedPaths: [] };
      return r;
    };
    const first = temperature('20260101T100000000Z-111111', 0.4, 'sha256:a');
    const second = temperature('20260102T100000000Z-222222', 0.3, 'sha256:b');
    const knowledgeChanged = temperature('20260103T100000000Z-333333', 0.3, 'sha256:c');
    expect(previousRecord([knowledgeChanged, second, first])).toBe(first);
    // After that rollback, `previous` is the configuration it replaced.
    const rollback = temperature('20260104T100000000Z-444444', 0.4, 'sha256:d');
    rollback.source = { commit: C1, rollbackOf: first.id };
    expect(previousRecord([rollback, knowledgeChanged, second, first])).toBe(knowledgeChanged);
  });

  it('counts a changed ${env:} reference as a new version, though the live hash masks the secret', () => {
    const withReference = (id: string, reference: string) => {
      const r = record(id, C1, { desk: 'same-hash' });
      (r.agents.desk as AgentVersion).config = { session_data_webhook: { headers: { 'x-token': reference } } };
      return r;
    };
    const older = withReference('20260101T100000000Z-111111', '${env:OLD_TOKEN}');
    const newer = withReference('20260102T100000000Z-222222', '${env:NEW_TOKEN}');
    expect(previousRecord([newer, older])).toBe(older);
  });

  it('is a whole configuration after a heal: the heal holds the healed agent alone, so the apply it healed back to is returned to', () => {
    // v1 applied; front desk changed on the dashboard and healed back to v1; v2 applied to both agents.
    const heal = record('20260101T200000000Z-dddddd', C1, { desk: 'h1' });
    heal.source = { commit: C1, healOf: [v1.id] };
    const v2both = record('20260102T100000000Z-eeeeee', C2, { desk: 'h2', booking: 'b2' });
    expect(previousRecord([v2both, heal, v1])).toBe(v1);
    // Asked for one agent, the heal is passed over too: it made no configuration of its own.
    expect(previousRecord([v2both, heal, v1], ['desk'])).toBe(v1);
  });

  it('passes over a rollback of some agents, which left the others on a newer configuration, unless only those agents are asked for', () => {
    const v2both = record('20260102T100000000Z-eeeeee', C2, { desk: 'h2', booking: 'b2' });
    const deskBack = record('20260102T200000000Z-ffffff', C2, { desk: 'h1' });
    deskBack.source = { commit: C2, rollbackOf: v1.id };
    const v3 = record('20260103T100000000Z-999999', C3, { desk: 'h3', booking: 'b3' });
    expect(previousRecord([v3, deskBack, v2both, v1])).toBe(v2both);
    expect(previousRecord([v3, deskBack, v2both, v1], ['desk'])).toBe(deskBack);
    // A rollback of every agent the restored record holds is a whole configuration.
    const allBack = record('20260102T200000000Z-ffffff', C2, { desk: 'h1', booking: 'b1' });
    allBack.source = { commit: C2, rollbackOf: v1.id };
    expect(previousRecord([v3, allBack, v2both, v1])).toBe(allBack);
  });

  it('passes over a rollback to a failed apply: it holds the agents that apply wrote, beside others that kept what they ran', () => {
    const v2both = record('20260102T100000000Z-eeeeee', C2, { desk: 'h2', booking: 'b2' });
    // v3 failed on booking: its record holds desk alone.
    const v3failed = record('20260103T100000000Z-333333', C3, { desk: 'h3' }, 'failed');
    const toFailed = record('20260103T200000000Z-444444', C3, { desk: 'h3' });
    toFailed.source = { commit: C3, rollbackOf: v3failed.id };
    const v4 = record('20260104T100000000Z-555555', C3, { desk: 'h4', booking: 'b4' });
    // desk h3 never ran beside booking b4, nor beside b2 as a configuration voxform recorded whole.
    expect(previousRecord([v4, toFailed, v3failed, v2both, v1])).toBe(v2both);
    // A rollback that names itself ends the walk.
    const selfNamed = record('20260103T200000000Z-666666', C3, { desk: 'h3', booking: 'b3' });
    selfNamed.source = { commit: C3, rollbackOf: selfNamed.id };
    expect(previousRecord([v4, selfNamed, v2both, v1])).toBe(selfNamed);
  });

  it('with --agent, finds that agent by the id its name has now: across two swapped keys, and never the agent a name stood for before', () => {
    // v2 changes the desk agent (a1); then the keys are swapped, ids kept: `booking` is the desk agent now.
    const agents = (desk: string, booking: string) => ({ reception: desk, booking });
    const v1 = record('20260101T100000000Z-aaaaaa', C1, agents('d1', 'b1'));
    const v2 = record('20260102T100000000Z-bbbbbb', C2, agents('d2', 'b1'));
    const swapped = record('20260103T100000000Z-cccccc', C3, {});
    swapped.agents = { reception: version('b1', 'ag-booking'), booking: version('d2', 'ag-reception') };
    const manifests: Array<[string, string]> = [['reception', 'ag-booking'], ['booking', 'ag-reception']];
    const names = new AgentNames([swapped, v2, v1], manifests);
    expect(previousRecord([swapped, v2, v1], ['booking'], 'voxform history', names)).toBe(v1);
    expect(codeOf(() => previousRecord([swapped, v2, v1], ['reception'], 'voxform history', names))).toBe('history_ref_unknown');
    // `booking:` given another `id:`: the records hold another agent under that name, none the agent it names now.
    const adopted = new AgentNames([v2, v1], [['reception', 'ag-reception'], ['booking', 'ag-new']]);
    expect(() => previousRecord([v2, v1], ['booking'], 'voxform history', adopted)).toThrow('No history record of this workspace holds agent "booking" ("booking" is agent ag-new now; the "booking" recorded is another agent, ag-booking: its `id:` changed since');
  });

  it('fails clearly when there is nothing earlier', () => {
    expect(codeOf(() => previousRecord([v2]))).toBe('history_ref_unknown');
    expect(codeOf(() => previousRecord([]))).toBe('history_ref_unknown');
    expect(codeOf(() => previousRecord(records, ['reception']))).toBe('rollback_agent_not_recorded');
  });
});

describe('ids and commits', () => {
  it('finds a record by its id or a unique prefix of it', () => {
    expect(resolveHistoryRef(records, v2.id)).toBe(v2);
    expect(resolveHistoryRef(records, '20260102T')).toBe(v2);
    expect(codeOf(() => resolveHistoryRef(records, '202601'))).toBe('history_ref_ambiguous');
  });

  it('finds a commit by its full id or a prefix of 7 or more, preferring the newest complete record of it', () => {
    expect(resolveHistoryRef(records, C1)).toBe(v1);
    expect(resolveHistoryRef(records, C1.slice(0, 7).toUpperCase())).toBe(v1);
    expect(resolveHistoryRef(records, C2.slice(0, 8))).toBe(v2again);
    const failedNewest = record('20260105T100000000Z-ffffff', C1, { desk: 'h5' }, 'failed');
    expect(resolveHistoryRef([failedNewest, ...records], C1.slice(0, 7))).toBe(v1);
  });

  it('passes over rollbacks run at the commit: their record carries the commit checked out, but holds another record\'s configuration', () => {
    const rollbackToV1 = { ...record('20260104T100000000Z-eeeeee', C2, { desk: 'h1', booking: 'b1' }), source: { commit: C2, rollbackOf: v1.id } };
    expect(resolveHistoryRef([rollbackToV1, ...records], C2.slice(0, 7))).toBe(v2again);
    expect(resolveHistoryRef([rollbackToV1, v2, v1], C2)).toBe(v2);
  });

  it('prefers an apply of the commit alone to a newer one made with uncommitted changes, and takes that one when there is no other', () => {
    const edited = { ...record('20260104T100000000Z-eeeeee', C1, { desk: 'h9' }), source: { commit: C1, uncommitted: true } };
    expect(resolveHistoryRef([edited, ...records], C1.slice(0, 7))).toBe(v1);
    const onlyEdited = { ...record('20260104T100000000Z-eeeeee', C3, { desk: 'h9' }), source: { commit: C3, uncommitted: true } };
    expect(resolveHistoryRef([onlyEdited, ...records], C3)).toBe(onlyEdited);
  });

  it('refuses a commit that only rollbacks ran at: no record holds its manifests\' configuration', () => {
    const onlyRollback = { ...record('20260104T100000000Z-eeeeee', C3, { desk: 'h1' }), source: { commit: C3, rollbackOf: v1.id } };
    expect(codeOf(() => resolveHistoryRef([onlyRollback, ...records], C3.slice(0, 9)))).toBe('history_ref_unknown');
  });

  it('refuses a prefix of two commits, a prefix shorter than 7, an empty and an unknown reference', () => {
    const withC3 = [record('20260104T100000000Z-eeeeee', C3, { desk: 'h3' }), ...records];
    expect(codeOf(() => resolveHistoryRef(withC3, '2222222'))).toBe('history_ref_ambiguous');
    expect(codeOf(() => resolveHistoryRef(records, '111111'))).toBe('history_ref_unknown');
    expect(codeOf(() => resolveHistoryRef(records, ''))).toBe('history_ref_unknown');
    expect(codeOf(() => resolveHistoryRef(records, 'deadbeef'))).toBe('history_ref_unknown');
  });

  it('refuses a reference that is both an id prefix and a commit prefix', () => {
    const clash = record('20260106T100000000Z-abcdef', '2026010aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', { desk: 'h6' });
    expect(codeOf(() => resolveHistoryRef([clash, ...records], '2026010'))).toBe('history_ref_ambiguous');
  });
});

describe('the command a refusal names to list the records', () => {
  function hintOf(action: () => unknown): string | undefined {
    try {
      action();
    } catch (error) {
      if (isVoxformError(error)) return error.hint;
      throw error;
    }
    return undefined;
  }
  const listing = 'voxform history -f p.yaml --env staging';

  it('is the one the caller passes, for an unknown ref, no earlier configuration and a commit seen only in rollbacks', () => {
    expect(hintOf(() => resolveHistoryRef(records, 'nope', [], listing))).toContain(`List the records with \`${listing}\`;`);
    expect(hintOf(() => resolveHistoryRef([v1], 'previous', [], listing))).toContain(`List the records with \`${listing}\`;`);
    const rollback = { ...record('20260104T100000000Z-dddddd', C3, { desk: 'h1' }), source: { commit: C3, rollbackOf: v1.id } };
    expect(hintOf(() => resolveHistoryRef([rollback, ...records], C3.slice(0, 12), [], listing))).toContain(`(\`${listing}\` lists them)`);
  });

  it('is `voxform history` by default', () => {
    expect(hintOf(() => resolveHistoryRef(records, 'nope'))).toContain('List the records with `voxform history`;');
  });
});

describe('previous over a planted ledger', () => {
  /** `target` behind a proxy that counts every property read into `reads.count`. */
  const counted = <T extends object>(target: T, reads: { count: number }): T => new Proxy(target, { get: (...args) => (reads.count++, Reflect.get(...args)), getOwnPropertyDescriptor: (...args) => (reads.count++, Reflect.getOwnPropertyDescriptor(...args)) });
  const idAt = (i: number) => `20261123T${String(100000000 + i).padStart(9, '0')}Z-aaaaaa`;

  it('walks a chain of rollbacks of rollbacks once, however many of its records are passed over', () => {
    const reads = { count: 0 };
    // Oldest first: desk v0, then rollbacks, each to the record before, all holding v1: deeper than a call stack goes.
    const CHAIN = 20_001;
    const oldestFirst = Array.from({ length: CHAIN }, (_, i) => {
      const made = record(idAt(i), undefined, { desk: i === 0 ? 'v0' : 'v1' });
      if (i > 0) made.source = { rollbackOf: idAt(i - 1) };
      return counted(made, reads);
    });
    expect(previousRecord(oldestFirst.reverse()).id).toBe(idAt(0));
    // A few dozen reads per record, not one per record for each step of each chain.
    expect(reads.count).toBeLessThan(50 * CHAIN);
  });

  it('asks each record of the names its own agents have, not of every agent the ledger holds', () => {
    const reads = { count: 0 };
    const newestFirst = Array.from({ length: 2_000 }, (_, i) => {
      const made = record(idAt(i), undefined, { [`agent-${i}`]: 'v1' });
      made.agents = counted(made.agents, reads);
      return made;
    }).reverse();
    // Each agent's one version is its current one: there is nothing to roll back to.
    expect(codeOf(() => previousRecord(newestFirst))).toBe('history_ref_unknown');
    expect(reads.count).toBeLessThan(50 * 2_000);
  });
});
