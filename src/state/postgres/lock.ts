/**
 * The apply lock on PostgreSQL: a session advisory lock per workspace, held by a connection kept
 * open for the whole apply (the server releases it by itself when that connection ends, so a
 * killed run never leaves it behind), and a row in `voxform_locks` naming the holder for everyone
 * else. Forcing a lock open works without superuser: the row's `generation` is bumped, which moves
 * the workspace to another advisory key (the next run can lock at once), and the old holder, whose
 * every state write is fenced on its `lock_id`, can write no more. Where the role may (same role,
 * or `pg_signal_backend`), the old holder's connection is also ended.
 */
import { randomBytes } from 'node:crypto';
import { sha256Bytes } from '../../util/hash.js';
import { controlsAsQuestionMarks } from '../../util/printable.js';
import { thisRun, type RunIdentity } from '../../util/run-identity.js';
import type pg from 'pg';
import type { VoxformError } from '../../errors.js';
import { describeHolder, forcedOpenOf, lockedError, waitingNotice, waitToRetryLock, type AcquireOptions, type ForcedOpen, type LockHolder } from '../backend.js';

/** An advisory lock key: 64 bits of a hash of `label`, as PostgreSQL's signed bigint. */
function advisoryKeyOf(label: string): string {
  return BigInt.asIntN(64, sha256Bytes(label).readBigUInt64BE(0)).toString();
}

/** The advisory lock key of a workspace at a generation. */
export function advisoryKey(workspace: string, generation: number): string {
  return advisoryKeyOf(`voxform-apply-lock\0${workspace}\0${generation}`);
}

/** What one try at a lock found: the lock taken, or held by another run, told as the refusal at the deadline and the notice while waiting. */
type LockTry<T> = { taken: T } | { held: { refusal: () => VoxformError; waiting: () => string } };

/**
 * Tries `attempt` until it takes the lock: while another run holds it, says so once and tries
 * again, until `deadline` (ms since the epoch), then refuses.
 */
async function pollForLock<T>(options: AcquireOptions, attempt: () => Promise<LockTry<T>>, deadline: number): Promise<T> {
  let waiting = false;
  for (;;) {
    const found = await attempt();
    if ('taken' in found) return found.taken;
    if (Date.now() >= deadline) throw found.held.refusal();
    if (!waiting) options.warn(found.held.waiting());
    waiting = true;
    await waitToRetryLock(Math.min(500, Math.max(50, deadline - Date.now())), options.signal);
  }
}

/** A workspace's lock as taken: its holder, and the advisory key and generation it was taken at. */
interface TakenAdvisoryLock {
  holder: LockHolder;
  key: string;
  generation: number;
}

/** Takes the lock on `client` (kept open by the caller), polling until `deadline` (ms since the epoch). */
export async function takeAdvisoryLock(client: pg.ClientBase, workspace: string, options: AcquireOptions, deadline: number): Promise<TakenAdvisoryLock> {
  const holder: LockHolder = { lockId: randomBytes(8).toString('hex'), ...thisRun(options.command, options.ciJobUrl), since: new Date().toISOString() };
  return pollForLock<TakenAdvisoryLock>(options, async () => {
    for (;;) {
      // The workspace's row, made on its first lock; one round trip either way.
      const row = await client.query<{ generation: string }>(
        'INSERT INTO voxform_locks (workspace) VALUES ($1) ON CONFLICT (workspace) DO UPDATE SET generation = voxform_locks.generation RETURNING generation',
        [workspace],
      );
      const generation = Number(row.rows[0]?.generation ?? 0);
      const key = advisoryKey(workspace, generation);
      const taken = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key]);
      if (!taken.rows[0]?.ok) break;
      const named = await client.query(
        'UPDATE voxform_locks SET lock_id = $2, holder = $3::jsonb, backend_pid = pg_backend_pid(), acquired_at = now() WHERE workspace = $1 AND generation = $4',
        [workspace, holder.lockId, JSON.stringify(holder), generation],
      );
      if (named.rowCount === 1) {
        holder.since = new Date().toISOString();
        return { taken: { holder, key, generation } };
      }
      // Forced open between reading the generation and locking: look again at once.
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]);
    }
    const current = await readAdvisoryHolder(client, workspace);
    return {
      held: {
        refusal: () => lockedError(`The workspace ${workspace}`, current, options, current ? { details: { holder: current } } : {}),
        waiting: () => waitingNotice(`The workspace ${workspace}`, current ? describeHolder(current) : 'another voxform run', options),
      },
    };
  }, deadline);
}

