/** The PostgreSQL backend's deploy ledger: one row per apply in `voxform_history`, the record as jsonb. */
import type pg from 'pg';
import { historyRecordProblem, testRunProblem } from '../../history/check-record.js';
import { newHistoryId } from '../../history/file-store.js';
import type { HistoryQuery, HistoryRecord, HistoryStore, SkippedRecord, TestRunRecord } from '../../history/types.js';

/** A row as read: its id column and its record. */
interface HistoryRow {
  id: string;
  record: unknown;
}

/**
 * The rows' records; a row that holds none (edited by hand, written by something else) is skipped
 * and reported, as the file store skips a damaged file, so one bad row cannot hide the rest.
 */
function recordsOf(rows: readonly HistoryRow[], onSkipped: ((skipped: SkippedRecord) => void) | undefined): HistoryRecord[] {
  const records: HistoryRecord[] = [];
  for (const row of rows) {
    const problem = historyRecordProblem(row.record) ?? ((row.record as HistoryRecord).id === row.id ? undefined : 'id: not the id of its row');
    if (problem === undefined) records.push(row.record as HistoryRecord);
    else onSkipped?.({ where: `voxform_history row ${row.id}`, problem });
  }
  return records;
}

export class PostgresHistoryStore implements HistoryStore {
  /** `guard` turns a driver error into a `state_backend_failed` (see the backend's `run`). */
  constructor(
    private readonly query: () => Promise<pg.ClientBase>,
    private readonly guard: <T>(step: () => Promise<T>) => Promise<T>,
  ) {}

  async append(record: Omit<HistoryRecord, 'id'>): Promise<HistoryRecord> {
    const stored: HistoryRecord = { ...record, id: newHistoryId(new Date(record.at)) };
    await this.guard(() => this.insert([stored]));
    return stored;
  }

  list(query: HistoryQuery): Promise<HistoryRecord[]> {
    return this.guard(() => this.select(query));
  }

  async appendTestRun(run: Omit<TestRunRecord, 'id'>): Promise<TestRunRecord> {
    const stored: TestRunRecord = { ...run, id: newHistoryId(new Date(run.at)) };
    await this.guard(async () => {
      const pool = await this.query();
      await pool.query('INSERT INTO voxform_test_runs (id, workspace, at, record) VALUES ($1, $2, $3, $4::jsonb)', [stored.id, stored.workspace, stored.at, JSON.stringify(stored)]);
    });
    return stored;
  }

  listTestRuns(query: Omit<HistoryQuery, 'agent'>): Promise<TestRunRecord[]> {
    return this.guard(async () => {
      const pool = await this.query();
      const result = await pool.query<HistoryRow>('SELECT id, record FROM voxform_test_runs WHERE workspace = $1 ORDER BY id DESC LIMIT $2', [query.workspace, query.limit ?? null]);
      const runs: TestRunRecord[] = [];
      for (const row of result.rows) {
        const problem = testRunProblem(row.record) ?? ((row.record as TestRunRecord).id === row.id ? undefined : 'id: not the id of its row');
        if (problem === undefined) runs.push(row.record as TestRunRecord);
        else query.onSkipped?.({ where: `voxform_test_runs row ${row.id}`, problem });
      }
      return runs;
    });
  }

  private async select(query: HistoryQuery): Promise<HistoryRecord[]> {
    const pool = await this.query();
    const result = await pool.query<HistoryRow>(
      `SELECT id, record FROM voxform_history WHERE workspace = $1 AND ($2::text IS NULL OR (record -> 'agents') ? $2)
       ORDER BY id DESC LIMIT $3`,
      [query.workspace, query.agent ?? null, query.limit ?? null],
    );
    return recordsOf(result.rows, query.onSkipped);
  }

  /** Every record, oldest first. */
  async all(onSkipped?: (skipped: SkippedRecord) => void): Promise<HistoryRecord[]> {
    const pool = await this.query();
    return recordsOf((await pool.query<HistoryRow>('SELECT id, record FROM voxform_history ORDER BY id')).rows, onSkipped);
  }

  /** Stores records with their ids; one already stored is left alone. */
  async insert(records: readonly HistoryRecord[]): Promise<void> {
    if (records.length === 0) return;
    const pool = await this.query();
    for (const record of records) {
      await pool.query('INSERT INTO voxform_history (id, workspace, at, record) VALUES ($1, $2, $3, $4::jsonb) ON CONFLICT (id) DO NOTHING', [
        record.id,
        record.workspace,
        record.at,
        JSON.stringify(record),
      ]);
    }
  }
}
