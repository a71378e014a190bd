/**
 * Options typed after `--` (`voxform get agents -- ID --format json`): `--` ends the options, so the
 * parser takes them, and their values, for arguments, and says only that there are too many. This
 * finds them, to say so, and writes the command line with them before `--`. The parser refuses the
 * line before the manifests are read, so a value written again is one of a form that cannot be a
 * secret (docs/security.md §5); anything else stands as a placeholder to fill in.
 */
import type { Option } from 'commander';
import { baseUrlProblem } from '../api/regions.js';
import { shellWord } from '../util/shell-word.js';
import { stateFlags, type ChosenTarget } from './next-command.js';

export interface OptionsAfterDashes {
  /** The options found among the arguments, as typed (`--format`). */
  flags: string[];
  /** The command line again, the options before the arguments (and before `--` when an argument needs it). */
  command: string;
  /**
   * The options of one value given twice, before `--` and after it or twice after it (`--env`): a
   * line with both is refused (repeated-values.ts), and which value was meant is not for voxform to
   * guess, so no line is written.
   */
  repeated: string[];
}

/** How the options before `--` were given: which take one value, and which of those the parser took before `--` (by attribute name). */
export interface GivenOptions {
  takesOneValue: (option: Option) => boolean;
  givenBefore: ReadonlySet<string>;
}

/** The option `token` names (`--format`, `-f`, `--format=json`), if the command takes it. */
function optionNamed(token: string, options: readonly Option[]): Option | undefined {
  const name = token.startsWith('--') ? token.split('=')[0] : token;
  return options.find((option) => option.long === name || option.short === name);
}

/**
 * An environment's name stands as this: whether the manifests define it, the parser cannot know when
 * it refuses the line (they are not read yet), and a name they do not define may be a secret typed in
 * the wrong place (`--env "$DB_PASSWORD"`). A word the shell reads as itself, as a state URL's `PASSWORD`.
 */
const ENVIRONMENT_PLACEHOLDER = 'NAME';
/** A base URL that is not usable (baseUrlProblem: credentials, a query or a fragment, where a token rides) stands as this. */
const BASE_URL_PLACEHOLDER = 'URL';

/** `url` when it is a usable base URL, one the run would take and print; else the placeholder. */
function shownBaseUrl(url: string): string {
  return baseUrlProblem(url) === undefined ? url : BASE_URL_PLACEHOLDER;
}

/**
 * The options that chose the project and service, as the command line written again shows them
 * (chosenFlags writes them): each environment as its placeholder, a base URL only when usable. A
 * manifest path is shown as typed: it names a file the user has, and is no secret's form.
 */
export function shownTarget(chosen: ChosenTarget): ChosenTarget {
  const env = chosen.env === undefined ? undefined : typeof chosen.env === 'string' ? ENVIRONMENT_PLACEHOLDER : chosen.env.map(() => ENVIRONMENT_PLACEHOLDER);
  return { ...chosen, env, baseUrl: chosen.baseUrl === undefined ? undefined : shownBaseUrl(chosen.baseUrl) };
}

/**
 * A value is shown as typed when it is one of the option's fixed choices (`--region eu`), a manifest
 * path, or a usable base URL; a state URL without its password; anything else (an environment's name,
 * a receiver's URL holding a token) as a placeholder (`<url>`, `NAME`), to be typed again.
 */
export function shownValue(option: Option, value: string): string {
  const placeholder = /<[^>]*>|\[[^\]]*\]/.exec(option.flags)?.[0] ?? 'VALUE';
  // A value not among the option's choices is of the wrong form: never repeated (docs/security.md §5).
  if (option.argChoices) return option.argChoices.includes(value) ? shellWord(value) : placeholder;
  if (option.long === '--file') return shellWord(value);
  if (option.long === '--env') return ENVIRONMENT_PLACEHOLDER;
  if (option.long === '--base-url') return shellWord(shownBaseUrl(value));
  if (option.long === '--state') return stateFlags({ state: value })[1] ?? 'VALUE';
  return placeholder;
}

/**
 * `operands`: the command's arguments as parsed (those after `--` included); `options`: what the
 * command and its parents take; `words`: `voxform get`; `typedBefore`: the options the parser took
 * before `--`, as the command line is to show them (`--format json`), kept in it; `argumentShown`:
 * how the argument at a position is shown (one not among its choices, as its name); `given`: which
 * options take one value, and which the parser took before `--`. Undefined when no argument names
 * an option.
 */
export function findOptionsAfterDashes(
  operands: readonly string[],
  options: readonly Option[],
  words: readonly string[],
  typedBefore: readonly string[] = [],
  argumentShown: (value: string, position: number) => string = shellWord,
  given: GivenOptions = { takesOneValue: () => false, givenBefore: new Set() },
): OptionsAfterDashes | undefined {
  const flags: string[] = [];
  const repeated: string[] = [];
  const seen = new Set(given.givenBefore);
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
    const key = option.attributeName();
    if (given.takesOneValue(option) && seen.has(key) && !repeated.includes(option.long ?? name)) repeated.push(option.long ?? name);
    seen.add(key);
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
  return { flags, command: [...words, ...before.map(argumentShown), ...typedBefore, ...optionWords, ...after].join(' '), repeated };
}
