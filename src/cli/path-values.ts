/**
 * An option or argument that names a path (a file, a folder, a state, an output) refuses the empty
 * string: a script's unset variable (`voxform init "$DIR" --force`, `voxform export --out "$OUT"`)
 * would otherwise be read as the current folder or the default, and the command would act there.
 * Which ones name a path, their value name says, as help shows it (`--out <file>`, `[dir]`): an
 * option or argument is covered as it is declared, and test/cli/empty-path-values.test.ts holds
 * every value name of the command tree to a choice, a path or not.
 */
import type { Command, Option } from 'commander';
import { VoxformError } from '../errors.js';
import { nonEmptyStateSpec } from '../state/open.js';

/** The value names that name a path, each with what it takes. */
export const PATH_VALUES: ReadonlyMap<string, string> = new Map([
  ['file', 'a file'],
  ['dir', 'a folder'],
  ['path', 'a file or folder'],
  ['paths', 'a file or folder'],
  ['plan', 'a plan file'],
  ['url|path', 'a postgres:// URL or a file path'],
  ['name|folder', 'a name or a folder'],
  ['profile', 'a built-in profile or a profile file'],
]);

/** `file` of `--out <file>`; undefined for an option that takes no value. */
export function valueName(option: Option): string | undefined {
  return /[<[]([^>\]]+?)(?:\.\.\.)?[>\]]/.exec(option.flags)?.[1];
}

/** What a refusal says after what the option or argument takes. */
const NEVER_THE_DEFAULT = 'and an empty value is never taken for the current folder or the default';
const IN_A_SCRIPT = 'in a script, check that the variable it comes from is set';

/** Refuses a path typed empty among the options of `cmd` and its parents, and among its arguments. */
export function refuseEmptyPaths(cmd: Command): void {
  for (let current: Command | null = cmd; current; current = current.parent) {
    for (const option of current.options) {
      const takes = PATH_VALUES.get(valueName(option) ?? '');
      const key = option.attributeName();
      if (takes === undefined || current.getOptionValueSource(key) !== 'cli') continue;
      const given: unknown[] = [current.getOptionValue(key)].flat();
      const flag = option.long ?? option.flags;
      if (flag === '--state') {
        // The state's own refusal, `state_location_empty`, which an empty VOXFORM_STATE gets too (docs/state.md).
        for (const value of given) nonEmptyStateSpec(String(value), '--state');
        continue;
      }
      if (!given.includes('')) continue;
      const leaveOut = option.mandatory ? '' : ', or leave the option out';
      throw new VoxformError('invalid_option', `${flag} is empty: it takes ${takes}, ${NEVER_THE_DEFAULT}.`, { hint: `Give ${takes}${leaveOut}; ${IN_A_SCRIPT}.` });
    }
  }
  cmd.registeredArguments.forEach((argument, index) => {
    const takes = PATH_VALUES.get(argument.name());
    const given = argument.variadic ? cmd.args.slice(index) : cmd.args.slice(index, index + 1);
    if (takes === undefined || !given.includes('')) return;
    const leaveOut = argument.required ? '' : ', or leave the argument out';
    const words: string[] = [];
    for (let current: Command | null = cmd; current; current = current.parent) words.unshift(current.name());
    throw new VoxformError('invalid_argument', `${argument.variadic ? 'One of the' : 'The'} <${argument.name()}> given to \`${words.join(' ')}\` is empty: it takes ${takes}, ${NEVER_THE_DEFAULT}.`, {
      hint: `Give ${takes}${leaveOut}; ${IN_A_SCRIPT}.`,
    });
  });
}

