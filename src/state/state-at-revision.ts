/**
 * The file state and its deploy ledger as the operator's base revision holds them: evidence of which
 * live values are secret that a pull request cannot edit. A state file in the git work tree is the
 * pull request's, which may empty its list of variables or delete the ledger beside it; the base
 * revision (VOXFORM_BASE_REF, the one the policy is compared with) is the operator's choice, and git
 * reads it without the work tree (src/project-files/kept-source.ts). Read, never written.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { isVoxformError, VoxformError } from '../errors.js';
import { printable } from '../util/printable.js';
import { FileHistoryStore } from '../history/file-store.js';
import { gitWorkTreeRoot, openCommit } from '../project-files/git.js';
import { keptFilesAtCommit } from '../project-files/kept-source.js';
import { BASE_REF_VARIABLE, baseRefOf } from '../project-files/base-revision.js';
import { STATE_OPTION, type StateBackend } from './backend.js';
import { FileStateBackend } from './file-backend.js';
import { readStateFile } from './state-file.js';
import type { StateFile } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

interface StateAtRevision {
  state: StateFile;
  /** The ledger beside the state file, at the revision. */
  history: FileHistoryStore;
}

const FETCH_THE_BASE = `Fetch the base branch (in CI: fetch-depth: 0) or name a revision that exists in ${BASE_REF_VARIABLE}.`;

/** `ref` is the environment's, printed with its control characters escaped (a line break would forge a line of output). */
function unreadable(ref: string, why: string, hint: string = FETCH_THE_BASE): VoxformError {
  return new VoxformError('state_base_unreadable', `the base revision "${printable(ref)}" (${BASE_REF_VARIABLE}) ${why}, so voxform cannot read the state and deploy ledger it holds: the evidence of which live values are secret, which the checkout's copy of them may have lost.`, {
    hint,
  });
}

/**
 * The base's state file refused (damaged, foreign, over its limits): the hint of the checkout's file
 * (restore or delete it) does not fit a copy in a revision, which only the base branch changes.
 */
function baseStateRefused(error: unknown): unknown {
  if (!isVoxformError(error) || (error.code !== 'state_invalid' && error.code !== 'state_unreadable')) return error;
  return new VoxformError(error.code, error.message, {
    hint: `That is the base revision's copy, not the checkout's: name another base revision in ${BASE_REF_VARIABLE}, or fix the state file on the base branch.`,
    cause: error,
  });
}

/** `place` (absolute) with its deepest existing folder as a real path: the state's folder may be gone from the checkout. */
async function realPlace(place: string): Promise<{ existing: string; real: string }> {
  let existing = place;
  for (;;) {
    const real = await realpath(existing).catch(() => undefined);
    if (real !== undefined) return { existing, real: path.join(real, path.relative(existing, place)) };
    if (path.dirname(existing) === existing) return { existing, real: place };
    existing = path.dirname(existing);
  }
}

/**
 * The file state of `backend` and its ledger at the base revision the operator names in
 * VOXFORM_BASE_REF, when the state file is in a git work tree; undefined without a base revision,
 * for a database, or for a state file in no work tree (no pull request can edit it). A base git cannot
 * read stops the command (`state_base_unreadable`): the evidence it holds would be missed.
 */
export async function stateAtBaseRevision(backend: StateBackend, env: Env): Promise<StateAtRevision | undefined> {
  const ref = baseRefOf(undefined, env);
  if (ref === undefined || !(backend instanceof FileStateBackend)) return undefined;
  const { existing, real: stateFile } = await realPlace(path.resolve(backend.file));
  if ((await gitWorkTreeRoot(existing)) === undefined) return undefined;
  const { repository, commit } = await openCommit(existing, env, ref, (why, hint) => unreadable(ref, why, hint), {
    why: 'cannot be read: git is not installed here, or cannot read the repository',
    hint: 'Install git, or put it on PATH, for voxform reads the base revision with it; if it is there, check that `git status` works in this checkout.',
  });
  const source = keptFilesAtCommit(repository, commit, (why) => unreadable(ref, why));
  return {
    state: await readStateFile(stateFile, `${backend.display} at ${printable(ref)}`, STATE_OPTION, source).catch((error: unknown) => {
      throw baseStateRefused(error);
    }),
    history: new FileHistoryStore(path.join(path.dirname(stateFile), 'history'), undefined, undefined, source),
  };
}
