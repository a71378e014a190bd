/**
 * A state that lost a workspace: it holds nothing of it, though the deploy ledger beside it records
 * applies of it (the state file deleted, not restored from a CI cache, `--state` naming another
 * one, or the workspace removed with `voxform state rm`, which records nothing of it but keeps its
 * ledger). Every command that reads a workspace's state to act on it reads it here, so that each says
 * so: without the state, what voxform applied is not known, and an apply would count what is already
 * on the service as never applied (knowledge files uploaded again: duplicates on the account).
 */
import { VoxformError } from '../errors.js';
import { STATE_OPTION, type StateBackend, type StoredWorkspace } from './backend.js';

/** A state that lost a workspace its ledger says was applied. */
export interface MissingState {
  /** Where the state is, as it may be shown: a path, or the database URL without its password. */
  state: string;
  /** The newest record of the workspace's ledger. */
  lastApply: { id: string; at: string };
  /** What named the state for this run (`StateBackend.chosenWith`); not known of a report read back. */
  chosenWith?: string | undefined;
}

/** How `missing_state` reads in every JSON report that carries it (plan, drift, status, get). */
export interface MissingStateJson {
  state: string;
  last_apply: { id: string; at: string };
}

export function missingStateJson(missing: MissingState): MissingStateJson {
  return { state: missing.state, last_apply: missing.lastApply };
}

/** The workspace as stored, with `missingState` when the state lost it. */
export interface CheckedWorkspace extends StoredWorkspace {
  missingState?: MissingState | undefined;
}

/**
 * Reads a workspace; when the state holds nothing of it, the ledger's newest record of it says
 * whether it was lost (applied before) rather than never written.
 */
export async function readCheckedWorkspace(backend: StateBackend, key: string): Promise<CheckedWorkspace> {
  const stored = await backend.readWorkspace(key);
  if (stored.exists) return stored;
  for await (const summary of backend.history.summaries({ workspace: key })) {
    return { ...stored, missingState: { state: backend.display, lastApply: { id: summary.id, at: summary.at }, chosenWith: backend.chosenWith } };
  }
  return stored;
}

/**
 * The sentence every command opens its warning with: what is missing and the likely cause.
 * `code`: how a place, name or time from the state and its ledger is written (a code span in Markdown).
 */
function missingStateLead(missing: MissingState, workspace: string, code: (text: string) => string = (text) => text): string {
  return (
    `the state (${code(missing.state)}) holds nothing of workspace ${code(workspace)}, though its history records applies of it (the last ${code(missing.lastApply.id)}, at ${code(missing.lastApply.at)}): ` +
    'the state was deleted, reset or is not the one those applies wrote, or the workspace was removed with `voxform state rm`.'
  );
}

/**
 * The warning a command opens its report with: what is missing, `consequence` (what it does to this
 * command's report), and what to do before an apply. `code` as for `missingStateLead`.
 */
export function missingStateWarning(missing: MissingState, workspace: string, consequence: string, code?: (text: string) => string): string {
  return (
    `Warning: ${missingStateLead(missing, workspace, code)} ${consequence} ` +
    `Restore the state (${restoreFrom(missing)}) before \`voxform apply\`, unless the workspace was removed on purpose: without it, apply uploads every knowledge file again (duplicates on the account) and sets every credential and campaign again.`
  );
}

/** What a plan made without the state counts wrongly, and that an apply of it is refused unless asked for. */
export const PLAN_WITHOUT_STATE =
  'Without it voxform cannot tell what it applied: this plan counts knowledge files, credentials and campaigns already on the service as never applied, and `voxform apply` refuses to run unless given --allow-missing-state.';

/** Why an apply against a state that lost its workspace is refused, and the two ways on. */
export function missingStateError(missing: MissingState, workspace: string): VoxformError {
  return new VoxformError('state_missing', `Refusing to apply: ${missingStateLead(missing, workspace)} Without it voxform cannot tell what it applied, and this apply would create again what is already on the service. Nothing was applied.`, {
    hint: `Restore the state (${restoreFrom(missing)}) and run the command again. To apply without it on purpose (a workspace removed with \`voxform state rm\`, or the service emptied), pass --allow-missing-state: knowledge files are uploaded again, credentials and campaigns set again.`,
  });
}

/** Where a lost state comes back from: a copy, or naming the right one with what named this one. */
function restoreFrom(missing: MissingState): string {
  return `from version control or your CI cache, or name it with ${missing.chosenWith ?? STATE_OPTION}`;
}
