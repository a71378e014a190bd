/**
 * Settling an agent, number, campaign or credential another environment's apply set: the `plan` and
 * `apply` commands that take it, with this run's manifests, environment, service and state, ready to
 * paste — from a command that takes no `--take-over` (`drift`, `promote`, `rollback`), and from `plan` and
 * `apply` themselves, whose refusal is raised below the CLI, which alone knows the options typed.
 */
import { isVoxformError, VoxformError } from '../errors.js';
import type { TakeOverCommands } from '../drift/labels.js';
import { sharedConflictHint, takeOverClause, type SharedResourceConflict } from '../plan/shared-resources.js';
import { shellWord } from '../util/shell-word.js';
import { nextCommand, type ChosenTarget, type LineOptions } from './next-command.js';

/**
 * `selection`: the `--target`s and `--take-over`s of the run refused (a `plan` or `apply`), which the
 * commands keep: the resources it was about, and what it already takes besides these.
 */
export function takeOverCommands(chosen: ChosenTarget, selection: Pick<LineOptions, 'targets' | 'takeOver'> = {}): TakeOverCommands {
  return (addresses) => {
    const flags = [...new Set([...(selection.takeOver ?? []), ...addresses])].map((address) => `--take-over ${shellWord(address)}`).join(' ');
    const line = { targets: selection.targets };
    return { plan: nextCommand(`plan ${flags}`, chosen, line), apply: nextCommand(`apply ${flags}`, chosen, line) };
  };
}

/**
 * `error`, or when it is `shared_resource_conflict`, the same error whose hint names those commands.
 * `command`: the command refused; `drift`, `promote` and `rollback` take no --take-over, and say so; `plan` and
 * `apply` are run again with it (`selection`: the run's own targets and take-overs).
 */
export function withTakeOverCommands(error: unknown, chosen: ChosenTarget, command: string, selection: Pick<LineOptions, 'targets' | 'takeOver'> = {}): unknown {
  if (!isVoxformError(error) || error.code !== 'shared_resource_conflict' || !Array.isArray(error.details)) return error;
  const addresses = [...new Set((error.details as SharedResourceConflict[]).map((conflict) => conflict.address))];
  const { plan, apply } = takeOverCommands(chosen, selection)(addresses);
  // What the refusal said beyond the take-over (how to retire an environment no one applies) stays.
  const said = sharedConflictHint(takeOverClause(addresses));
  const retire = error.hint?.startsWith(said) ? error.hint.slice(said.length) : '';
  // Its `voxform state rm` must remove from the state this run used, not from the default file.
  const retireHere = retire.replace(/`voxform state rm ([^`]+)`/g, (_, workspace: string) => `\`${nextCommand(`state rm ${workspace}`, { state: chosen.state })}\``);
  const takesNone = command === 'plan' || command === 'apply' ? '' : `\`voxform ${command}\` takes no --take-over: `;
  const hint = sharedConflictHint(`${takesNone}review \`${plan}\`, then run \`${apply}\``, retireHere);
  return new VoxformError(error.code, error.message, { hint, details: error.details, ...(error.location ? { location: error.location } : {}) });
}
