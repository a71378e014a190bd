/**
 * `voxform state migrate`: copies every workspace and the whole ledger (history records and test
 * runs) to another backend, then reads the target back and compares, holding every workspace's lock
 * on both sides from before the ledger is read until the copy is checked. The last forced open of a
 * lock stays behind: it is of the source's lock (docs/state.md).
 * Refuses an empty source, a target holding anything unless `force`, and even with it a target
 * holding a workspace newer than the source's (it would be rolled back). A stop (`signal`) takes
 * effect between steps, so the step under way finishes and each side's state is known when it says so.
 */
import { isVoxformError, VoxformError } from '../errors.js';
import { FileWriteError } from '../util/atomic-write.js';
import { stateWriteRemedy } from './write-failure.js';
import { hashValue } from '../util/hash.js';
import type { HistoryRecord } from '../history/types.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import { STATE_OPTION, untilInterrupted, type HeldLock, type StateBackend, type StoredWorkspace } from './backend.js';
import { DEFAULT_STATE_FILE } from './choice.js';
import { plural } from '../util/plural.js';
import { shellWord } from '../util/shell-word.js';

interface MigrateResult {
  workspaces: string[];
  historyRecords: number;
  testRuns: number;
}

interface MigrateOptions {
  force: boolean;
  /** Stops the migration after the step under way (Ctrl-C): `interrupted`, saying what each side holds. */
  signal?: AbortSignal | undefined;
  /** The migration as a command line to paste, without `--force` (default: `voxform state migrate --to TARGET`). */
  command?: string | undefined;
  /** Said after that command line (that it holds `PASSWORD` in place of a database password). */
  commandNote?: string | undefined;
  /** Added to the unlock command a refusal by the source's lock names: the `--state` the source was named with, as typed. */
  sourceUnlockOptions?: string | undefined;
  /** Receives warnings that do not stop the migration (a dead holder's lock taken over, as apply says it). */
  warn?: ((message: string) => void) | undefined;
}

export async function migrateState(source: StateBackend, target: StateBackend, options: MigrateOptions): Promise<MigrateResult> {
  const copied: Copied = { workspaces: 0, of: 0, ledgerStarted: false, ledger: false };
  // Reading writes nothing: a stop ends a read at once (a database that never answers included).
  const asInterrupted = (error: unknown): never => {
    throw options.signal?.aborted ? interrupted(source, target, copied, options) : error;
  };
  const read = <T>(work: Promise<T>): Promise<T> => untilInterrupted(work, options.signal).catch(asInterrupted);
  // One database under two host names (`127.0.0.1`, `localhost`) would be refused by its own locks, taken twice.
  if (source.kind === target.kind && (source.display === target.display || (await read(source.identity())) === (await read(target.identity())))) {
    const named = source.display === target.display ? '' : ` (${source.display}, named another way)`;
    throw new VoxformError('state_migrate_refused', `The migration target ${target.display} is the source itself${named}.`, { hint: 'Name another backend with --to.' });
  }
  // A database lists a workspace its first apply has locked but not written yet (serial 0): nothing to copy there.
  const workspaces = (await read(source.listWorkspaces())).filter((w) => source.kind === 'file' || w.serial > 0).map((w) => w.key);
  copied.of = workspaces.length;
  // Every lock is taken before anything is read for the copy and held until it is checked: a lock
  // held by another run refuses the migration before the target is written (a refusal midway would
  // leave it half-written, and the retry refused as not empty), and no apply writes in between.
  const releaseLocks = await lockEveryWorkspace(source, target, workspaces, options).catch(asInterrupted);
  try {
    // One call at a time on a backend (see StateBackend): a database backend has one connection.
    const history = await read(source.exportHistory());
    const testRuns = await read(source.exportTestRuns());
    if (workspaces.length === 0 && history.length === 0 && testRuns.length === 0) {
      // Most often a mistyped --state: "copied 0 workspaces" would pass for a migration done.
      throw new VoxformError('state_migrate_refused', `The migration source ${source.display} holds no workspace and no history record: there is nothing to migrate, and nothing was written.`, {
        hint: source.chosenWith === STATE_OPTION ? `Name the state to copy with ${STATE_OPTION}; without either it is ${DEFAULT_STATE_FILE}.` : `Check the ${source.chosenWith} given: name the state to copy with it.`,
      });
    }
    await refuseFullTarget(target, options, read);
    if (options.force) await refuseNewerTarget(source, target, workspaces, history, read);
    const stopIfAsked = () => {
      if (options.signal?.aborted) throw interrupted(source, target, copied, options);
    };
    stopIfAsked();
    try {
      for (const key of workspaces) {
        await copyWorkspace(source, target, key);
        copied.workspaces++;
        stopIfAsked();
      }
      copied.ledgerStarted = true;
      await target.importHistory(history);
      await target.importTestRuns(testRuns);
      copied.ledger = true;
    } catch (error) {
      throw isVoxformError(error) && error.code === 'interrupted' ? error : stoppedByWrite(error, source, target, copied, options);
    }
    stopIfAsked();
    await verify(source, target, workspaces);
    return { workspaces, historyRecords: history.length, testRuns: testRuns.length };
  } finally {
    await releaseLocks();
  }
}

