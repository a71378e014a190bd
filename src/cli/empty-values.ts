/**
 * An option or argument that names something (a file, a folder, the state, a URL, an agent, an
 * environment, a call…) refuses the empty string: a script's unset variable (`voxform init "$DIR"
 * --force`, `--base-url "$URL"`, `logs --agent "$AGENT"`) would otherwise be read as the current
 * folder or the default (the production gateway, every agent), and the command would act there.
 * Which ones name something, their value name says, as help shows it (`--out <file>`, `[dir]`,
 * `--agent <name|id>`): an option or argument is covered as it is declared, and
 * test/cli/empty-values.test.ts holds every value name of the command tree to a choice.
 */
import type { Command, Option } from 'commander';
import { VoxformError } from '../errors.js';
import { nonEmptyStateSpec } from '../state/choice.js';

/** What a value name takes, and what an empty value would have been read as. */
interface Named {
  takes: string;
  readAs: string;
}

const PATH = 'the current folder or the default';
const NAME = 'the default';

/** The value names that name something, each with what it takes. */
export const NAMING_VALUES: ReadonlyMap<string, Named> = new Map([
  ['file', { takes: 'a file', readAs: PATH }],
  ['dir', { takes: 'a folder', readAs: PATH }],
  ['path', { takes: 'a file or folder', readAs: PATH }],
  ['paths', { takes: 'a file or folder', readAs: PATH }],
  ['plan', { takes: 'a plan file', readAs: PATH }],
  ['url|path', { takes: 'a postgres:// URL or a file path', readAs: PATH }],
  ['name|folder', { takes: 'a name or a folder', readAs: PATH }],
  ['profile', { takes: 'a built-in profile or a profile file', readAs: PATH }],
  ['url', { takes: 'a URL', readAs: NAME }],
  ['name', { takes: 'a name', readAs: NAME }],
  ['id', { takes: 'an id', readAs: NAME }],
  ['name|id', { takes: 'a name or an id', readAs: NAME }],
  ['env', { takes: 'an environment', readAs: NAME }],
  ['ref', { takes: 'a history record, a commit or `previous`', readAs: NAME }],
  ['revision', { takes: 'a git revision such as origin/main', readAs: NAME }],
  ['call-id', { takes: 'a call id', readAs: NAME }],
  ['workspace', { takes: 'a workspace', readAs: NAME }],
  ['lock-id', { takes: 'a lock id', readAs: NAME }],
  // A server given the empty host listens on every address of the machine, not on loopback.
  ['host', { takes: 'an address such as 127.0.0.1', readAs: 'every address of this machine' }],
]);

/** `file` of `--out <file>`; undefined for an option that takes no value. */
export function valueName(option: Option): string | undefined {
  return /[<[]([^>\]]+?)(?:\.\.\.)?[>\]]/.exec(option.flags)?.[1];
}

const IN_A_SCRIPT = 'in a script, check that the variable it comes from is set';

/**
 * The options of `cmd` and of its parents, each with the command holding its value and its
 * declaration nearest `cmd`. Commander may parse a subcommand's option on a parent that declares one
 * of the same name (`emulator traffic --seed S` sets `emulator`'s `--seed <file>`), but the value is
 * the subcommand's, as the command merges them: its own declaration says what the value takes.
 */
export function optionsInScope(cmd: Command): Array<{ command: Command; option: Option; declared: Option }> {
  const scope: Array<{ command: Command; option: Option; declared: Option }> = [];
  const nearest = new Map<string, Option>();
  for (let current: Command | null = cmd; current; current = current.parent) {
    for (const option of current.options) {
      const declared = nearest.get(option.attributeName()) ?? option;
      nearest.set(option.attributeName(), declared);
      scope.push({ command: current, option, declared });
    }
  }
  return scope;
}

/**
 * Refuses an option's value that is another option of the command (`logs --agent --local`): the
 * option lacked its value, and the one read as its value would not act (`--local` unread, the run
 * going to the service the environment names). A value starting with one dash (an agent's id) is a value.
 */
export function refuseOptionsAsValues(cmd: Command, words: readonly string[]): void {
  const longFlags = new Set<string>();
  for (let current: Command | null = cmd; current; current = current.parent) for (const option of current.options) if (option.long) longFlags.add(option.long);
  for (const { command, option, declared } of optionsInScope(cmd)) {
    const key = option.attributeName();
    if (valueName(declared) === undefined || command.getOptionValueSource(key) !== 'cli') continue;
    const taken = [command.getOptionValue(key)].flat().find((value) => typeof value === 'string' && longFlags.has(value.split('=', 1)[0] as string));
    if (taken === undefined) continue;
    const flag = declared.long ?? declared.flags;
    throw new VoxformError('invalid_option', `${flag} has no value: the next word, ${String(taken).split('=', 1)[0]}, is an option of \`${words.join(' ')}\`, and was read as its value.`, {
      hint: `Give ${flag} <${valueName(declared) ?? 'value'}> its value before the next option.`,
    });
  }
}

/**
 * A command word typed empty (`voxform "$COMMAND"`, `voxform state ""`): refused as every empty value
 * is, with `path`, the group's words (`voxform state`), not as a command of no name.
 */
export function emptyCommandError(path: string): VoxformError {
  return new VoxformError('invalid_argument', `The command given to \`${path}\` is empty: it takes one of its commands, and an empty value is never taken for ${NAME}.`, {
    hint: `Give one of its commands (\`${path} --help\` lists them); ${IN_A_SCRIPT}.`,
  });
}

/** Refuses a value typed empty among the naming options of `cmd` and its parents, and among its arguments; `words` name the command (`voxform state unlock`). */
export function refuseEmptyValues(cmd: Command, words: readonly string[]): void {
  for (const { command, option, declared } of optionsInScope(cmd)) {
    const named = NAMING_VALUES.get(valueName(declared) ?? '');
    const key = option.attributeName();
    if (named === undefined || command.getOptionValueSource(key) !== 'cli') continue;
    const given: unknown[] = [command.getOptionValue(key)].flat();
    const flag = declared.long ?? declared.flags;
    if (flag === '--state') {
      // The state's own refusal, `state_location_empty`, which an empty VOXFORM_STATE gets too (docs/state.md).
      for (const value of given) nonEmptyStateSpec(String(value), '--state');
      continue;
    }
    if (!given.includes('')) continue;
    const leaveOut = declared.mandatory ? '' : ', or leave the option out';
    throw new VoxformError('invalid_option', `${flag} is empty: it takes ${named.takes}, and an empty value is never taken for ${named.readAs}.`, { hint: `Give ${named.takes}${leaveOut}; ${IN_A_SCRIPT}.` });
  }
  cmd.registeredArguments.forEach((argument, index) => {
    const named = NAMING_VALUES.get(argument.name());
    const given = argument.variadic ? cmd.args.slice(index) : cmd.args.slice(index, index + 1);
    if (named === undefined || !given.includes('')) return;
    const leaveOut = argument.required ? '' : ', or leave the argument out';
    throw new VoxformError('invalid_argument', `${argument.variadic ? 'One of the' : 'The'} <${argument.name()}> given to \`${words.join(' ')}\` is empty: it takes ${named.takes}, and an empty value is never taken for ${named.readAs}.`, {
      hint: `Give ${named.takes}${leaveOut}; ${IN_A_SCRIPT}.`,
    });
  });
}

