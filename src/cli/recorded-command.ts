/**
 * The command a deploy's history record and lock name, one rule for every command that deploys
 * (apply, rollback, promote, drift --heal): its own words and the options that change what is
 * applied (the environment, the targets, what is taken over from another environment, an apply past
 * a lost workspace). Their values are names and addresses, never a secret; the options that only say
 * how to reach the service or the state are left out (a state URL holds a password).
 */
import { nextCommand } from './next-command.js';

/** The options of a deploy that change what it applies. */
interface RecordedOptions {
  env?: string | undefined;
  target?: string[] | undefined;
  takeOver?: string[] | undefined;
  allowMissingState?: boolean | undefined;
}

/** `voxform WORDS` (already quoted) with the options of `options` that change what is applied, written as every printed command line writes them. */
export function recordedCommand(words: string, options: RecordedOptions): string {
  // The environment alone of the chosen options: the others only say how to reach the service and state.
  const command = nextCommand(words, { env: options.env }, { targets: options.target, takeOver: options.takeOver });
  return options.allowMissingState ? `${command} --allow-missing-state` : command;
}
