/**
 * Options typed after `--` (`voxform get agents -- ID --format json`): `--` ends the options, so the
 * parser takes them, and their values, for arguments, and says only that there are too many. This
 * finds them, to say so, and writes the command line with them before `--`.
 */
import type { Option } from 'commander';
import { shellWord } from '../util/shell-word.js';

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

/**
 * A value is shown as typed only when it is one of the option's fixed choices: anything else (a
 * receiver's URL holding a token) is shown as the option's placeholder (`<url>`), to be typed again.
 */
function shownValue(option: Option, value: string): string {
  if (option.argChoices?.includes(value)) return shellWord(value);
  return /<[^>]*>|\[[^\]]*\]/.exec(option.flags)?.[0] ?? 'VALUE';
}

/**
 * `operands`: the command's arguments as parsed (those after `--` included); `options`: what the
 * command and its parents take; `words`: `voxform get`. Undefined when no argument names an option.
 */
export function findOptionsAfterDashes(operands: readonly string[], options: readonly Option[], words: readonly string[]): OptionsAfterDashes | undefined {
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
  const after = dashed < 0 ? [] : ['--', ...argumentsLeft.slice(dashed).map(shellWord)];
  return { flags, command: [...words, ...before.map(shellWord), ...optionWords, ...after].join(' ') };
}