/** The advisory lock key of a service's shared resources: every workspace of the service takes this one key. */
function sharedResourcesKey(serviceId: string): string {
  return advisoryKeyOf(`voxform-shared-resources-lock\0${serviceId}`);
}

/**
 * Takes the lock of `serviceId`'s shared resources on `client`, which holds a workspace's lock
 * already, polling until `deadline`: the one the workspace's lock was waited for under. It has no
 * row of its own: the holder named is the workspace lock's holder on the connection holding it (an
 * apply takes both on one connection, in this order, so two applies never wait on each other
 * crosswise). Released with that connection.
 */
export async function takeSharedResourcesLock(client: pg.ClientBase, serviceId: string, options: AcquireOptions, deadline: number): Promise<string> {
  const key = sharedResourcesKey(serviceId);
  const subject = `Service ${serviceId}`;
  return pollForLock<string>(options, async () => {
    const taken = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key]);
    if (taken.rows[0]?.ok) return { taken: key };
    const current = await readSharedResourcesHolder(client, key);
    const holding = `: ${current ? `its apply of workspace ${controlsAsQuestionMarks(current.workspace)}` : 'an apply of another workspace'} holds what the environments of the service share (numbers, campaigns, credentials, agents named by one id)`;
    return {
      held: {
        refusal: () => lockedError(subject, current?.holder, options, { holding, ...(current ? { details: { holder: current.holder, workspace: current.workspace } } : {}) }),
        // The wait left of the one deadline, which the workspace's lock may have spent most of.
        waiting: () => waitingNotice(subject, `${current ? describeHolder(current.holder) : 'another voxform run'}${holding}`, { ...options, timeoutSeconds: Math.max(0, Math.ceil((deadline - Date.now()) / 1000)) }),
      },
    };
  }, deadline);
}

/** The holder of a service's shared-resources lock: the workspace lock held by the same connection (pg_locks splits a bigint key in two). */
async function readSharedResourcesHolder(client: pg.ClientBase, key: string): Promise<{ workspace: string; holder: LockHolder } | undefined> {
  const result = await client.query<{ workspace: string; holder: LockHolder }>(
    `SELECT l.workspace, l.holder FROM voxform_locks l JOIN pg_locks p ON p.pid = l.backend_pid
     WHERE l.lock_id IS NOT NULL AND p.locktype = 'advisory' AND p.granted AND p.objsubid = 1
       AND p.classid::bigint = (($1::bigint >> 32) & 4294967295) AND p.objid::bigint = ($1::bigint & 4294967295)
     LIMIT 1`,
    [key],
  );
  return result.rows[0];
}

/** Gives the lock up: the row no longer names the holder, and the advisory lock is released. */
export async function releaseAdvisoryLock(client: pg.ClientBase, workspace: string, lockId: string, key: string): Promise<void> {
  await client.query(
    `WITH cleared AS (UPDATE voxform_locks SET lock_id = NULL, holder = NULL, backend_pid = NULL, acquired_at = NULL WHERE workspace = $1 AND lock_id = $2 RETURNING 1)
     SELECT pg_advisory_unlock($3::bigint), (SELECT count(*) FROM cleared)`,
    [workspace, lockId, key],
  );
}

/** The columns of the last forced open (migration 3), as `forcedOpenOfRow` reads them. */
const LAST_FORCED_OPEN = 'last_forced_lock_id, last_forced_by, last_forced_at';

interface ForcedOpenRow {
  last_forced_lock_id: string | null;
  last_forced_by: unknown;
  last_forced_at: Date | null;
}

