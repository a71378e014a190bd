/**
 * The command a deploy's history record and lock name, one rule for every command that deploys
 * (apply, rollback, promote, drift --heal): its own words and the options that change what is
 * applied (the environment, the targets, what is taken over from another environment, an apply past
 * a lost workspace). Their values are names and addresses, never a secret; the options that only say
 * how to reach the service or the state are left out (a state URL holds a password).
 */
import { shellWord } from '../util/shell-word.js';

/** The options of a deploy that change what it applies. */
export interface RecordedOptions {
  env?: string | undefined;
  target?: string[] | undefined;
  takeOver?: string[] | undefined;
  allowMissingState?: boolean | undefined;
}

/** `voxform WORDS` (already quoted) with the options of `options` that change what is applied. */
export function recordedCommand(words: string, options: RecordedOptions): string {
  const flags: string[] = [];
  if (options.env !== undefined) flags.push('--env', shellWord(options.env));
  for (const address of options.target ?? []) flags.push('--target', shellWord(address));
  for (const address of options.takeOver ?? []) flags.push('--take-over', shellWord(address));
  if (options.allowMissingState) flags.push('--allow-missing-state');
  return [`voxform ${words}`, ...flags].join(' ');
}
