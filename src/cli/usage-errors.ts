/**
 * Usage mistakes the argument parser (commander) finds, in voxform's words: an error with its code,
 * one sentence naming the command and what is wrong, and a hint pointing at that command's help. So
 * `voxform plan --bogus` reads as every other error does (error-text.ts), in text and in JSON.
 * A value typed on the command line is never repeated (an option's, one after `--name=`, an
 * argument's): the parser runs before the manifests are read, so a secret typed in the wrong place
 * (`--format "$HOOK_TOKEN"`) is not yet one the output hides. The user knows what they typed; the
 * error names the option or argument and what it takes. So does a command name a group does not have
 * (`voxform keys "$HOOK_TOKEN"`), and an environment the manifests do not define (load-manifests.ts):
 * a name is repeated only when it is one voxform knows (a did-you-mean, a word of its own).
 */
import type { CommandErrorCode } from '../error-codes.js';
import { VoxformError } from '../errors.js';
import { didYouMean } from '../util/did-you-mean.js';
import { wordList } from '../util/plural.js';
import type { OptionsAfterDashes } from './options-after-dashes.js';
import { emptyCommandError } from './empty-values.js';

/** What the parser knows of the command it was parsing. */
interface ParsedCommand {
  /** Its words: `voxform plan show`. */
  path: string;
  /** Whether it has commands of its own (`voxform`, `voxform state`). */
  hasCommands: boolean;
  /** The names of its own commands, listed when a name typed is none of them. */
  commands?: readonly string[];
  /** Whether it takes arguments (`voxform get [kind] [name]`). */
  takesArguments?: boolean;
  /** The command line to paste with `argument` (taken for an option) after `--`, keeping the options that chose the project and service. */
  withArgumentAfterDashes?: (argument: string) => string;
  /** Options typed after `--`, taken for arguments, and the command line with them before it. */
  optionsAfterDashes?: OptionsAfterDashes | undefined;
}

/** Commands voxform has not, typed by someone who wants a resource gone. */
const REMOVING_WORDS: ReadonlySet<string> = new Set(['destroy', 'delete', 'remove']);

/** `--format <format>` → `--format`; `-f, --file <path>` → `--file`. */
function optionName(flags: string): string {
  const words = flags.split(/[\s,|]+/);
  return words.find((word) => word.startsWith('--')) ?? words[0] ?? flags;
}

/** The choices of commander's `Allowed choices are a, b.`, after a value not among them; undefined for another reason. */
function choicesIn(reason: string): string[] | undefined {
  const listed = /^Allowed choices are (.*)\.$/s.exec(reason)?.[1];
  return listed === undefined ? undefined : listed.split(', ');
}

/**
 * The command line with the options typed after `--` before it; none when one of one value is given
 * twice (`--env staging -- --env production`, a CI job's extra arguments after its own): that line is
 * refused too (repeated-values.ts), and a line with either value would choose for the user.
 */
function afterDashesHint(after: OptionsAfterDashes): string {
  if (after.repeated.length === 0) return `Put options before \`--\`: \`${after.command}\`.`;
  const flags = wordList(after.repeated.map((flag) => `\`${flag}\``), 'and');
  return `${flags} ${after.repeated.length === 1 ? 'is' : 'are'} given more than once and ${after.repeated.length === 1 ? 'takes' : 'take'} one value: give ${after.repeated.length === 1 ? 'it' : 'each'} once, before \`--\`.`;
}

/** Commander's `\n(Did you mean --base?)` as our `; did you mean --base?`. */
function suggestion(text: string | undefined): string {
  return text ? `; did you mean ${text}?` : '.';
}

/**
 * The error for one of commander's usage messages (`error: unknown option '--bogus'`), by its code.
 * A message of a shape not known here keeps commander's words, still with code and hint.
 */
