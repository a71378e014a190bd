/**
 * Which state the operator chose (`--state`, then VOXFORM_STATE, then the default file), read
 * without opening it. A module that loads no backend: the command line refuses an empty --state
 * (empty-values.ts) before any command, and its shell loads no state backend.
 */
import { VoxformError } from '../errors.js';

export const DEFAULT_STATE_FILE = '.voxform/state.json';

/** Where the operator chose the state: what messages about the choice name. */
type StateSource = '--state' | 'VOXFORM_STATE';

/** What names the choice: the --state flag and the environment. */
type ChoiceOptions = { state?: string | undefined; env: Readonly<Record<string, string | undefined>> };

/** The operator's choice as given (flag, then environment, then the default). */
export function stateSpec(options: ChoiceOptions): string {
  return chosenState(options)?.spec ?? DEFAULT_STATE_FILE;
}

/**
 * The operator's choice (flag, then environment) and which of the two made it; undefined when they
 * made none. A choice made empty is refused, never taken for none: `VOXFORM_STATE: ${{
 * secrets.VOXFORM_STATE }}` of a job the secret does not reach (a fork's pull request) would
 * otherwise run on a new state file, without the team's lock or history.
 */
export function chosenState(options: ChoiceOptions): { spec: string; source: StateSource } | undefined {
  if (options.state !== undefined) return nonEmptyStateSpec(options.state, '--state');
  const fromEnvironment = options.env.VOXFORM_STATE;
  return fromEnvironment === undefined ? undefined : nonEmptyStateSpec(fromEnvironment, 'VOXFORM_STATE');
}

/** `spec` trimmed, as the choice of `source`; an empty one is refused (`state_location_empty`), never taken for the default. */
export function nonEmptyStateSpec(spec: string, source: StateSource): { spec: string; source: StateSource } {
  const trimmed = spec.trim();
  if (trimmed !== '') return { spec: trimmed, source };
  const what = source === '--state' ? '--state is empty' : 'VOXFORM_STATE is set but empty';
  const unset = source === '--state' ? 'leave --state out' : 'unset VOXFORM_STATE';
  throw new VoxformError('state_location_empty', `${what}: it names no state, and voxform does not take it for the default file ${DEFAULT_STATE_FILE}.`, {
    hint: `Give a postgres:// URL or a file path; or, to use ${DEFAULT_STATE_FILE}, ${unset}. In CI, check that the secret it is set from reaches this job (a fork's pull request gets none).`,
  });
}
