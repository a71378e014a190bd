/**
 * The PostgreSQL backend: one row per workspace (`ENV@SERVICE`) in `voxform_workspaces`, written by
 * compare-and-set on its serial; the apply lock (src/state/postgres/lock.ts); the deploy ledger in
 * `voxform_history`. Tables are created on first use (src/state/postgres/schema.ts). While a run
 * holds a workspace's lock, its state writes go over the lock's own connection, fenced on the lock
 * id: when that connection drops, the lock and the right to write go together.
 */
import { Socket } from 'node:net';
import pg from 'pg';
import { isVoxformError, VoxformError } from '../../errors.js';
import type { HistoryRecord, TestRunRecord } from '../../history/types.js';
import { conflict, DEFAULT_RECHECK_COMMAND, describeLockLoss, forcedOpenLoss, noSuchLock, STATE_OPTION, untilInterrupted, type AcquireOptions, type ForcedOpen, type HeldLock, type LockHolder, type LockLoss, type StateBackend, type StoredWorkspace, type WorkspaceSummary, type WriteResult } from '../backend.js';
import type { RunIdentity } from '../../util/run-identity.js';
import { checkRowCount, checkWorkspace, checkWorkspaceName, isLastApply } from '../check-state.js';
import { emptyWorkspace, type LastApply, type WorkspaceState } from '../types.js';
import { PostgresHistoryStore } from './history.js';
import { clientHidingPassword, connectHidingPassword } from './password.js';
import { parseKeptJson } from '../../project-files/kept-files.js';
import { STATE_JSON_LIMITS, storedStateText } from '../state-file.js';
import { forceOpen, readAdvisoryHolder, readAllForcedOpens, readAllHolders, readLockRow, releaseAdvisoryLock, takeAdvisoryLock, takeSharedResourcesLock } from './lock.js';
import { ensureSchema, INVALID_TEXT, presentSchema, SCHEMA_VERSION, sqlState } from './schema.js';
import type { StateUrl } from './url.js';
import { backendFailure } from './failure.js';
import { queueQueries } from './query-queue.js';

/**
 * What a query is for. A read never migrates the schema: a run that writes nothing (status, history,
 * plan) leaves the database as older voxforms use it. A write brings the schema up to date first.
 */
type Access = 'read' | 'write';

/** A lock this backend holds: its own connection, and what tells the apply it is gone. */
interface PgHeldLock {
  client: pg.Client;
  holder: LockHolder;
  workspace: string;
  /** The advisory lock's key. */
  key: string;
  /** The workspace's lock generation when taken: forcing the lock open moves it on. */
  generation: number;
  lost: AbortController;
  /** What the hints of its loss and of a conflicting write name to see where things stand (`AcquireOptions.recheckCommand`). */
  recheckCommand: string;
  /** Finding out why the connection went, once (see `lose`). */
  losing?: Promise<void>;
}

export class PostgresStateBackend implements StateBackend {
  readonly kind = 'postgres';
  readonly display: string;
  readonly pastable: string;
  readonly chosenWith: string;
  readonly history: PostgresHistoryStore;
  /**
   * The connection for queries outside a lock (plan's read, `state list`), connected and the schema
   * checked (`connection`); an apply's lock adopts it as its own (`connectionOfItsOwn`), so a whole apply uses one connection.
   */
  private session: Promise<pg.Client> | undefined;
  /** The schema brought up to date, once per backend, on whichever connection writes first: the version it was at. */
  private schema: Promise<number> | undefined;
  /** Connections that show an older schema through temporary views (`presentSchema`): never written over. */
  private readonly presenting = new WeakSet<pg.Client>();
  private readonly locks = new Map<string, PgHeldLock>();
  /** The socket of a connection still being made: ended at once on Ctrl-C or close, never waited for. */
  private connecting: Socket | undefined;

  /** A private field: the connection string and its password stay out of every inspection of the backend (its clients: password.ts). */
  readonly #url: StateUrl;
  /** For a URL without a password: the PGPASSWORD of the environment given (null: none), private as the URL is. */
  readonly #environmentPassword: string | null | undefined;

