/**
 * The file backend's ledger: one JSON file per apply in `history/`, named by its id so a listing sorts
 * in the order records were appended (src/history/ledger-order.ts), written atomically and never
 * changed. A damaged or foreign file is skipped and reported, so one bad file cannot hide the rest
 * of the history. All the records one store reads hold at most MAX_HISTORY_JSON_VALUES_PER_RUN
 * values together: past it the command stops (`history_too_large`).
 */
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { makeKeptFolder, writeKeptFile, type KeptJsonLimits } from '../project-files/kept-files.js';
import { WORK_TREE, type KeptFileSource } from '../project-files/kept-source.js';
import { HISTORY_RECORD_ID, historyRecordProblem, testRunProblem } from './check-record.js';
import { HISTORY_RECORD_LIMITS, storedRecordText, appendedAt } from './stored-record.js';
import { MAX_HISTORY_JSON_VALUES_PER_RUN } from '../project-files/limits.js';
import { aheadOfClock, newHistoryId } from './ledger-order.js';
import { sealRecord, type LedgerSealKey } from './seal.js';
import { formatCount } from '../util/plural.js';
import { sameStrings, summarizeRecord, type HistoryQuery, type HistoryRecord, type HistoryStore, type RecordSummary, type SkippedRecord, type TestRunRecord } from './types.js';

/** The folder of test runs' evidence, inside the history folder. */
const TEST_RUNS_FOLDER = 'test-runs';

type ProblemOf = (value: unknown) => string | undefined;
type OnSkipped = ((skipped: SkippedRecord) => void) | undefined;

/** The values of a parsed JSON value, itself included, keys not counted (as the kept files' budget counts them). */
function jsonValueCount(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 1;
  let count = 1;
  for (const item of Array.isArray(value) ? value : Object.values(value)) count += jsonValueCount(item);
  return count;
}

/** The records read so far hold nearly the run's budget, and `file` would take them past it. */
function historyTooLarge(directory: string, file: string, valuesPerRun: number): VoxformError {
  return new VoxformError(
    'history_too_large',
    `The history records in ${directory} hold more than ${formatCount(valuesPerRun)} JSON values together (the cap on what one command reads of them), reached at ${path.basename(file)}; the command stopped there.`,
    { hint: 'A history that large is not one voxform wrote: remove the records nobody deployed (check `git log` of the folder). To keep a long history, move the older records out of the folder (git keeps them), or use the PostgreSQL state (docs/history.md#where-records-are-kept).' },
  );
}

/** The folder cannot be listed: a file where it (or a folder above it) should be, or no permission. */
function unreadableFolder(directory: string, error: NodeJS.ErrnoException): VoxformError {
  const why = error.code === 'ENOTDIR' ? 'it, or a folder above it, is a file' : (error.code ?? error.message);
  return new VoxformError('state_unreadable', `Cannot read the history folder ${directory}: ${why}.`, {
    hint: 'The history is the folder `history/` beside the state file: move what is in its way, fix its permissions, or point --state at a state file in another folder.',
    cause: error,
  });
}

export class FileHistoryStore implements HistoryStore {
  /** What the records this store reads may still hold, in JSON values. */
  private valuesLeft: number;

  /**
   * `limits`: what a record may be, read or written; `valuesPerRun`: what all it reads may hold (tests
   * lower both); `source`: where the records are read from (a git revision's, for evidence only: never written).
   */
  constructor(
    readonly directory: string,
    private readonly limits: KeptJsonLimits = HISTORY_RECORD_LIMITS,
    private readonly valuesPerRun: number = MAX_HISTORY_JSON_VALUES_PER_RUN,
    private readonly source: KeptFileSource = WORK_TREE,
  ) {
    this.valuesLeft = valuesPerRun;
  }

  append(record: Omit<HistoryRecord, 'id' | 'seal' | 'previous'>, sealKey: LedgerSealKey): Promise<HistoryRecord> {
    return this.appendIn(this.directory, record, sealKey);
  }

