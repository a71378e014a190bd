/**
 * Settling an agent, number, campaign or credential another environment's apply set, from a command that
 * takes no `--take-over` (`drift`, `promote`): the `plan` and `apply` commands that do, with this
 * run's manifests, environment, service and state, ready to paste.
 */
import { isVoxformError, VoxformError } from '../errors.js';
import type { TakeOverCommands } from '../drift/labels.js';
import { sharedConflictHint, takeOverClause, type SharedResourceConflict } from '../plan/shared-resources.js';
import { shellWord } from '../util/shell-word.js';
import { nextCommand, type ChosenTarget } from './next-command.js';

export function takeOverCommands(chosen: ChosenTarget): TakeOverCommands {
  return (addresses) => {
    const flags = addresses.map((address) => `--take-over ${shellWord(address)}`).join(' ');
    return { plan: nextCommand(`plan ${flags}`, chosen), apply: nextCommand(`apply ${flags}`, chosen) };
  };
}

/** `error`, or when it is `shared_resource_conflict`, the same error whose hint names those commands: `command` (`promote`) takes no --take-over. */
export function withTakeOverCommands(error: unknown, chosen: ChosenTarget, command: string): unknown {
  if (!isVoxformError(error) || error.code !== 'shared_resource_conflict' || !Array.isArray(error.details)) return error;
  const addresses = [...new Set((error.details as SharedResourceConflict[]).map((conflict) => conflict.address))];
  const { plan, apply } = takeOverCommands(chosen)(addresses);
  // What the refusal said beyond the take-over (how to retire an environment no one applies) stays.
  const said = sharedConflictHint(takeOverClause(addresses));
  const retire = error.hint?.startsWith(said) ? error.hint.slice(said.length) : '';
  const hint = sharedConflictHint(`\`voxform ${command}\` takes no --take-over: review \`${plan}\`, then run \`${apply}\``, retire);
  return new VoxformError(error.code, error.message, { hint, details: error.details, ...(error.location ? { location: error.location } : {}) });
}
