import { mkdir, readFile } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { emptyWorkspace, type LastApply, type StateFile, type WorkspaceState } from './types.js';

/** Reads the state file; a missing file is an empty state, a damaged one a clear error. */
export async function readStateFile(file: string): Promise<StateFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, serial: 0, workspaces: {} };
    throw new VoxformError('state_unreadable', `Cannot read the state file ${file}: ${(error as Error).message}.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new VoxformError('state_invalid', `The state file ${file} is not valid JSON.`, {
      hint: 'Restore it from version control or your CI cache; deleting it makes voxform treat campaigns, knowledge files and credentials as never applied.',
    });
  }
  const state = parsed as Partial<StateFile>;
  if (state.version !== 1 || typeof state.workspaces !== 'object' || state.workspaces === null) {
    throw new VoxformError('state_invalid', `The state file ${file} has an unknown format (version ${String(state.version)}).`, {
      hint: 'It may come from a newer voxform; upgrade voxform or use another --state file.',
    });
  }
  for (const ws of Object.values(state.workspaces)) {
    for (const key of Object.keys(emptyWorkspace()) as Array<Exclude<keyof WorkspaceState, 'environmentVariables' | 'lastApply'>>) ws[key] ??= {};
    // Anything but a list of names is no record at all: the next plan then marks every variable as new.
    if (!isNameList(ws.environmentVariables)) delete ws.environmentVariables;
    if (ws.lastApply !== undefined && !isLastApply(ws.lastApply)) delete ws.lastApply;
  }
  // A `salt` of older versions is dropped: hashes are keyed now (see `hashApplied`), and the next
  // write leaves it out.
  return { version: 1, serial: typeof state.serial === 'number' ? state.serial : 0, workspaces: state.workspaces };
}

/** `user@host` of this run, as a state lock names its owner. */
function runBy(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (some containers): the host alone still says where it ran.
  }
  return `${user}@${hostname()}`;
}

function isLastApply(value: unknown): value is LastApply {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    ['at', 'by', 'command', 'outcome'].every((key) => typeof record[key] === 'string') &&
    ['applied', 'failed', 'skipped'].every((key) => Number.isInteger(record[key]))
  );
}

function isNameList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * Keeps the state of one workspace and writes it after every change. Writes are serialized and
 * coalesced: while one write is in flight, further updates wait for the next write, which carries
 * all of them, so 500 parallel successes cost a handful of fsyncs, and every `save()` resolves only
 * once its update is on disk (atomically: a crash leaves the old or the new file, never a torn one).
 */
export class StateStore {
  private writing: Promise<void> | undefined;
  private pending: Promise<void> | undefined;

  /**
   * `fingerprintKey` is the key of the hashes of applied values (`hashApplied`): derived from the
   * API key, kept in memory only.
   */
  constructor(
    readonly file: string,
    private readonly state: StateFile,
    readonly workspaceKey: string,
    readonly fingerprintKey: string,
  ) {
    state.workspaces[workspaceKey] ??= emptyWorkspace();
  }

  static async open(file: string, workspaceKey: string, fingerprintKey: string): Promise<StateStore> {
    return new StateStore(file, await readStateFile(file), workspaceKey, fingerprintKey);
  }

  get workspace(): WorkspaceState {
    return this.state.workspaces[this.workspaceKey] as WorkspaceState;
  }

  /** Applies `change` to the workspace in memory and resolves once it is on disk. */
  async update(change: (workspace: WorkspaceState) => void): Promise<void> {
    change(this.workspace);
    await this.save();
  }

  /** Records the names of the environment variables this apply's manifests read (see `WorkspaceState.environmentVariables`). */
  recordEnvironmentVariables(names: readonly string[]): Promise<void> {
    return this.update((workspace) => {
      workspace.environmentVariables = [...new Set(names)].sort();
    });
  }

  /**
   * Records how an apply ended (`voxform status` shows it). The command is the operator's, as
   * typed; counts only, never a value.
   */
  recordLastApply(record: Omit<LastApply, 'at' | 'by'>): Promise<void> {
    return this.update((workspace) => {
      workspace.lastApply = { at: new Date().toISOString(), by: runBy(), ...record };
    });
  }

  save(): Promise<void> {
    if (!this.writing) {
      this.writing = this.write().finally(() => (this.writing = undefined));
      return this.writing;
    }
    // A write is in flight with an older snapshot: queue one more that will include this change.
    this.pending ??= this.writing.then(() => {
      this.pending = undefined;
      return this.save();
    });
    return this.pending;
  }

  private async write(): Promise<void> {
    this.state.serial += 1;
    await mkdir(path.dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, `${JSON.stringify(this.state, null, 2)}\n`);
  }
}