/** Refuses a target that holds a workspace, a history record or a test run, unless `force`. */
async function refuseFullTarget(target: StateBackend, options: MigrateOptions, read: <T>(work: Promise<T>) => Promise<T>): Promise<void> {
  if (options.force) return;
  // A database lists a workspace once a lock was taken on it (this migration's too): one never written holds nothing.
  const targetWorkspaces = await read(target.listWorkspaces()).then((listed) => listed.filter((w) => target.kind === 'file' || w.serial > 0));
  const targetHistory = await read(target.exportHistory());
  const targetTestRuns = await read(target.exportTestRuns());
  if (targetWorkspaces.length === 0 && targetHistory.length === 0 && targetTestRuns.length === 0) return;
  throw new VoxformError(
    'state_migrate_refused',
    `The migration target ${target.display} already holds ${plural(targetWorkspaces.length, 'workspace')}, ${plural(targetHistory.length, 'history record')} and ${plural(targetTestRuns.length, 'test run')}; nothing was copied.`,
    { hint: 'Pick an empty target, or pass --force to overwrite its workspaces of the same names (history records and test runs are added; none is removed).' },
  );
}

/** A workspace the target holds newer than the source's copy of it: what each side last applied, and the records only the target holds. */
interface NewerInTarget {
  key: string;
  source: StoredWorkspace;
  target: StoredWorkspace;
  /** History records of the workspace the source lacks, of applies that ended after the source's last apply. */
  laterRecords: number;
}

/**
 * Refuses, before anything is written, to overwrite a workspace the target holds newer than the
 * source: an apply ran against the target after its copy was made. Overwriting it would roll its
 * state back behind its ledger (ids of knowledge files, credentials and campaigns made since lost:
 * uploaded again by the next apply). Serials are no guide (each backend counts its own), so the
 * applies tell: the target's last apply, or a record in its ledger the source lacks, ending after the
 * source's last apply of that workspace.
 */