  summaries(query: HistoryQuery): AsyncIterable<RecordSummary> {
    return this.summariesOf((workspace) => workspace === query.workspace, query.onSkipped, query.sealKey);
  }

  /**
   * One walk of the folder, newest first across the workspaces: the records of every workspace sit in
   * one folder, named by id alone, so a record's workspace is known only once it is read.
   */
  summariesOfWorkspaces(picked: (workspace: string) => boolean): AsyncIterable<RecordSummary> {
    return this.summariesOf(picked, undefined, undefined);
  }

  private async *summariesOf(picked: (workspace: string) => boolean, onSkipped: OnSkipped, sealKey: LedgerSealKey | undefined): AsyncIterable<RecordSummary> {
    const same = sameStrings();
    for (const id of (await this.recordIds(this.directory, onSkipped)).reverse()) {
      const record = await this.readChecked<HistoryRecord>(this.directory, id, historyRecordProblem, onSkipped);
      if (record && picked(record.workspace)) yield summarizeRecord(record, same, sealKey);
    }
  }

  async read(query: HistoryQuery, id: string): Promise<HistoryRecord | undefined> {
    if (!HISTORY_RECORD_ID.test(id)) return undefined;
    await this.source.checkFolder(this.directory);
    const record = await this.readChecked<HistoryRecord>(this.directory, id, historyRecordProblem, query.onSkipped);
    return record?.workspace === query.workspace ? record : undefined;
  }

  appendTestRun(run: Omit<TestRunRecord, 'id' | 'seal' | 'previous'>, sealKey: LedgerSealKey): Promise<TestRunRecord> {
    return this.appendIn(this.testRunsDirectory, run, sealKey);
  }

  listTestRuns(query: HistoryQuery): Promise<TestRunRecord[]> {
    return this.readNewest<TestRunRecord>(this.testRunsDirectory, testRunProblem, query);
  }

  /** Every record of every workspace, oldest first (`voxform state migrate`); files that hold none are skipped. */
  all(onSkipped?: (skipped: SkippedRecord) => void): Promise<HistoryRecord[]> {
    return this.readAll<HistoryRecord>(this.directory, historyRecordProblem, onSkipped);
  }

  /** Every test run of every workspace, oldest first (`voxform state migrate`); files that hold none are skipped. */
  allTestRuns(onSkipped?: (skipped: SkippedRecord) => void): Promise<TestRunRecord[]> {
    return this.readAll<TestRunRecord>(this.testRunsDirectory, testRunProblem, onSkipped);
  }

  /** The folder of test runs' evidence. */
  get testRunsDirectory(): string {
    return path.join(this.directory, TEST_RUNS_FOLDER);
  }