  /** `environmentPassword`: PGPASSWORD of the environment the backend was opened with; `chosenWith`: what named the URL. */
  constructor(url: StateUrl, environmentPassword: string | undefined, chosenWith: string = STATE_OPTION) {
    this.#url = url;
    this.#environmentPassword = url.hasPassword ? undefined : (environmentPassword ?? null);
    this.display = url.display;
    this.pastable = url.pastable;
    this.chosenWith = chosenWith;
    this.history = new PostgresHistoryStore(() => this.runConnection('read'), (step) => this.run(step), () => this.runConnection('write'));
  }

  async readWorkspace(key: string): Promise<StoredWorkspace> {
    // An apply reads over its lock's connection: one connection for the whole run.
    const lock = this.locks.get(key);
    const source = lock?.client ?? (await this.runConnection('read'));
    const result = await this.run(() => source.query<{ serial: string; state: string }>('SELECT serial, state FROM voxform_workspaces WHERE workspace = $1', [key]), lock);
    const row = result.rows[0];
    if (!row) return { workspace: emptyWorkspace(), serial: 0, exists: false };
    return { workspace: parseWorkspace(row.state, key, this.display), serial: checkRowSerial(row.serial, key, this.display), exists: true };
  }

  async writeWorkspace(key: string, workspace: WorkspaceState, expectedSerial: number): Promise<WriteResult> {
    const json = storedStateText(workspace, `The state of workspace ${key} in ${this.display}`, false);
    const lock = this.locks.get(key);
    if (lock?.lost.signal.aborted) throw lockLost(this.display, lock);
    const target = lock?.client ?? (await this.connection('write'));
    const fence = lock ? 'EXISTS (SELECT 1 FROM voxform_locks WHERE workspace = $1 AND lock_id = $4)' : '$4::text IS NULL';
    const sql =
      expectedSerial === 0
        ? `INSERT INTO voxform_workspaces (workspace, serial, state) SELECT $1, 1, $3 WHERE $2::bigint = 0 AND ${fence} ON CONFLICT (workspace) DO NOTHING RETURNING serial`
        : `UPDATE voxform_workspaces SET state = $3, serial = serial + 1, updated_at = now() WHERE workspace = $1 AND serial = $2 AND ${fence} RETURNING serial`;
    const result = await this.run(() => target.query<{ serial: string }>(sql, [key, expectedSerial, json, lock?.holder.lockId ?? null]), lock);
    const row = result.rows[0];
    if (row) return { serial: Number(row.serial) };
    if (lock) {
      const { lockId, recorded } = await readLockRow(lock.client, key);
      if (lockId !== lock.holder.lockId) {
        if (!lock.lost.signal.aborted) lock.lost.abort(forcedOpen(lock, recorded));
        throw lockLost(this.display, lock);
      }
    }
    const found = await target.query<{ serial: string }>('SELECT serial FROM voxform_workspaces WHERE workspace = $1', [key]);
    throw conflict(`${this.display} (workspace ${key})`, expectedSerial, Number(found.rows[0]?.serial ?? 0), lock?.recheckCommand ?? DEFAULT_RECHECK_COMMAND);
  }

  /**
   * Deletes the workspace's row, and the record of its lock's last forced open, which would list it
   * again (serial 0); the lock row itself stays, its generation with it: a hung holder of an older
   * generation keeps an advisory key no new lock of the workspace takes.
   */
  async removeWorkspace(key: string): Promise<boolean> {
    const lock = this.locks.get(key);
    if (lock?.lost.signal.aborted) throw lockLost(this.display, lock);
    const target = lock?.client ?? (await this.connection('write'));
    const fence = lock ? 'EXISTS (SELECT 1 FROM voxform_locks WHERE workspace = $1 AND lock_id = $2)' : '$2::text IS NULL';
    const sql = `WITH removed AS (DELETE FROM voxform_workspaces WHERE workspace = $1 AND ${fence} RETURNING 1),
      forgotten AS (UPDATE voxform_locks SET last_forced_lock_id = NULL, last_forced_by = NULL, last_forced_at = NULL WHERE workspace = $1 AND ${fence} RETURNING 1)
      SELECT (SELECT count(*) FROM removed) AS removed, ${fence} AS fenced`;
    const result = await this.run(() => target.query<{ removed: string; fenced: boolean }>(sql, [key, lock?.holder.lockId ?? null]), lock);
    const row = result.rows[0];
    if (lock && !row?.fenced) {
      const { recorded } = await readLockRow(lock.client, key);
      if (!lock.lost.signal.aborted) lock.lost.abort(forcedOpen(lock, recorded));
      throw lockLost(this.display, lock);
    }
    return Number(row?.removed ?? 0) > 0;
  }