async function refuseNewerTarget(source: StateBackend, target: StateBackend, workspaces: readonly string[], sourceHistory: readonly HistoryRecord[], read: <T>(work: Promise<T>) => Promise<T>): Promise<void> {
  const sourceIds = new Set(sourceHistory.map((record) => record.id));
  const onlyInTarget = (await read(target.exportHistory())).filter((record) => !sourceIds.has(record.id));
  const newer: NewerInTarget[] = [];
  for (const key of workspaces) {
    const from = await read(source.readWorkspace(key));
    const to = await read(target.readWorkspace(key));
    if (!to.exists || hashValue(from.workspace) === hashValue(to.workspace)) continue;
    const sourceLast = from.workspace.lastApply?.at;
    const after = (at: string | undefined) => at !== undefined && (sourceLast === undefined || Date.parse(at) > Date.parse(sourceLast));
    const laterRecords = onlyInTarget.filter((record) => record.workspace === key && after(record.at)).length;
    if (after(to.workspace.lastApply?.at) || laterRecords > 0) newer.push({ key, source: from, target: to, laterRecords });
  }
  if (newer.length === 0) return;
  const lines = newer.map((found) => `  ${found.key}: ${source.display} at serial ${found.source.serial}, ${lastApplied(found.source)}; ${target.display} at serial ${found.target.serial}, ${lastApplied(found.target)}${found.laterRecords > 0 ? `, and ${plural(found.laterRecords, 'history record')} of later applies the source lacks` : ''}`);
  const back = `voxform state migrate --state ${shellWord(target.pastable)} --to ${shellWord(source.pastable)} --force`;
  const password = [source, target].some((side) => side.pastable !== side.display) ? ' (with the database password in place of PASSWORD)' : '';
  throw new VoxformError(
    'state_migrate_refused',
    // Each line is printable on its own: the list's line breaks stay line breaks.
    [`The migration target ${target.display} holds ${plural(newer.length, 'workspace')} newer than the source ${source.display}: applied there since the source's copy was made. --force would roll ${newer.length === 1 ? 'it' : 'them'} back behind ${newer.length === 1 ? 'its' : 'their'} ledger, so nothing was copied.`, ...lines].map(controlsAsQuestionMarks).join('\n'),
    { hint: `The target is the state to keep: go on using it, or migrate the other way first (\`${back}\`${password}), then migrate again.` },
  );
}

/** `last apply at 2026-11-23T12:05:01.000Z`, or `no apply recorded`. */
function lastApplied(stored: StoredWorkspace): string {
  return stored.workspace.lastApply ? `last apply at ${stored.workspace.lastApply.at}` : 'no apply recorded';
}

/** How far a stopped migration got, in each side's terms, and the command that finishes it. */
/** How far the copy got: the workspaces written (of how many), and whether the ledger's import began and ended. */
interface Copied {
  workspaces: number;
  of: number;
  ledgerStarted: boolean;
  ledger: boolean;
}

/** What the target holds of a copy that stopped (`copied`), after `holds`. */
function targetHolds(copied: Copied): string {
  if (copied.ledger) return 'the whole copy, written but not yet read back and checked';
  const ledger = copied.ledgerStarted ? 'part of the history records and test runs at most' : 'no history record or test run yet';
  return `part of the copy (${copied.workspaces} of ${plural(copied.of, 'workspace')}, ${ledger})`;
}

function migrationCommand(target: StateBackend, options: MigrateOptions): { command: string; note: string } {
  return { command: options.command ?? `voxform state migrate --to ${shellWord(target.pastable)}`, note: options.commandNote ?? '' };
}

function interrupted(source: StateBackend, target: StateBackend, copied: Copied, options: MigrateOptions): VoxformError {
  const { command, note } = migrationCommand(target, options);
  const wrote = copied.workspaces > 0 || copied.ledgerStarted;
  if (!wrote) {
    return new VoxformError('interrupted', `Migration interrupted before anything was copied: ${source.display} and ${target.display} are as they were.`, {
      hint: `Run \`${command}${options.force ? ' --force' : ''}\`${note} to migrate.`,
    });
  }
  return new VoxformError('interrupted', `Migration interrupted: ${source.display} is left as it was and is still the state to use; ${target.display} holds ${targetHolds(copied)}.`, {
    hint: migrateAgainHint(command, note, source),
  });
}

/**
 * A write the target refused part way (a full disk, a read-only history folder): what failed, what
 * each side holds, and how to finish. Before anything was written, the error as it came.
 */
