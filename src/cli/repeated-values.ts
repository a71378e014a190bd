/**
 * An option that takes one value, given twice (`apply --env staging --env production`), is refused
 * before any command runs: the parser would keep the last value without a word. A repeatable option
 * (`-f`, `--agent`: its values collected into a list) takes each.
 */
import type { Command, Option } from 'commander';
import { VoxformError } from '../errors.js';
import { optionsInScope, valueName } from './empty-values.js';

/** How often the parser read each option that takes one value, by the option (countOccurrences). */
const occurrences = new WeakMap<Option, number>();

/**
 * Counts, as the parser reads the command line, each occurrence of every option of `program`'s
 * commands that takes one value, for refuseRepeatedValues: the parser keeps the last value without
 * a word. `isList`: an option that collects every value it is given (`-f`, `--agent`: repeatable).
 */
export function countOccurrences(program: Command, isList: (option: Option) => boolean): void {
  for (const option of program.options) {
    if (!takesOneValue(option, isList)) continue;
    program.on(`option:${option.name()}`, () => occurrences.set(option, (occurrences.get(option) ?? 0) + 1));
  }
  for (const sub of program.commands) countOccurrences(sub, isList);
}

/** Whether `option` takes one value: not a flag, not a list (variadic, or `isList`: its values collected). */
export function takesOneValue(option: Option, isList: (option: Option) => boolean): boolean {
  return valueName(option) !== undefined && !option.variadic && !isList(option);
}

/**
 * Refuses an option of one value given more than once (`apply --env staging --env production`,
 * a CI job's extra arguments after its own): the parser would take the last without a word, and a
 * run on the other environment is no typo to guess at. The values are not repeated (docs/security.md §5).
 */
export function refuseRepeatedValues(cmd: Command, words: readonly string[]): void {
  for (const { option, declared } of optionsInScope(cmd)) {
    const count = occurrences.get(option) ?? 0;
    if (count < 2) continue;
    const flag = declared.long ?? declared.flags;
    throw new VoxformError('invalid_option', `${flag} is given ${count === 2 ? 'twice' : `${count} times`} to \`${words.join(' ')}\`: it takes one value, and which one was meant is not voxform's to guess.`, { hint: `Give ${flag} once.` });
  }
}