/** A row's last forced open; undefined when none was recorded (a row of an older voxform), or it is not one voxform wrote. */
function forcedOpenOfRow(row: ForcedOpenRow | undefined): ForcedOpen | undefined {
  if (!row || row.last_forced_lock_id === null || !(row.last_forced_at instanceof Date)) return undefined;
  return forcedOpenOf({ lockId: row.last_forced_lock_id, by: row.last_forced_by, at: row.last_forced_at.toISOString() });
}

/**
 * A workspace's lock row (undefined fields: no row yet): its generation (`forceOpen` moves it on),
 * the lock id it names as holder, and the last forced open recorded (a caller checks it is of its lock).
 */
export async function readLockRow(client: pg.ClientBase, workspace: string): Promise<{ generation: number | undefined; lockId: string | null | undefined; recorded: ForcedOpen | undefined }> {
  const result = await client.query<{ generation: string; lock_id: string | null } & ForcedOpenRow>(`SELECT generation, lock_id, ${LAST_FORCED_OPEN} FROM voxform_locks WHERE workspace = $1`, [workspace]);
  const row = result.rows[0];
  return { generation: row ? Number(row.generation) : undefined, lockId: row?.lock_id, recorded: forcedOpenOfRow(row) };
}

/** The last forced open of every workspace's lock that has one recorded. */
export async function readAllForcedOpens(client: pg.ClientBase | pg.Pool): Promise<Map<string, ForcedOpen>> {
  const result = await client.query<{ workspace: string } & ForcedOpenRow>(`SELECT workspace, ${LAST_FORCED_OPEN} FROM voxform_locks WHERE last_forced_lock_id IS NOT NULL`);
  const recorded = result.rows.map((row) => [row.workspace, forcedOpenOfRow(row)] as const);
  return new Map(recorded.filter((entry): entry is readonly [string, ForcedOpen] => entry[1] !== undefined));
}

/**
 * Holders whose connection still holds an advisory lock (a row left by a connection that ended is
 * no holder). `pg_locks` is readable by every role.
 */
const LIVE_HOLDERS = `
  SELECT l.workspace, l.holder FROM voxform_locks l
  WHERE l.lock_id IS NOT NULL
    AND EXISTS (SELECT 1 FROM pg_locks p WHERE p.locktype = 'advisory' AND p.granted AND p.pid = l.backend_pid)`;

export async function readAdvisoryHolder(client: pg.ClientBase | pg.Pool, workspace: string): Promise<LockHolder | undefined> {
  const result = await client.query<{ holder: LockHolder }>(`${LIVE_HOLDERS} AND l.workspace = $1`, [workspace]);
  return result.rows[0]?.holder;
}

export async function readAllHolders(client: pg.ClientBase | pg.Pool): Promise<Map<string, LockHolder>> {
  const result = await client.query<{ workspace: string; holder: LockHolder }>(LIVE_HOLDERS);
  return new Map(result.rows.map((row) => [row.workspace, row.holder]));
}

/**
 * Forces the lock `lockId` open: bumps the workspace's generation (new runs lock another key),
 * forgets the holder (its fenced writes fail) and records who forced it, at the server's time, in
 * the same statement; then tries to end the holder's connection.
 */
export async function forceOpen(client: pg.ClientBase | pg.Pool, lockId: string, by: RunIdentity): Promise<{ holder: LockHolder; ended: boolean } | undefined> {
  const result = await client.query<{ holder: LockHolder; backend_pid: number | null }>(
    `UPDATE voxform_locks l SET generation = l.generation + 1, lock_id = NULL, holder = NULL, backend_pid = NULL, acquired_at = NULL,
       last_forced_lock_id = $1, last_forced_by = $2::jsonb, last_forced_at = now()
     FROM voxform_locks old WHERE old.workspace = l.workspace AND l.lock_id = $1
     RETURNING old.holder, old.backend_pid`,
    [lockId, JSON.stringify(by)],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  let ended = false;
  if (row.backend_pid !== null) {
    // Needs the same role or pg_signal_backend; without, the fence alone keeps the old holder out.
    ended = await client
      .query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [row.backend_pid])
      .then((r) => r.rows[0]?.ok === true, () => false);
  }
  return { holder: row.holder, ended };
}
