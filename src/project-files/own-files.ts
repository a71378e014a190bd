/**
 * The one rule for a path the user names for voxform to write (`report --out`, `test --out`,
 * `test capture --out`, `plan --out`, the folder of `export --out` and `init`): it must not replace
 * voxform's own files nor what voxform reads. A report over `.voxform/state.json` would lose the
 * state (and with it what apply made), one over `.voxform/local.json` the local account, one over a
 * history record an apply's record, one over `voxform.yaml` the manifest. Test files, recordings
 * and manifests (every *.yaml and *.yml: no report is YAML) are known by their names, so one is
 * refused whether or not this run reads it: a report over a test file of the suite that `voxform
 * test FILE` left out, or over the manifest of an environment -f left out, would lose it all the same.
 *
 * The files voxform writes as its own at a path the user chooses (`emulator --data`, `state migrate
 * --to`) are not outputs of this kind: their readers take only a file of their own kind over.
 */
import path from 'node:path';
import type { ErrorCode } from '../error-codes.js';
import { VoxformError } from '../errors.js';
import { isOneOf } from '../util/atomic-write.js';
import { isInside, pathExists } from './guarded-read.js';
import { realPathOfMaybeMissing } from './guarded-write.js';
import { folderSearchTakes, isRecordingName } from './manifest-files.js';

/** voxform's folder of its own files in a project. */
const OWN_FOLDER = '.voxform';

/** What a run must not write over, beyond every `.voxform` folder. */
export interface OwnFiles {
  /** The folder relative paths are resolved from. */
  cwd: string;
  /** The state file the operator chose (`--state` or VOXFORM_STATE), absolute; undefined for a database URL. */
  stateFile?: string | undefined;
  /** Files the run reads (absolute): manifests, the files they name, test files, recordings. */
  inputs?: readonly string[];
  /**
   * What the output is when it is no report, as far as its name may be an input's: a test file
   * (`test capture --out`: the name it must have, checked there); a plan, which may be named as YAML
   * (`plan --out` refuses every file that exists and is not a plan, so no manifest is replaced); a
   * folder (`export --out`, `init`: each file written in it is checked, and replaced only with --force).
   */
  writes?: 'test file' | 'plan' | 'folder';
}

/**
 * Why voxform may not write `target` (a file or the folder it writes into), completing "Cannot write X: …";
 * undefined when it may. Links are followed: a link to the state is the state.
 */
async function ownFileProblem(target: string, own: OwnFiles): Promise<string | undefined> {
  const written = path.resolve(own.cwd, target);
  const real = await realPathOfMaybeMissing(written);
  const ownFolder = `${OWN_FOLDER}, voxform's own folder (the state, its lock and history, test runs, the local emulator's account, caches)`;
  if (await inOwnFolder(written)) return `it is in ${ownFolder}`;
  if (await inOwnFolder(real)) return `it is a symbolic link into ${ownFolder}`;
  const state = own.stateFile;
  if (state !== undefined && (await isStateFile(written, real, state))) return 'it is the state file, or its lock or history, which voxform keeps';
  if (own.inputs !== undefined && (await isOneOf(written, own.inputs))) return 'this run reads it (a manifest, a file one names, a test file or a recording)';
  if (own.writes === 'test file' || own.writes === 'folder') return undefined;
  for (const name of new Set([path.basename(written), path.basename(real)])) {
    const taken = folderSearchTakes(name);
    if (taken === 'test') return 'it is a test file (*.test.yaml, *.test.yml), which voxform test reads';
    if (taken === 'manifest' && own.writes !== 'plan') return 'it is a YAML file (*.yaml, *.yml), which voxform reads as a manifest, and no report is YAML';
    if (isRecordingName(name)) return 'it is a recording (*.recording.json), which voxform test --mode replay reads';
  }
  return undefined;
}

/**
 * Refuses `target` when voxform may not write it (ownFileProblem): "<cannot>: <why>; <outcome>." ("Cannot save the
 * plan to plan.json", "nothing was written"), with `hint`, by default naming another file with --out.
 */
export async function refuseOwnFile(target: string, own: OwnFiles, refusal: { code: ErrorCode; cannot: string; outcome: string; hint?: string }): Promise<void> {
  const problem = await ownFileProblem(target, own);
  if (problem === undefined) return;
  throw new VoxformError(refusal.code, `${refusal.cannot}: ${problem}; ${refusal.outcome}.`, { hint: refusal.hint ?? 'Name another file with --out.' });
}

/** Whether `written` (or its real path) is the state file, its lock or forced-open record, or in its history folder. */
async function isStateFile(written: string, real: string, state: string): Promise<boolean> {
  const states = new Set([state, await realPathOfMaybeMissing(state)]);
  for (const file of states) {
    const own = [file, `${file}.forced-open.json`];
    const folders = [`${file}.lock`, path.join(path.dirname(file), 'history')];
    for (const candidate of [written, real]) {
      if (own.includes(candidate) || folders.some((folder) => isInside(folder, candidate))) return true;
    }
  }
  return false;
}

/**
 * Whether `file` is, or is inside, a `.voxform` folder, looking up to the git work tree holding it
 * (outside git: to the root): a project kept in a folder that happens to be named `.voxform` above
 * its work tree is not voxform's.
 */
async function inOwnFolder(file: string): Promise<boolean> {
  for (let dir = file; ; dir = path.dirname(dir)) {
    if (path.basename(dir) === OWN_FOLDER) return true;
    if (dir !== file && (await pathExists(path.join(dir, '.git'), { follow: false }))) return false;
    if (path.dirname(dir) === dir) return false;
  }
}
