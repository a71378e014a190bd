import { describe, expect, it } from 'vitest';
import { historyRecordProblem } from '../../src/history/check-record.js';
import type { HistoryRecord } from '../../src/history/types.js';

const HASH = `sha256:${'0a'.repeat(32)}`;

function valid(): HistoryRecord {
  return {
    id: '20261123T120501123Z-3f9a2c',
    workspace: 'default@local',
    at: '2026-11-23T12:05:01.123Z',
    by: 'dev@laptop',
    command: 'voxform rollback previous --agent front-desk',
    outcome: 'applied',
    source: { commit: 'a'.repeat(40), branch: 'main', pullRequest: 12, ciJobUrl: 'https://ci.example.com/run/1', rollbackOf: '20261123T110000000Z-aaaaaa' },
    summary: { create: 0, update: 1, unchanged: 2, drifted: 0, applied: 1, failed: 0, skipped: 0 },
    agents: {
      'front-desk': { id: '-OKdqbqetEcM4ak369ym', name: 'Front desk', config: { prompt: 'Hi\n\tthere' }, knowledge: ['faq'], configHash: HASH, maskedPaths: ['tools.0.header.authorization'], promptLength: 9, unrecordedSecrets: [] },
      toString: { id: 'ag2', config: {}, configHash: HASH, maskedPaths: [] },
    },
  };
}

/** The valid record with one change made to a copy of it. */
function changed(change: (record: Record<string, any>) => void): unknown {
  const record = structuredClone(valid()) as Record<string, any>;
  change(record);
  return record;
}

describe('historyRecordProblem', () => {
  it('accepts what voxform writes, optional fields left out, and fields a later version adds', () => {
    expect(historyRecordProblem(valid())).toBeUndefined();
    expect(historyRecordProblem(changed((r) => (r.source = {})))).toBeUndefined();
    expect(historyRecordProblem(changed((r) => (r.at = '2026-11-23T12:05:01Z')))).toBeUndefined();
    expect(historyRecordProblem(changed((r) => (r.agents = {})))).toBeUndefined();
    expect(historyRecordProblem(changed((r) => (r.later = { any: 'thing' })))).toBeUndefined();
  });

  it('refuses what is not a JSON object', () => {
    for (const value of [null, [], 'record', 1]) expect(historyRecordProblem(value)).toBe('not a JSON object');
  });

  it.each([
    { name: 'an id of another form', change: (r: any) => (r.id = '../../etc'), problem: 'id: not a record id' },
    { name: 'no workspace', change: (r: any) => delete r.workspace, problem: 'workspace: not a workspace' },
    { name: 'an escape sequence after the time', change: (r: any) => (r.at = '2026-11-23T12:05:01.123Z\u001b[31mRED'), problem: 'at: not a time (ISO 8601, UTC)' },
    { name: 'a time no date has', change: (r: any) => (r.at = '2026-13-45T12:05:01Z'), problem: 'at: not a time (ISO 8601, UTC)' },
    { name: 'a number for by', change: (r: any) => (r.by = 7), problem: 'by: not text' },
    { name: 'an unknown outcome', change: (r: any) => (r.outcome = 'done'), problem: 'outcome: not applied, failed, interrupted or nothing_to_do' },
    { name: 'a null source', change: (r: any) => (r.source = null), problem: 'source: not an object' },
    { name: 'a number for a commit', change: (r: any) => (r.source.commit = 1234567), problem: 'source.commit: not a commit id (40 or 64 hex digits)' },
    { name: 'a terminal title in the branch', change: (r: any) => (r.source.branch = 'main\u001b]0;pwned\u0007'), problem: 'source.branch: not a branch name' },
    { name: 'a pull request of zero', change: (r: any) => (r.source.pullRequest = 0), problem: 'source.pullRequest: not a request number' },
    { name: 'a job link with a password', change: (r: any) => (r.source.ciJobUrl = 'https://u:p@ci.example.com/'), problem: 'source.ciJobUrl: not an http(s) link' },
    { name: 'uncommitted changes as text', change: (r: any) => (r.source.uncommitted = 'yes'), problem: 'source.uncommitted: not true or false' },
    { name: 'a rollback of something not a record', change: (r: any) => (r.source.rollbackOf = 'previous'), problem: 'source.rollbackOf: not a record id' },
    { name: 'an empty summary', change: (r: any) => (r.summary = {}), problem: 'summary.create: not a count' },
    { name: 'a negative count', change: (r: any) => (r.summary.skipped = -1), problem: 'summary.skipped: not a count' },
    { name: 'a later count that is not one', change: (r: any) => (r.summary.notApplied = '2'), problem: 'summary.notApplied: not a count' },
    { name: 'agents as a list', change: (r: any) => (r.agents = []), problem: 'agents: not an object' },
    { name: 'a null agent', change: (r: any) => (r.agents['front-desk'] = null), problem: 'agents.front-desk: not an object' },
    { name: 'an agent name with an escape', change: (r: any) => (r.agents['x\u001b[2J'] = r.agents['front-desk']), problem: 'agents: "x\\u001b[2J" is not an agent name' },
    { name: 'an empty agent id', change: (r: any) => (r.agents['front-desk'].id = ''), problem: 'agents.front-desk.id: not an agent id' },
    { name: 'a config that is text', change: (r: any) => (r.agents['front-desk'].config = 'str'), problem: 'agents.front-desk.config: not an object' },
    { name: 'knowledge that is not names', change: (r: any) => (r.agents['front-desk'].knowledge = [1]), problem: 'agents.front-desk.knowledge: not a list of names' },
    { name: 'no hash', change: (r: any) => delete r.agents['front-desk'].configHash, problem: 'agents.front-desk.configHash: not a sha256: hash' },
    { name: 'masked paths left out', change: (r: any) => delete r.agents.toString.maskedPaths, problem: 'agents.toString.maskedPaths: not a list of paths' },
    { name: 'a prompt length that is text', change: (r: any) => (r.agents['front-desk'].promptLength = '9'), problem: 'agents.front-desk.promptLength: not a length' },
    { name: 'unrecorded secrets that are not paths', change: (r: any) => (r.agents['front-desk'].unrecordedSecrets = 'x'), problem: 'agents.front-desk.unrecordedSecrets: not a list of paths' },
  ])('refuses $name', ({ change, problem }) => {
    const record = changed(change);
    expect(historyRecordProblem(record)).toBe(problem);
  });
});
