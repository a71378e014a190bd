/**
 * The command tree a completion script is made from: plain data, built by the CLI from its own parser,
 * so a script always offers the commands and options this version has. Names from the manifests are
 * part of it: they are untrusted data, and every script writer quotes them as such.
 */

/**
 * What completes at a place: these words (and paths too with `paths`: a built-in name or a folder,
 * or a built-in name or a data file), file names, or nothing (a free value such as a URL).
 */
export type Completion = { words: readonly string[]; paths?: PathKind } | 'files' | 'free';

/** Paths beside built-in words: folders only, or `.yaml`, `.yml` and `.json` files and the folders that may hold them. */
export type PathKind = 'folders' | 'data-files';

export interface CompletionOption {
  /** `-f` and `--file`: every spelling. */
  flags: readonly string[];
  /** What its value completes with; undefined for a switch (`--auto-approve`). */
  value: Completion | undefined;
}

export interface CompletionCommand {
  /** The words that reach it, space-separated (`plan show`); the empty string is the program itself. */
  path: string;
  subcommands: readonly string[];
  options: readonly CompletionOption[];
  /** Its positional arguments, in order. */
  positionals: readonly Completion[];
  /**
   * Positionals whose completion depends on the word typed at the positional before them (`get agents
   * NAME` completes agent names, `get phones NUMBER` phone numbers); `positionals` applies to any
   * other word there.
   */
  afterWord?: readonly PositionalAfterWord[];
  /** Whether the last positional takes any number of words (`test [paths...]`). */
  variadic: boolean;
}

/** What completes at positional `index` when the positional before it is `word` (one of the program's own words). */
export interface PositionalAfterWord {
  index: number;
  word: string;
  completion: Completion;
}

/** The characters a command or an option may have: ours, never the manifests'. */
const OWN_WORD = /^[A-Za-z0-9][A-Za-z0-9 _.:-]*$|^$/;

/** Refuses a command path, flag or positional word that is not one of the program's plain words: they are written unquoted into patterns. */
export function checkOwnWords(commands: readonly CompletionCommand[]): void {
  for (const command of commands) {
    const words = [command.path, ...command.subcommands, ...command.options.flatMap((option) => option.flags.map((flag) => flag.replace(/^-+/, ''))), ...(command.afterWord ?? []).map(({ word }) => word)];
    for (const word of words) if (!OWN_WORD.test(word)) throw new Error(`completion: "${word}" is not a plain command or option word`);
  }
}

/**
 * The words that may be offered: a word with a control character (a line break would split it in two)
 * cannot be typed at a prompt, so it is left out. Every other character is kept, and quoted by the writer.
 */
export function offerable(words: readonly string[]): string[] {
  return [...new Set(words)].filter((word) => word !== '' && !/[\u0000-\u001f\u007f-\u009f]/.test(word));
}