  async acquireLock(key: string, options: AcquireOptions): Promise<HeldLock> {
    // A database that does not answer is waited for like a held lock: Ctrl-C ends the wait at once.
    const connecting = this.connectionOfItsOwn();
    const client = await untilInterrupted(connecting, options.signal, () => {
      this.abandonConnecting();
      // Past its socket's connect (the schema being brought up to date), the connection is still made: no one
      // would end it, and it would keep the stopped process alive.
      connecting.then((late) => late.end(), () => undefined).catch(() => undefined);
    });
    const lost = new AbortController();
    let held: PgHeldLock | undefined;
    const onLost = (error?: Error) => {
      if (held) void this.lose(held, error);
      else if (!lost.signal.aborted) lost.abort(connectionLost(error));
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    let taken: Awaited<ReturnType<typeof takeAdvisoryLock>>;
    try {
      const deadline = Date.now() + options.timeoutSeconds * 1000;
      taken = await this.run(() => takeAdvisoryLock(client, key, options, deadline));
      const service = options.sharedResourcesOf;
      // Ended with the connection, as the workspace's lock is (`release`): no row of its own to clear.
      // --lock-timeout bounds the whole wait: the service's lock waits until the same deadline.
      if (service !== undefined) await this.run(() => takeSharedResourcesLock(client, service, options, deadline));
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw error;
    }
    held = { client, holder: taken.holder, workspace: key, key: taken.key, generation: taken.generation, lost, recheckCommand: options.recheckCommand ?? DEFAULT_RECHECK_COMMAND };
    this.locks.set(key, held);
    return {
      holder: taken.holder,
      lost: lost.signal,
      lostReason: () => (lost.signal.aborted ? (lost.signal.reason as LockLoss) : undefined),
      release: () => this.release(key, held),
    };
  }

  async readLock(key: string): Promise<LockHolder | undefined> {
    const pool = await this.connection('read');
    return this.run(() => readAdvisoryHolder(pool, key));
  }

  async forceUnlock(lockId: string, by: RunIdentity): Promise<{ holder: LockHolder; note: string }> {
    const pool = await this.connection('write');
    const opened = await this.run(() => forceOpen(pool, lockId, by));
    if (!opened) throw noSuchLock(lockId, this.display);
    const note = opened.ended
      ? "The holder's database connection was ended: if that run still ran, it stopped and reported what it had applied."
      : "The holder's connection could not be ended (that needs the same role or pg_signal_backend); if that run still runs, it stops before its next state write.";
    return { holder: opened.holder, note };
  }

  async readLastForcedOpen(key: string): Promise<ForcedOpen | undefined> {
    const pool = await this.runConnection('read');
    return this.run(async () => (await readLockRow(pool, key)).recorded);
  }

  async listWorkspaces(): Promise<WorkspaceSummary[]> {
    const pool = await this.runConnection('read');
    const rows = await this.run(() => pool.query<{ workspace: string; serial: string; last_apply: WorkspaceState['lastApply'] | null }>(
      "SELECT workspace, serial, state::jsonb -> 'lastApply' AS last_apply FROM voxform_workspaces ORDER BY workspace",
    )).catch(async (error: unknown) => {
      // A row that is not JSON fails the cast for all: find it, and say which it is.
      if (sqlState((error as { cause?: unknown }).cause) === INVALID_TEXT) await this.readEachWorkspace(pool);
      throw error;
    });
    const holders = await this.run(() => readAllHolders(pool));
    const forcedOpens = await this.run(() => readAllForcedOpens(pool));
    const summaryOf = (key: string, serial: number, lastApply: LastApply | undefined): WorkspaceSummary => ({ key, serial, lastApply, lock: holders.get(key), lastForcedOpen: forcedOpens.get(key) });
    // The record alone is read, so it is checked here as a whole workspace's read checks it.
    const summaries = rows.rows.map((row) => {
      // The name first: the serial's refusal names the workspace.
      checkWorkspaceName(row.workspace, this.display);
      return summaryOf(row.workspace, checkRowSerial(row.serial, row.workspace, this.display), isLastApply(row.last_apply) ? row.last_apply : undefined);
    });
    // A workspace locked by its first apply has no row yet; nor has one whose first apply's lock was forced open.
    for (const key of [...holders.keys(), ...forcedOpens.keys()]) {
      if (summaries.some((s) => s.key === key)) continue;
      checkWorkspaceName(key, this.display);
      summaries.push(summaryOf(key, 0, undefined));
    }
    return summaries;
  }

  /**
   * The server by its cluster's system identifier, which initdb draws at random (a managed service
   * may keep `pg_control_system()` from a role: then the URL without its password stands in), and
   * the database by its OID there.
   */
  async identity(): Promise<string> {
    const pool = await this.runConnection('read');
    const database = await this.run(() => pool.query<{ oid: string }>('SELECT oid::text FROM pg_database WHERE datname = current_database()'));
    const cluster = await pool.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()').then((result) => result.rows[0]?.id, () => undefined);
    return `postgres cluster ${cluster ?? this.display}, database ${database.rows[0]?.oid ?? ''}`;
  }

  /** Reads every stored workspace, whole: the first that is not one voxform wrote is refused by name. */
  private async readEachWorkspace(pool: pg.Client): Promise<void> {
    const rows = await this.run(() => pool.query<{ workspace: string; state: string }>('SELECT workspace, state FROM voxform_workspaces ORDER BY workspace'));
    for (const row of rows.rows) parseWorkspace(row.state, row.workspace, this.display);
  }

  /** `voxform state upgrade`: the schema brought up to this voxform's; `from`, the version it was at (0: no tables yet). */
  async upgradeSchema(): Promise<{ from: number; to: number }> {
    await this.connection('write');
    return { from: (await this.schema) ?? SCHEMA_VERSION, to: SCHEMA_VERSION };
  }

  exportHistory(): Promise<HistoryRecord[]> {
    return this.run(() => this.history.every<HistoryRecord>('voxform_history'));
  }

  importHistory(records: readonly HistoryRecord[]): Promise<void> {
    return this.run(() => this.history.insertInto('voxform_history', records));
  }

  exportTestRuns(): Promise<TestRunRecord[]> {
    return this.run(() => this.history.every<TestRunRecord>('voxform_test_runs'));
  }

  importTestRuns(runs: readonly TestRunRecord[]): Promise<void> {
    return this.run(() => this.history.insertInto('voxform_test_runs', runs));
  }

  async close(): Promise<void> {
    this.abandonConnecting();
    for (const [key, held] of [...this.locks]) await this.release(key, held);
    const session = this.session;
    this.session = undefined;
    if (session) await (await session.catch(() => undefined))?.end().catch(() => undefined);
  }

  private async release(key: string, held: PgHeldLock): Promise<void> {
    if (this.locks.get(key) !== held) return;
    this.locks.delete(key);
    held.client.removeAllListeners('end');
    if (!held.lost.signal.aborted) await releaseAdvisoryLock(held.client, key, held.holder.lockId, held.key).catch(() => undefined);
    await held.client.end().catch(() => undefined);
  }

  /**
   * The connection of what a run reads and records beside its own workspace (the other workspaces a
   * plan compares with, its history record, its test-run evidence): a held lock's while the run holds
   * one, so that a whole apply uses one connection, else the session.
   */
  private async runConnection(access: Access): Promise<pg.Client> {
    for (const held of this.locks.values()) if (!held.lost.signal.aborted) return held.client;
    return this.connection(access);
  }

  /**
   * The lock's connection went. Someone's `state unlock --force` ends it too (where the role may): a
   * new connection looks whether the lock was forced open, so the run is not told the database is
   * down when it is not. Until that is known, the lock counts as held, and writes on it fail anyway.
   */
  private lose(held: PgHeldLock, error: Error | undefined): Promise<void> {
    held.losing ??= (async () => {
      const found = await this.wasForcedOpen(held).catch(() => undefined);
      if (!held.lost.signal.aborted) held.lost.abort(found?.forced ? forcedOpen(held, found.recorded) : connectionLost(error));
    })();
    return held.losing;
  }

  private async wasForcedOpen(held: PgHeldLock): Promise<{ forced: boolean; recorded: ForcedOpen | undefined }> {
    // Short: when the database is down, the run is not kept waiting to be told so.
    const socket = new Socket();
    const client = clientHidingPassword({ ...this.clientConfig(), stream: () => socket, connectionTimeoutMillis: LOSS_CHECK_TIMEOUT_MS }, this.#environmentPassword);
    client.on('error', () => undefined);
    try {
      await connectHidingPassword(client);
    } catch (error) {
      socket.destroy();
      throw error;
    }
    try {
      const { generation, recorded } = await readLockRow(client, held.workspace);
      return { forced: (generation ?? held.generation) > held.generation, recorded };
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /**
   * The session connection, for `access`: a read's never migrates (an older schema is shown as this
   * voxform's, on that connection only); a write's has the schema brought up to date first.
   */
  private async connection(access: Access): Promise<pg.Client> {
    const client = await (this.session ?? this.openSession(access));
    if (access === 'read' || !this.presenting.has(client)) return client;
    // Its views would hide the tables the upgrade makes: a write goes over a connection without them.
    this.session = undefined;
    await client.end().catch(() => undefined);
    return this.connection(access);
  }

  /**
   * A connection no one else is given, for a lock: the session, taken from it before anything is
   * awaited, else a new one. Advisory locks are re-entrant within one connection, so a second run of
   * this process locking on the same connection would be let in; on its own it is refused as a run
   * of another process is.
   */
  private async connectionOfItsOwn(): Promise<pg.Client> {
    const adopted = this.session;
    this.session = undefined;
    const client = adopted ? await adopted : undefined;
    if (client && !this.presenting.has(client)) return client;
    // Its views would hide the tables the upgrade makes: a write goes over a connection without them.
    await client?.end().catch(() => undefined);
    return this.openConnection('write');
  }

  private openSession(access: Access): Promise<pg.Client> {
    const session = this.openConnection(access);
    this.session = session;
    return session;
  }

  private openConnection(access: Access): Promise<pg.Client> {
    const opening = this.run(async () => {
      const client = clientHidingPassword(this.clientConfig(), this.#environmentPassword);
      queueQueries(client);
      // A connection that drops while idle fails the next query; it must not crash the run.
      client.on('error', () => undefined);
      client.on('end', () => {
        if (this.session === opening) this.session = undefined;
      });
      const socket = this.connecting;
      try {
        await connectHidingPassword(client);
      } catch (error) {
        // A failed login (a password the driver could not send) leaves the socket open: it would keep the process alive.
        socket?.destroy();
        throw this.passwordMissing(error) ?? error;
      } finally {
        this.connecting = undefined;
      }
      try {
        if (access === 'write') await this.ensureSchemaOn(client);
        // Once the schema is brought up to date, every connection reads it as it is.
        else if (this.schema) await this.schema;
        else if (await presentSchema(client, this.display, this.chosenWith)) this.presenting.add(client);
      } catch (error) {
        await client.end().catch(() => undefined);
        throw error;
      }
      return client;
    });
    return opening;
  }

  /**
   * The server asked for a password and none was found: not in the URL, not in PGPASSWORD, not in a
   * .pgpass file (where node-postgres looks, in that order). The driver says so only as a type
   * error ("client password must be a string"), which tells the operator nothing.
   */
  private passwordMissing(error: unknown): VoxformError | undefined {
    if (this.#url.hasPassword || this.#environmentPassword) return undefined;
    const message = error instanceof Error ? error.message : String(error);
    if (!(error instanceof TypeError) && !/password must be a string/i.test(message)) return undefined;
    return new VoxformError('state_password_missing', `The state database ${this.display} asks for a password, and none was given.`, {
      hint: 'Give it in the URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE, special characters percent-encoded) or as ?password=, or set PGPASSWORD, or add a line for the database to ~/.pgpass (or the file PGPASSFILE names; mode 0600).',
    });
  }

  /** Ends the connection being made, if any: its `connect()` fails at once. */
  private abandonConnecting(): void {
    this.connecting?.destroy(new Error('stopped while connecting'));
    this.connecting = undefined;
  }

  private ensureSchemaOn(client: pg.ClientBase): Promise<number> {
    this.schema ??= ensureSchema(client, this.display, this.chosenWith).catch((error: unknown) => {
      this.schema = undefined;
      throw error;
    });
    return this.schema;
  }

  private clientConfig(): pg.ClientConfig {
    // The socket is made here so that a connection being made can be ended (`abandonConnecting`).
    const stream = () => (this.connecting = new Socket());
    const timeout = this.connectTimeoutSeconds();
    return { connectionString: this.#url.connectionString, stream, keepAlive: true, keepAliveInitialDelayMillis: 10_000, connectionTimeoutMillis: timeout === undefined ? 0 : timeout * 1000, application_name: 'voxform' };
  }

  /**
   * How long a connection is waited for: the URL's connect_timeout, in seconds as libpq reads it (0:
   * without a limit), else 15. node-postgres reads it from the URL only for its native binding, so it
   * is given to the driver as its timer here.
   */
  private connectTimeoutSeconds(): number | undefined {
    const given = this.#url.connectTimeoutSeconds ?? DEFAULT_CONNECT_TIMEOUT_SECONDS;
    return given === 0 ? undefined : given;
  }

  /** Runs a database step; a driver or server error becomes a `state_backend_failed` that names the database without its password. */
  private async run<T>(step: () => Promise<T>, lock?: PgHeldLock): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (isVoxformError(error)) throw error;
      // The lock's connection died under this query (the events saying so may come a moment later).
      if (lock && isConnectionLoss(error)) await this.lose(lock, error instanceof Error ? error : new Error(String(error)));
      if (lock?.lost.signal.aborted) throw lockLost(this.display, lock);
      throw backendFailure(error, {
        display: this.display,
        passwordSource: this.#url.hasPassword ? 'url' : this.#environmentPassword ? 'PGPASSWORD' : 'pgpass',
        connectTimeoutSeconds: this.connectTimeoutSeconds(),
      });
    }
  }
}

/** How long a connection is waited for when the URL's connect_timeout does not say. */
const DEFAULT_CONNECT_TIMEOUT_SECONDS = 15;

/** How long a lost lock's run waits to learn whether it was forced open (see `lose`). */
const LOSS_CHECK_TIMEOUT_MS = 5000;

function connectionLost(error: Error | undefined): LockLoss {
  return { reason: 'connection_lost', cause: error?.message };
}

/** The lock forced open; who did it and when, when the record is of this lock (another may have been forced open since). */
function forcedOpen(lock: PgHeldLock, recorded: ForcedOpen | undefined): LockLoss {
  return forcedOpenLoss(lock.holder.lockId, 'postgres', recorded);
}

/** A failure of the connection rather than of the statement: no SQLSTATE, class 08 (connection) or 57 (operator intervention), or a socket error (ECONNRESET). */
function isConnectionLoss(error: unknown): boolean {
  const code = sqlState(error);
  return typeof code !== 'string' || /^(08|57|E[A-Z])/.test(code);
}

/** The stored workspace text, parsed and checked whole (src/state/check-state.ts); damaged text is a clear error, not a crash. */
function parseWorkspace(text: string, key: string, display: string): WorkspaceState {
  // Within the state file's budget: a row is as untrusted as the file.
  const parsed = parseKeptJson(text, STATE_JSON_LIMITS);
  if (!parsed.ok) {
    throw new VoxformError(parsed.reason === 'not_json' ? 'state_invalid' : 'state_unreadable', `The state of workspace ${key} in ${display} ${parsed.problem}.`, {
      hint: 'Restore the row from a backup, or migrate the state in again (`voxform state migrate --force`).',
    });
  }
  return checkWorkspace(parsed.value, `The state of workspace ${key} in ${display}`);
}

/** A workspace row's serial, checked as the file's is: every write counts one on from it. */
function checkRowSerial(text: string, key: string, display: string): number {
  return checkRowCount(text, 'serial', 1, `The state of workspace ${key} in ${display}`);
}

function lockLost(display: string, lock: PgHeldLock): VoxformError {
  return new VoxformError('state_lock_lost', `The apply lock on ${display} is no longer held: ${describeLockLoss(lock.lost.signal.reason as LockLoss)}.`, {
    hint: `No new request is sent. Run \`${lock.recheckCommand}\` to see where things stand, then apply again.`,
  });
}
