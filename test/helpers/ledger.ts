import { vi } from 'vitest';
import { FileHistoryStore } from '../../src/history/file-store.js';
import { ledgerSealKey, sealRecord, type LedgerSealKey } from '../../src/history/seal.js';
import { fingerprintKey } from '../../src/util/hash.js';
import type { HistoryQuery, HistoryRecord, HistoryStore, RecordSummary } from '../../src/history/types.js';

/**
 * Every record of a workspace, whole, newest first, as a test reads the ledger: walked as the
 * commands walk it (summaries), each read whole by its id.
 */
export async function ledgerRecords(store: HistoryStore, query: HistoryQuery): Promise<HistoryRecord[]> {
  const records: HistoryRecord[] = [];
  for await (const summary of store.summaries(query)) {
    const record = await store.read(query, summary.id);
    if (record) records.push(record);
  }
  return records;
}

/** What the commands ask of the file store, counted from now until the test's mocks are restored: records summarized (each a file read) and read whole. */
export function countLedgerReads(): { summarized: number; whole: string[] } {
  const counts = { summarized: 0, whole: [] as string[] };
  const { summaries, summariesOfWorkspaces, read } = FileHistoryStore.prototype;
  async function* counted(walk: AsyncIterable<RecordSummary>): AsyncIterable<RecordSummary> {
    for await (const summary of walk) {
      counts.summarized++;
      yield summary;
    }
  }
  vi.spyOn(FileHistoryStore.prototype, 'summaries').mockImplementation(function (this: FileHistoryStore, query: HistoryQuery) {
    return counted(summaries.call(this, query));
  });
  // The walk for secret evidence, over every workspace of the service.
  vi.spyOn(FileHistoryStore.prototype, 'summariesOfWorkspaces').mockImplementation(function (this: FileHistoryStore, picked: (workspace: string) => boolean) {
    return counted(summariesOfWorkspaces.call(this, picked));
  });
  vi.spyOn(FileHistoryStore.prototype, 'read').mockImplementation(function (this: FileHistoryStore, query, recordId) {
    counts.whole.push(recordId);
    return read.call(this, query, recordId);
  });
  return counts;
}

/** A record of an apply, as a store is given it to append: `agents` at `at` in `workspace`. */
export function appliedRecord(at: string, workspace = 'default@local', agents: HistoryRecord['agents'] = {}): Omit<HistoryRecord, 'id'> {
  return {
    workspace,
    at,
    by: 'dev@laptop',
    command: 'voxform apply',
    outcome: 'applied',
    source: { commit: 'a'.repeat(40) },
    summary: { create: 0, update: 1, unchanged: 0, drifted: 0, applied: 1, failed: 0, skipped: 0 },
    agents,
  };
}

/** A record of an apply of one agent (`front`, id a1) to `workspace`, from a commit on main: what the state backends' tests store, copy and read back. */
export function oneAgentApply(workspace: string): Omit<HistoryRecord, 'id'> {
  return {
    workspace,
    at: '2026-11-23T12:00:00.000Z',
    by: 'ana@laptop',
    command: 'voxform apply',
    outcome: 'applied',
    source: { commit: 'a'.repeat(40), branch: 'main' },
    summary: { create: 1, update: 0, unchanged: 0, drifted: 0, applied: 1, failed: 0, skipped: 0 },
    agents: { front: { id: 'a1', config: { prompt: 'Hi' }, configHash: `sha256:${'1'.repeat(64)}`, maskedPaths: [] } },
  };
}

/** The key voxform seals records under when run with `apiKey` (src/history/seal.ts). */
export function sealKeyOf(apiKey: string): LedgerSealKey {
  return ledgerSealKey(fingerprintKey(apiKey));
}

/** The seal key of a test's records: the one the API key `test-key` gives. */
export const TEST_SEAL_KEY = sealKeyOf('test-key');

/**
 * A record or test run changed by hand as a fixture (a time set back), sealed again as voxform run with
 * `apiKey` would have sealed it: the one way a test makes evidence promotion takes (docs/promotion.md).
 */
export function resealed<T extends object>(record: T, apiKey: string): T & { seal: string } {
  return sealRecord(sealKeyOf(apiKey), record);
}