  /**
   * Every record id in the folder, oldest first. A JSON file named otherwise (`foreign.json`, a renamed
   * copy of a record) is no record: reported to `onSkipped`. Other names are not the ledger's
   * (an atomic write's `.NAME.PID.tmp`, the folder of test runs, a `.gitkeep`).
   */
  private async recordIds(directory: string, onSkipped: OnSkipped): Promise<string[]> {
    // Before listing it: a linked folder's names are another folder's.
    await this.source.checkFolder(directory);
    let names: string[];
    try {
      names = await this.source.list(directory);
    } catch (error) {
      if (error instanceof VoxformError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw unreadableFolder(directory, error as NodeJS.ErrnoException);
    }
    const ids: string[] = [];
    for (const name of names.filter((name) => name.endsWith('.json')).sort()) {
      const id = name.slice(0, -'.json'.length);
      if (HISTORY_RECORD_ID.test(id)) ids.push(id);
      else onSkipped?.({ where: path.join(directory, name), problem: 'file name: not a record id followed by .json' });
    }
    return ids;
  }

  private async appendIn<T extends { id: string; workspace: string; at: string; agents: object }>(directory: string, record: Omit<T, 'id' | 'seal' | 'previous'>, sealKey: LedgerSealKey): Promise<T> {
    await makeKeptFolder(directory);
    const at = appendedAt(record);
    const ids = (await this.recordIds(directory, undefined)).filter((id) => !aheadOfClock(id, at));
    const previous = await this.newestOfWorkspace(directory, ids, record.workspace);
    // Sealed once it has its id: the seal covers the id, so a copy under another id is no sealed record.
    const stored = sealRecord(sealKey, { id: newHistoryId(at, ids.at(-1)), ...record, previous }) as unknown as T;
    await this.write(directory, stored);
    return stored;
  }

  /** The id of `workspace`'s newest record among `ids` (oldest first), read back from the newest: the folder holds every workspace's. */
  private async newestOfWorkspace(directory: string, ids: readonly string[], workspace: string): Promise<string | null> {
    for (let i = ids.length - 1; i >= 0; i--) {
      const id = ids[i] as string;
      const record = await this.readChecked<{ id: string; workspace: string }>(directory, id, this.problemOf(directory), undefined);
      if (record?.workspace === workspace) return id;
    }
    return null;
  }

  private problemOf(directory: string): ProblemOf {
    return directory === this.testRunsDirectory ? testRunProblem : historyRecordProblem;
  }

  /** Stores a record as `ID.json` (an import keeps its id), refused when this store could not read it back. */
  async write(directory: string, record: { id: string; agents: object }): Promise<void> {
    const text = storedRecordText(record, this.problemOf(directory), this.limits);
    await makeKeptFolder(directory);
    // A record of what the run did: saved though the run was stopped at once.
    await writeKeptFile(path.join(directory, `${record.id}.json`), text, { evenOnStop: true });
  }

  /** The query's workspace's records, newest first. */
  private async readNewest<T extends { id: string; workspace: string }>(directory: string, problemOf: ProblemOf, query: HistoryQuery): Promise<T[]> {
    const found: T[] = [];
    for (const id of (await this.recordIds(directory, query.onSkipped)).reverse()) {
      const record = await this.readChecked<T>(directory, id, problemOf, query.onSkipped);
      if (record && record.workspace === query.workspace) found.push(record);
    }
    return found;
  }

  private async readAll<T extends { id: string }>(directory: string, problemOf: ProblemOf, onSkipped: OnSkipped): Promise<T[]> {
    const records: T[] = [];
    for (const id of await this.recordIds(directory, onSkipped)) {
      const record = await this.readChecked<T>(directory, id, problemOf, onSkipped);
      if (record) records.push(record);
    }
    return records;
  }

  /**
   * The record of a file, or undefined (reported to `onSkipped`) when it holds none. Read under the
   * guards of kept files: a record may be a link to `/dev/urandom`, a FIFO or a file outside its folder.
   * Its values count against the store's budget, skipped or not; one past what is left stops the command.
   */
  private async readChecked<T extends { id: string }>(directory: string, id: string, problemOf: ProblemOf, onSkipped: OnSkipped): Promise<T | undefined> {
    const file = path.join(directory, `${id}.json`);
    const maxValues = Math.min(this.limits.maxValues, this.valuesLeft);
    let problem: string | undefined;
    let overRun = false;
    try {
      const read = await this.source.readJson(file, { ...this.limits, maxValues });
      if (!read.found) return undefined; // removed since the folder was listed
      if (!read.ok) {
        // Past what is left of the run's budget, not a record's own: the command stops.
        overRun = read.reason === 'over_budget' && maxValues < this.limits.maxValues && read.problem.includes('JSON values');
        problem = read.reason === 'not_json' ? 'not JSON' : `it ${read.problem}`;
      } else {
        this.valuesLeft -= jsonValueCount(read.value);
        problem = problemOf(read.value) ?? ((read.value as T).id === id ? undefined : 'id: not the id its file is named by');
        if (problem === undefined) return read.value as T;
      }
    } catch (error) {
      // What stops the command (a git revision that cannot be read) is no damaged record to skip.
      if (error instanceof VoxformError) throw error;
      problem = `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
    }
    if (overRun) throw historyTooLarge(directory, file, this.valuesPerRun);
    onSkipped?.({ where: file, problem });
    return undefined;
  }
}
