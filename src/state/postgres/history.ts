/**
 * The PostgreSQL backend's deploy ledger: one row per apply in `voxform_history` and one per test run
 * in `voxform_test_runs`, the record as jsonb.
 */
import type pg from 'pg';
import { historyRecordProblem, testRunProblem } from '../../history/check-record.js';
import { idCeiling, newHistoryId } from '../../history/ledger-order.js';
import { storedRecordText, appendedAt } from '../../history/stored-record.js';
import { sealRecord, type LedgerSealKey } from '../../history/seal.js';
import { sameStrings, summarizeRecord, type HistoryQuery, type HistoryRecord, type HistoryStore, type RecordSummary, type SkippedRecord, type TestRunRecord } from '../../history/types.js';

/** A row as read: its id column and its record. */
interface HistoryRow {
  id: string;
  record: unknown;
}

/**
 * The rows' records; a row that holds none (edited by hand, written by something else) is skipped
 * and reported, as the file store skips a damaged file, so one bad row cannot hide the rest.
 */
function checkedRows<T extends { id: string }>(table: LedgerTable, rows: readonly HistoryRow[], onSkipped: ((skipped: SkippedRecord) => void) | undefined): T[] {
  const problemOf = problemOfRecordIn(table);
  const records: T[] = [];
  for (const row of rows) {
    const problem = problemOf(row.record) ?? ((row.record as T).id === row.id ? undefined : 'id: not the id of its row');
    if (problem === undefined) records.push(row.record as T);
    else onSkipped?.({ where: `${table} row ${row.id}`, problem });
  }
  return records;
}

/**
 * Records a walk of summaries fetches at once: a page of whole rows is held while it is summarized,
 * and a walk that stops early has fetched at most one page it did not need.
 */
const SUMMARY_PAGE = 8;

/** The ledger's tables: the applies, and the evidence of test runs. */
export type LedgerTable = 'voxform_history' | 'voxform_test_runs';

/** The check a record of the table is read (and written) under. */
function problemOfRecordIn(table: LedgerTable): (value: unknown) => string | undefined {
  return table === 'voxform_history' ? historyRecordProblem : testRunProblem;
}

export class PostgresHistoryStore implements HistoryStore {
  /**
   * `query`: the connection reads go over; `guard` turns a driver error into a `state_backend_failed`
   * (see the backend's `run`); `writable`: the connection writes go over (the schema brought up to date).
   */
  constructor(
    private readonly query: () => Promise<pg.ClientBase>,
    private readonly guard: <T>(step: () => Promise<T>) => Promise<T>,
    private readonly writable: () => Promise<pg.ClientBase>,
  ) {}

  append(record: Omit<HistoryRecord, 'id' | 'seal' | 'previous'>, sealKey: LedgerSealKey): Promise<HistoryRecord> {
    return this.guard(() => this.appendTo('voxform_history', record, sealKey));
  }

  /** A walk of the ledger's workspaces `picked` keeps, one after another, each by its index (workspace, id). */
  async *summariesOfWorkspaces(picked: (workspace: string) => boolean): AsyncIterable<RecordSummary> {
    const workspaces = await this.guard(async () => {
      const pool = await this.query();
      return (await pool.query<{ workspace: string }>('SELECT DISTINCT workspace FROM voxform_history ORDER BY workspace')).rows.map((row) => row.workspace);
    });
    for (const workspace of workspaces.filter(picked)) yield* this.summaries({ workspace });
  }

  async *summaries(query: HistoryQuery): AsyncIterable<RecordSummary> {
    const same = sameStrings();
    let before: string | null = null;
    for (;;) {
      const after: string | null = before;
      const rows: HistoryRow[] = await this.guard(async () => {
        const pool = await this.query();
        const result = await pool.query<HistoryRow>(
          'SELECT id, record FROM voxform_history WHERE workspace = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3',
          [query.workspace, after, SUMMARY_PAGE],
        );
        return result.rows;
      });
      for (const record of checkedRows<HistoryRecord>('voxform_history', rows, query.onSkipped)) yield summarizeRecord(record, same, query.sealKey);
      if (rows.length < SUMMARY_PAGE) return;
      before = (rows[rows.length - 1] as HistoryRow).id;
    }
  }

  read(query: HistoryQuery, id: string): Promise<HistoryRecord | undefined> {
    return this.guard(async () => {
      const pool = await this.query();
      const result = await pool.query<HistoryRow>('SELECT id, record FROM voxform_history WHERE workspace = $1 AND id = $2', [query.workspace, id]);
      return checkedRows<HistoryRecord>('voxform_history', result.rows, query.onSkipped)[0];
    });
  }

  appendTestRun(run: Omit<TestRunRecord, 'id' | 'seal' | 'previous'>, sealKey: LedgerSealKey): Promise<TestRunRecord> {
    return this.guard(() => this.appendTo('voxform_test_runs', run, sealKey));
  }

  listTestRuns(query: HistoryQuery): Promise<TestRunRecord[]> {
    return this.guard(async () => {
      const pool = await this.query();
      const result = await pool.query<HistoryRow>('SELECT id, record FROM voxform_test_runs WHERE workspace = $1 ORDER BY id DESC', [query.workspace]);
      return checkedRows<TestRunRecord>('voxform_test_runs', result.rows, query.onSkipped);
    });
  }

  /** Every record of the table, oldest first (for `voxform state migrate`). */
  async every<T extends { id: string }>(table: LedgerTable): Promise<T[]> {
    const pool = await this.query();
    return checkedRows<T>(table, (await pool.query<HistoryRow>(`SELECT id, record FROM ${table} ORDER BY id`)).rows, undefined);
  }

  /** Stores a new record, its id after every id the table holds (src/history/ledger-order.ts). */
  private async appendTo<T extends { id: string; workspace: string; at: string; agents: object }>(table: LedgerTable, record: Omit<T, 'id' | 'seal' | 'previous'>, sealKey: LedgerSealKey): Promise<T> {
    // The connection the record goes over: a read-only one may show an older schema's stand-in tables.
    const pool = await this.writable();
    const at = appendedAt(record);
    const { rows } = await pool.query<{ newest: string | null; previous: string | null }>(
      // Two lookups, each along an index: the ledger's ids, and the workspace's (workspace, id).
      `SELECT (SELECT max(id) FROM ${table} WHERE id <= $1) AS newest, (SELECT max(id) FROM ${table} WHERE workspace = $2 AND id <= $1) AS previous`,
      [idCeiling(at), record.workspace],
    );
    const newest = rows[0]?.newest ?? undefined;
    // Sealed once it has its id: the seal covers the id, so a copy under another id is no sealed record.
    const stored = sealRecord(sealKey, { ...record, id: newHistoryId(at, newest), previous: rows[0]?.previous ?? null }) as unknown as T;
    await this.insertInto(table, [stored]);
    return stored;
  }

  /**
   * Stores records with their ids, one already stored left alone; each within the limits of a record
   * (stored-record.ts: a migration to files reads it back).
   */
  async insertInto(table: LedgerTable, records: readonly { id: string; workspace: string; at: string; agents: object }[]): Promise<void> {
    if (records.length === 0) return;
    const pool = await this.writable();
    for (const record of records) {
      await pool.query(`INSERT INTO ${table} (id, workspace, at, record) VALUES ($1, $2, $3, $4::jsonb) ON CONFLICT (id) DO NOTHING`, [
        record.id,
        record.workspace,
        record.at,
        storedRecordText(record, problemOfRecordIn(table)),
      ]);
    }
  }
}
