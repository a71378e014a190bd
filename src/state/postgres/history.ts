/** The PostgreSQL backend's deploy ledger: one row per apply in `voxform_history`, the record as jsonb. */
import type pg from 'pg';
import { newHistoryId } from '../../history/file-store.js';
import type { HistoryRecord, HistoryStore } from '../../history/types.js';

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

  list(query: { workspace: string; agent?: string | undefined; limit?: number | undefined }): Promise<HistoryRecord[]> {
    return this.guard(() => this.select(query));
  }

  private async select(query: { workspace: string; agent?: string | undefined; limit?: number | undefined }): Promise<HistoryRecord[]> {
    const pool = await this.query();
    const result = await pool.query<{ record: HistoryRecord }>(
      `SELECT record FROM voxform_history WHERE workspace = $1 AND ($2::text IS NULL OR (record -> 'agents') ? $2)
       ORDER BY id DESC LIMIT $3`,
      [query.workspace, query.agent ?? null, query.limit ?? null],
    );
    return result.rows.map((row) => row.record);
  }

  /** Every record, oldest first. */
  async all(): Promise<HistoryRecord[]> {
    const pool = await this.query();
    return (await pool.query<{ record: HistoryRecord }>('SELECT record FROM voxform_history ORDER BY id')).rows.map((row) => row.record);
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