function stoppedByWrite(error: unknown, source: StateBackend, target: StateBackend, copied: Copied, options: MigrateOptions): unknown {
  if (copied.workspaces === 0 && !copied.ledgerStarted) return error;
  const refused = error instanceof FileWriteError || (isVoxformError(error) && error.code === 'state_write_failed') ? error : undefined;
  if (refused === undefined) return error;
  const { command, note } = migrationCommand(target, options);
  const why = refused instanceof FileWriteError ? `Cannot write ${refused.path}: ${refused.reason}` : refused.message.replace(/\.$/, '');
  return new VoxformError('state_write_failed', `${why}. The migration stopped there: ${source.display} is left as it was and is still the state to use; ${target.display} holds ${targetHolds(copied)}.`, {
    hint: `${stateWriteRemedy(refused.cause)}; then ${migrateAgainHint(command, note, source).replace(/^Run/, 'run')}`,
    cause: error,
  });
}

/**
 * What to do after a migration stopped part way (`command`: the migration as typed, without --force;
 * `note`: said after it): then point what named the source at the target.
 */
export function migrateAgainHint(command: string, note: string, source: Pick<StateBackend, 'chosenWith'>): string {
  return `Run \`${command} --force\`${note} to copy everything again and check the copy (--force: the target now holds what was copied so far); once it says identical, point ${source.chosenWith} at the target.`;
}

/**
 * Takes the lock of every workspace on both sides, refusing at once where another run holds one
 * (naming its unlock), and resolves to what releases them all. A state file has one lock for all
 * its workspaces, so it is taken once; a database locks each workspace on its own.
 */
async function lockEveryWorkspace(source: StateBackend, target: StateBackend, workspaces: readonly string[], options: MigrateOptions): Promise<() => Promise<void>> {
  // migrate takes no --lock-timeout: a refusal says to migrate again, and each unlock names its own backend.
  // A stop ends a wait for a database that does not answer at once: nothing is written before every lock is held.
  const lockOptions = { command: 'voxform state migrate', timeoutSeconds: 0, warn: options.warn ?? (() => undefined), waitAdvice: 'Wait for it to finish, then migrate again.', signal: options.signal };
  const sides = [
    { backend: source, unlockOptions: options.sourceUnlockOptions },
    { backend: target, unlockOptions: `--state ${shellWord(target.pastable)}` },
  ];
  const held: HeldLock[] = [];
  const releaseAll = async () => {
    for (const lock of held.splice(0).reverse()) await lock.release();
  };
  try {
    for (const [index, key] of workspaces.entries()) {
      for (const { backend, unlockOptions } of sides) {
        if (backend.kind === 'file' && index > 0) continue;
        held.push(await backend.acquireLock(key, { ...lockOptions, unlockOptions }));
      }
    }
  } catch (error) {
    await releaseAll();
    throw error;
  }
  return releaseAll;
}

async function copyWorkspace(source: StateBackend, target: StateBackend, key: string): Promise<void> {
  const [from, to] = await Promise.all([source.readWorkspace(key), target.readWorkspace(key)]);
  await target.writeWorkspace(key, from.workspace, to.serial);
}

/** Reads the target back: every workspace, history record and test run must equal the source's. */
async function verify(source: StateBackend, target: StateBackend, workspaces: readonly string[]): Promise<void> {
  for (const key of workspaces) {
    const [from, to] = await Promise.all([source.readWorkspace(key), target.readWorkspace(key)]);
    if (hashValue(from.workspace) !== hashValue(to.workspace)) throw mismatch(target, `workspace ${key} differs`);
  }
  verifyRecords(target, 'history record', await source.exportHistory(), await target.exportHistory());
  verifyRecords(target, 'test run', await source.exportTestRuns(), await target.exportTestRuns());
}

function verifyRecords(target: StateBackend, kind: string, from: readonly { id: string }[], to: readonly { id: string }[]): void {
  const copied = new Map(to.map((record) => [record.id, hashValue(record)]));
  for (const record of from) {
    if (copied.get(record.id) !== hashValue(record)) throw mismatch(target, `${kind} ${record.id} is missing or differs`);
  }
}

function mismatch(target: StateBackend, what: string): VoxformError {
  return new VoxformError('state_migrate_mismatch', `Reading the copy back from ${target.display} failed the check: ${what}.`, {
    hint: 'Another run may be writing to the target; run the migration again with --force once it is idle.',
  });
}