export function usageError(commanderCode: string | undefined, message: string, command: ParsedCommand): VoxformError {
  const cmd = `\`${command.path}\``;
  const hint = `Run \`${command.path} --help\` for its ${command.hasCommands ? 'commands' : 'arguments'} and options.`;
  const text = message.replace(/^error:\s*/, '');
  const fail = (code: CommandErrorCode, sentence: string) => new VoxformError(code, sentence, { hint });
  // Arguments the parser did not expect may be options typed after `--`: said so, with the command line that works.
  const after = command.optionsAfterDashes;
  const argumentError = (sentence: string) =>
    after
      ? new VoxformError('invalid_argument', `${sentence} ${wordList(after.flags.map((flag) => `\`${flag}\``), 'and')} ${after.flags.length === 1 ? 'comes' : 'come'} after \`--\`, which ends the options: everything after it is an argument.`, {
          hint: afterDashesHint(after),
        })
      : fail('invalid_argument', sentence);
  let match: RegExpExecArray | null;

  if ((match = /^unknown option '(.*?)'(?:\s*\(Did you mean (.*)\?\))?$/s.exec(text))) {
    const flag = match[1] ?? '';
    // `--name=value` of an option that takes no value, or of none: the option is named, not the value.
    const named = /^-{1,2}[^=]*=/.exec(flag)?.[0].slice(0, -1);
    if (named) return fail('invalid_argument', `${cmd} has no option ${named} that takes a value${suggestion(match[2])}`);
    // A short option runs into its value (`-xSECRET`): the option is named, `-x`, not what follows it.
    const sentence = `${cmd} has no option ${/^-[^-]/.test(flag) ? flag.slice(0, 2) : flag}${suggestion(match[2])}`;
    // An id may start with a dash (`-OKdqbq…`): the parser takes it for an option unless it follows `--`.
    if (!command.takesArguments || !command.withArgumentAfterDashes || !/^-[^-]./.test(flag)) return fail('invalid_argument', sentence);
    return new VoxformError('invalid_argument', sentence, {
      hint: `If ${flag} is an argument (an id starting with \`-\`), put it after \`--\`, which ends the options: \`${command.withArgumentAfterDashes(flag)}\`.`,
    });
  }
  if ((match = /^unknown command '(.*?)'(?:\s*\(Did you mean (.*)\?\))?$/s.exec(text))) {
    const name = match[1] ?? '';
    if (name === '') return emptyCommandError(command.path);
    if (command.path !== 'voxform' || !REMOVING_WORDS.has(name.toLowerCase())) {
      // The name typed is not repeated; commander's did-you-mean is one of the commands.
      const commands = command.commands ?? [];
      const listed = commands.length > 0 ? `Its commands: ${wordList(commands, 'or')} (\`${command.path} --help\` describes them).` : hint;
      return new VoxformError('invalid_argument', `${cmd} has no command of that name${suggestion(match[2])}`, { hint: listed });
    }
    // Someone looking for a way to delete (a word of voxform's list, so named): a near miss (`history` for `destroy`) would send them astray.
    return new VoxformError('invalid_argument', `${cmd} has no command \`${name}\`: voxform deletes nothing on the service, which has no delete for agents, numbers, campaigns, knowledge files or credentials.`, {
      hint: 'To stop managing a resource, remove it from the manifests: the next plan lists it as not managed any more, and the service keeps it as it is (docs/plan.md, "Removing a resource from the manifests").',
    });
  }
  if ((match = /^missing required argument '(.*)'$/.exec(text))) {
    return fail('invalid_argument', `${cmd} needs its <${match[1]}> argument.`);
  }
  if ((match = /^option '(.*)' argument missing$/.exec(text))) {
    const value = /<.*>|\[.*\]/.exec(match[1] ?? '')?.[0];
    return fail('invalid_option', `${optionName(match[1] ?? '')} needs a value${value ? ` (${value})` : ''}.`);
  }
  if ((match = /^required option '(.*)' not specified$/.exec(text))) {
    return fail('invalid_argument', `${cmd} needs ${match[1]}.`);
  }
  if ((match = /^option '(.*?)' argument '(.*)' is invalid\.\s*(.*)$/s.exec(text))) {
    const choices = choicesIn(match[3] ?? '');
    const given = `The value given to ${optionName(match[1] ?? '')}`;
    const sentence = choices ? `${given} is not one it takes: choose ${wordList(choices, 'or')}.` : `${given} is invalid: ${match[3]}`;
    // A near miss (`--format jsno` for `json`) is named, as for an argument's choices.
    const closest = choices && didYouMean(match[2] ?? '', choices);
    return closest ? new VoxformError('invalid_option', sentence, { hint: `Did you mean ${closest}? ${hint}` }) : fail('invalid_option', sentence);
  }
  if ((match = /^command-argument value '(.*)' is invalid for argument '(.*?)'\.\s*(.*)$/s.exec(text))) {
    const choices = choicesIn(match[3] ?? '');
    const given = `The <${match[2]}> given to ${cmd}`;
    const sentence = choices ? `${given} is not one it knows: choose ${wordList(choices, 'or')}.` : `${given} is invalid: ${match[3]}`;
    // A near miss (`get agent` for `agents`) is named; an option typed after `--` is said to be one instead.
    const closest = after || !choices ? undefined : didYouMean(match[1] ?? '', choices);
    return closest ? new VoxformError('invalid_argument', sentence, { hint: `Did you mean ${closest}? ${hint}` }) : argumentError(sentence);
  }
  if ((match = /^too many arguments(?: for '.*')?\. Expected (\d+) arguments? but got (\d+)\.$/.exec(text))) {
    return argumentError(`${cmd} takes ${argumentCount(Number(match[1]))}, not ${match[2]}.`);
  }
  const sentence = `${text.charAt(0).toUpperCase()}${text.slice(1)}`.replace(/\s*\n\s*/g, ' ');
  const optionValue = commanderCode === 'commander.optionMissingArgument' || commanderCode === 'commander.invalidArgument';
  return fail(optionValue ? 'invalid_option' : 'invalid_argument', /[.?!]$/.test(sentence) ? sentence : `${sentence}.`);
}

/** "no argument", "one argument", "2 arguments": how many a command takes. */
export function argumentCount(expected: number): string {
  return expected === 0 ? 'no argument' : expected === 1 ? 'one argument' : `${expected} arguments`;
}

/** A group run without one of its commands (`voxform state`): a missing argument, with the commands it takes. */
export function missingCommandError(path: string, commands: readonly string[]): VoxformError {
  return new VoxformError('invalid_argument', `\`${path}\` needs a command.`, {
    hint: `${commands.length === 1 ? 'Add its command' : 'Add one of its commands'}: ${wordList(commands, 'or')} (\`${path} --help\` describes ${commands.length === 1 ? 'it' : 'them'}).`,
  });
}
