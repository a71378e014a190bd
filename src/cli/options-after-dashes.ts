/**
 * Options typed after `--` (`voxform get agents -- ID --format json`): `--` ends the options, so the
 * parser takes them, and their values, for arguments, and says only that there are too many. This
 * finds them, to say so, and writes the command line with them before `--`.
 */
import type { Option } from 'commander';
import { shellWord } from '../util/shell-word.js';
import { stateFlags } from './next-command.js';

export interface OptionsAfterDashes {
  /** The options found among the arguments, as typed (`--format`). */
  flags: string[];
  /** The command line again, the options before the arguments (and before `--` when an argument needs it). */
  command: string;
}

/** The option `token` names (`--format`, `-f`, `--format=json`), if the command takes it. */
function optionNamed(token: string, options: readonly Option[]): Option | undefined {
  const name = token.startsWith('--') ? token.split('=')[0] : token;
  return options.find((option) => option.long === name || option.short === name);
}

/** The options whose values every command line voxform prints shows as typed (next-command.ts). */
const SHOWN_AS_TYPED = new Set(['--file', '--env', '--base-url', '--region']);

/**
 * A value is shown as typed when it is one of the option's fixed choices, or the value of an option
 * that chose the project and service, as every printed command line shows them (a state URL without
 * its password): anything else (a receiver's URL holding a token) is shown as the option's
 * placeholder (`<url>`), to be typed again.
 */
export function shownValue(option: Option, value: string): string {
  const placeholder = /<[^>]*>|\[[^\]]*\]/.exec(option.flags)?.[0] ?? 'VALUE';
  // A value not among the option's choices is of the wrong form: never repeated (docs/security.md §5).
  if (option.argChoices) return option.argChoices.includes(value) ? shellWord(value) : placeholder;
  if (SHOWN_AS_TYPED.has(option.long ?? '')) return shellWord(value);
  if (option.long === '--state') return stateFlags({ state: value })[1] ?? 'VALUE';
  return placeholder;
}

/**
 * `operands`: the command's arguments as parsed (those after `--` included); `options`: what the
 * command and its parents take; `words`: `voxform get`; `typedBefore`: the options the parser took
 * before `--`, as the command line is to show them (`--format json`), kept in it; `argumentShown`:
 * how the argument at a position is shown (one not among its choices, as its name). Undefined when
 * no argument names an option.
 */
export function findOptionsAfterDashes(
  operands: readonly string[],
  options: readonly Option[],
  words: readonly string[],
  typedBefore: readonly string[] = [],
  argumentShown: (value: string, position: number) => string = shellWord,
): OptionsAfterDashes | undefined {
  const flags: string[] = [];
  const optionWords: string[] = [];
  const argumentsLeft: string[] = [];
  for (let i = 0; i < operands.length; i++) {
    const token = operands[i] ?? '';
    const option = optionNamed(token, options);
    if (!option) {
      argumentsLeft.push(token);
      continue;
    }
    const name = token.split('=')[0] ?? token;
    flags.push(name);
    optionWords.push(name);
    if (option.isBoolean()) continue;
    const value = token.includes('=') ? token.slice(token.indexOf('=') + 1) : operands[++i];
    if (value !== undefined) optionWords.push(shownValue(option, value));
  }
  if (flags.length === 0) return undefined;
  // Arguments up to the first that starts with `-` need no `--`; from there on they do.
  const dashed = argumentsLeft.findIndex((argument) => argument.startsWith('-'));
  const before = dashed < 0 ? argumentsLeft : argumentsLeft.slice(0, dashed);
  const after = dashed < 0 ? [] : ['--', ...argumentsLeft.slice(dashed).map((argument, i) => argumentShown(argument, dashed + i))];
  return { flags, command: [...words, ...before.map(argumentShown), ...typedBefore, ...optionWords, ...after].join(' ') };
}
