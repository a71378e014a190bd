/**
 * Completion scripts for bash, zsh and fish from the command tree. Each script holds the tree as data
 * functions and a small driver that walks the words typed so far (options, their values, subcommands)
 * to find what completes at the cursor.
 *
 * Quoting: a word from the manifests is data. It is written only as a single-quoted argument of
 * `printf`, never into a pattern, a `compgen -W` list or anything else the shell expands, and the
 * drivers compare the typed prefix literally (`"$cur"*`); what bash inserts, its driver quotes (zsh
 * and fish quote it themselves). Command and option words are the program's own (checked by
 * `checkOwnWords`).
 */
import { checkOwnWords, offerable, type Completion, type CompletionCommand, type PathKind } from './tree.js';

export type Shell = 'bash' | 'zsh' | 'fish';

/**
 * What a words function returns: the words printed (0), a free value (1), file names (2), no value
 * here (3); with the words printed, folders too (4), or data files and folders too (5).
 */
const STATUS = { words: 0, free: 1, files: 2, none: 3, folders: 4, dataFiles: 5 } as const;

const PATH_STATUS: Record<PathKind, number> = { folders: STATUS.folders, 'data-files': STATUS.dataFiles };

/** The line the POSIX candidates print to ask their driver for paths of a kind, by status. */
const PATH_MARKER = { files: '__VOXFORM_FILES__', folders: '__VOXFORM_FOLDERS__', dataFiles: '__VOXFORM_DATA_FILES__' } as const;

/** A `case` pattern matching every path marker. */
const ANY_PATH_MARKER = Object.values(PATH_MARKER).join('|');

/** A POSIX single-quoted word (bash, zsh): nothing inside is expanded; `'` becomes `'\''`. */
function shQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A fish single-quoted word: only `\\` and `\'` are escapes inside. */
function fishQuote(word: string): string {
  return `'${word.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

interface Dialect {
  quote(word: string): string;
  /** A `case` pattern: `prefix` (a word of ours) then anything. */
  startsWith(prefix: string): string;
  /** A `case` branch: patterns (already quoted or globbed), and its body lines. */
  branch(patterns: string[], body: string[]): string[];
  caseOf(subject: string, branches: string[][], fallback: string[]): string[];
  fn(name: string, params: string[], body: string[]): string[];
  ret(status: number): string;
}

const posix: Dialect = {
  quote: shQuote,
  startsWith: (prefix) => `${shQuote(prefix)}*`,
  branch: (patterns, body) => [`    ${patterns.join('|')})`, ...body.map((line) => `      ${line}`), '      ;;'],
  caseOf: (subject, branches, fallback) => [`  case ${subject} in`, ...branches.flat(), '    *)', ...fallback.map((line) => `      ${line}`), '      ;;', '  esac'],
  fn: (name, params, body) => [`${name}() {`, ...params.map((param, i) => `  local ${param}="$${i + 1}"`), ...body, '}'],
  ret: (status) => `return ${status}`,
};

const fish: Dialect = {
  quote: fishQuote,
  // fish matches `case` patterns with their wildcards quoted; unquoted, it would glob file names.
  startsWith: (prefix) => fishQuote(`${prefix}*`),
  branch: (patterns, body) => [`        case ${patterns.join(' ')}`, ...body.map((line) => `            ${line}`)],
  caseOf: (subject, branches, fallback) => [`    switch ${subject}`, ...branches.flat(), "        case '*'", ...fallback.map((line) => `            ${line}`), '    end'],
  fn: (name, params, body) => [`function ${name}${params.length > 0 ? ` --argument-names ${params.join(' ')}` : ''}`, ...body, 'end'],
  ret: (status) => `return ${status}`,
};

function printWords(words: readonly string[], dialect: Dialect): string[] {
  const offered = offerable(words);
  return offered.length === 0 ? [dialect.ret(STATUS.free)] : [`printf '%s\\n' ${offered.map(dialect.quote).join(' ')}`];
}

function completionBody(completion: Completion, dialect: Dialect): string[] {
  if (completion === 'files') return [dialect.ret(STATUS.files)];
  if (completion === 'free') return [dialect.ret(STATUS.free)];
  const words = printWords(completion.words, dialect);
  return completion.paths ? [...words.filter((line) => line.startsWith('printf')), dialect.ret(PATH_STATUS[completion.paths])] : words;
}

/** The data functions: subcommands and options of a path, and what completes after an option or at a positional. */
function dataFunctions(commands: readonly CompletionCommand[], dialect: Dialect, subject: (name: string) => string): string[] {
  const key = (path: string, what: string) => dialect.quote(`${path}|${what}`);
  const subcommands = commands.filter((c) => c.subcommands.length > 0).map((c) => dialect.branch([dialect.quote(c.path)], printWords(c.subcommands, dialect)));
  const options = commands.map((c) => dialect.branch([dialect.quote(c.path)], printWords(c.options.flatMap((o) => o.flags.filter((f) => f.startsWith('--'))), dialect)));
  const values: string[][] = [];
  for (const command of commands) {
    for (const option of command.options) {
      if (option.value) values.push(dialect.branch(option.flags.map((flag) => key(command.path, flag)), completionBody(option.value, dialect)));
    }
    for (const { index, word, completion } of command.afterWord ?? []) values.push(dialect.branch([key(command.path, `#${index}:${word}`)], completionBody(completion, dialect)));
    command.positionals.forEach((positional, index) => {
      const last = index === command.positionals.length - 1;
      // A variadic last argument completes at every later position too: `#3`, `#12`.
      const patterns = last && command.variadic ? [dialect.startsWith(`${command.path}|#`)] : [key(command.path, `#${index}`)];
      values.push(dialect.branch(patterns, completionBody(positional, dialect)));
    });
  }
  return [
    ...dialect.fn('__voxform_commands', ['cmdpath'], dialect.caseOf(subject('cmdpath'), subcommands, [dialect.ret(STATUS.free)])),
    ...dialect.fn('__voxform_options', ['cmdpath'], dialect.caseOf(subject('cmdpath'), options, [dialect.ret(STATUS.free)])),
    ...dialect.fn('__voxform_words', ['cmdpath', 'word'], dialect.caseOf(subject('cmdpath|word'), values, [dialect.ret(STATUS.none)])),
  ];
}

const POSIX_SUBJECT = (names: string) => `"${names.split('|').map((name) => `$${name}`).join('|')}"`;
const FISH_SUBJECT = (names: string) => `"${names.split('|').map((name) => `$${name}`).join('|')}"`;

/**
 * Walks the words before the cursor (bash and zsh share it): sets cmdpath, the positional index n, prev
 * (the word of the positional before the cursor) and pending (an option awaiting its value).
 */
const POSIX_WALK = [
  '  local w',
  '  for w in "$@"; do',
  '    if [[ -n "$pending" ]]; then pending=""; continue; fi',
  '    case "$w" in',
  '      --*=*) ;;',
  `      -*) __voxform_words "$cmdpath" "$w" >/dev/null; (( $? != ${STATUS.none} )) && pending="$w" ;;`,
  '      *)',
  '        if __voxform_is_command "$cmdpath" "$w"; then cmdpath="${cmdpath:+$cmdpath }$w"; n=0; prev=""; else n=$((n + 1)); prev="$w"; fi',
  '        ;;',
  '    esac',
  '  done',
];

/**
 * What completes at the cursor, as lines on stdout, then a marker when paths complete too
 * (PATH_MARKER). The caller filters by the typed prefix.
 */
const POSIX_CANDIDATES = [
  '__voxform_candidates() {',
  // Not `status` or `path`: zsh keeps its own under those names.
  '  local cmdpath="" n=0 pending="" prev="" code',
  ...POSIX_WALK,
  '  if [[ -n "$pending" ]]; then',
  '    __voxform_words "$cmdpath" "$pending"; code=$?',
  // `--format=j`: the option's values, written as the word is (`--format=json`).
  '  elif [[ "$__voxform_cur" == --*=* ]]; then',
  '    local line',
  `    while IFS= read -r line; do printf '%s=%s\\n' "\${__voxform_cur%%=*}" "$line"; done < <(__voxform_words "$cmdpath" "\${__voxform_cur%%=*}")`,
  '    code=0',
  `  elif [[ "$__voxform_cur" == -* ]]; then`,
  '    __voxform_options "$cmdpath"; code=0',
  '  else',
  '    __voxform_commands "$cmdpath"',
  // What follows the positional before, if it decides (`get agents`); else what the position takes.
  '    __voxform_words "$cmdpath" "#${n}:${prev}"; code=$?',
  `    (( code == ${STATUS.none} )) && { __voxform_words "$cmdpath" "#$n"; code=$?; }`,
  '  fi',
  ...Object.entries(PATH_MARKER).map(([kind, marker]) => `  (( code == ${STATUS[kind as keyof typeof PATH_MARKER]} )) && printf '%s\\n' ${marker}`),
  '  return 0',
  '}',
  // The whole list is read: a return at the match would close the pipe on its writer, which then
  // says "write error: Broken pipe" on the terminal where SIGPIPE is ignored.
  '__voxform_is_command() {',
  '  local line found=1',
  '  while IFS= read -r line; do [[ "$line" == "$2" ]] && found=0; done < <(__voxform_commands "$1")',
  '  return $found',
  '}',
];

const HEADER = (shell: Shell) => [
  `# ${shell} completion for voxform, written by \`voxform completion ${shell}\`.`,
  "# Commands, options and their values are this version's; agent, environment and resource names are",
  '# those of the manifests it was written from: write it again after adding an agent.',
];

/**
 * bash's paths of a kind, by its marker. compgen offers every entry, so folders and data files are
 * picked from what it lists (by `compgen -d`: a name it gives as `~/x` is no path `-d` could test),
 * and a hidden one (`.git`) only when the word typed names one, as zsh and fish offer them.
 */
const BASH_PATHS = [
  '__voxform_paths() {',
  '  local line',
  `  if [[ "$1" == ${PATH_MARKER.files} ]]; then compgen -f -- "$__voxform_cur"; return 0; fi`,
  '  {',
  '    compgen -d -- "$__voxform_cur"',
  `    if [[ "$1" == ${PATH_MARKER.dataFiles} ]]; then`,
  `      while IFS= read -r line; do case "$line" in *.yaml|*.yml|*.json) printf '%s\\n' "$line" ;; esac; done < <(compgen -f -- "$__voxform_cur")`,
  '    fi',
  '  } | while IFS= read -r line; do',
  `    [[ "\${line##*/}" == .* && "\${__voxform_cur##*/}" != .* ]] || printf '%s\\n' "$line"`,
  '  done',
  '}',
];

function bashScript(commands: readonly CompletionCommand[]): string {
  return [
    ...HEADER('bash'),
    ...dataFunctions(commands, posix, POSIX_SUBJECT),
    ...POSIX_CANDIDATES,
    ...BASH_PATHS,
    '_voxform() {',
    // bash splits `--format=j` into `--format`, `=`, `j` (COMP_WORDBREAKS): the words are glued back,
    // and what is offered replaces only the part bash completes, the one after the `=`.
    '  local -a typed=()',
    "  local i w last glue=0 line quoted files=''",
    '  for (( i = 1; i <= COMP_CWORD; i++ )); do',
    '    w="${COMP_WORDS[i]}"; last=$(( ${#typed[@]} - 1 ))',
    '    if (( glue )); then typed[last]+="$w"; glue=0',
    '    elif [[ "$w" == "=" && $last -ge 0 && "${typed[last]}" == --* && "${typed[last]}" != *=* ]]; then typed[last]+="="; glue=1',
    '    else typed+=("$w"); fi',
    '  done',
    '  local __voxform_cur="${typed[${#typed[@]}-1]}" word="${COMP_WORDS[COMP_CWORD]}"',
    '  [[ "$word" == "=" ]] && word=""',
    '  local before="${__voxform_cur%"$word"}"',
    '  COMPREPLY=()',
    '  while IFS= read -r line; do',
    '    case "$line" in',
    `      ${ANY_PATH_MARKER}) files="$line" ;;`,
    // The word typed may be a prefix bash inserted quoted (below), the part two candidates share.
    '      *) printf -v quoted %q "$line"',
    '         [[ -n "$line" && ( "$line" == "$__voxform_cur"* || "$quoted" == "$__voxform_cur"* ) ]] && COMPREPLY+=("${line#"$before"}") ;;',
    '    esac',
    '  done < <(__voxform_candidates "${typed[@]:0:${#typed[@]}-1}")',
    '  if [[ -n "$files" ]]; then',
    // With -o filenames, readline quotes what it inserts, words and paths alike.
    '    compopt -o filenames 2>/dev/null',
    '    while IFS= read -r line; do COMPREPLY+=("$line"); done < <(__voxform_paths "$files")',
    '  else',
    // Otherwise bash inserts a word as it is, and Enter would run `$(…)` or `;` in a manifest's
    // agent id: quoted, the shell reads it back as that one word.
    '    for i in "${!COMPREPLY[@]}"; do printf -v "COMPREPLY[i]" %q "${COMPREPLY[i]}"; done',
    '  fi',
    '  return 0',
    '}',
    'complete -F _voxform voxform',
    '',
  ].join('\n');
}

function zshScript(commands: readonly CompletionCommand[]): string {
  return [
    '#compdef voxform',
    ...HEADER('zsh'),
    ...dataFunctions(commands, posix, POSIX_SUBJECT),
    ...POSIX_CANDIDATES,
    '_voxform() {',
    // `path` is zsh's PATH array: the drivers call theirs cmdpath.
    "  local __voxform_cur=\"${words[CURRENT]}\" line files=''",
    '  local -a offered',
    '  while IFS= read -r line; do',
    '    case "$line" in',
    `      ${ANY_PATH_MARKER}) files="$line" ;;`,
    '      *) [[ -n "$line" && "$line" == "$__voxform_cur"* ]] && offered+=("$line") ;;',
    '    esac',
    '  done < <(__voxform_candidates "${(@)words[2,CURRENT-1]}")',
    '  (( ${#offered} )) && compadd -- "${offered[@]}"',
    '  case "$files" in',
    `    ${PATH_MARKER.files}) _files ;;`,
    `    ${PATH_MARKER.folders}) _files -/ ;;`,
    // _files adds the folders to descend beside the files the pattern picks.
    `    ${PATH_MARKER.dataFiles}) _files -g '*.(yaml|yml|json)' ;;`,
    '  esac',
    '  return 0',
    '}',
    'if [[ "$funcstack[1]" == _voxform ]]; then _voxform "$@"; else compdef _voxform voxform; fi',
    '',
  ].join('\n');
}

function fishScript(commands: readonly CompletionCommand[]): string {
  return [
    ...HEADER('fish'),
    ...dataFunctions(commands, fish, FISH_SUBJECT),
    'function __voxform_complete',
    '    set -l tokens (commandline -opc)',
    '    set -l cur (commandline -ct)',
    "    set -l cmdpath ''",
    '    set -l n 0',
    "    set -l prev ''",
    "    set -l pending ''",
    '    for w in $tokens[2..-1]',
    '        if test -n "$pending"',
    "            set pending ''",
    '            continue',
    '        end',
    '        switch $w',
    "            case '--*=*'",
    "            case '-*'",
    '                __voxform_words "$cmdpath" "$w" >/dev/null',
    `                if test $status -ne ${STATUS.none}`,
    '                    set pending $w',
    '                end',
    "            case '*'",
    '                if contains -- $w (__voxform_commands "$cmdpath")',
    '                    set cmdpath (string trim -- "$cmdpath $w")',
    '                    set n 0',
    "                    set prev ''",
    '                else',
    '                    set n (math $n + 1)',
    '                    set prev $w',
    '                end',
    '        end',
    '    end',
    '    set -l code 0',
    '    if test -n "$pending"',
    '        __voxform_words "$cmdpath" "$pending"',
    '        set code $status',
    "    else if string match -q -- '--*=*' \"$cur\"",
    '        set -l option (string split -m 1 -- = "$cur")[1]',
    '        for value in (__voxform_words "$cmdpath" "$option")',
    "            printf '%s=%s\\n' $option $value",
    '        end',
    "    else if string match -q -- '-*' \"$cur\"",
    '        __voxform_options "$cmdpath"',
    '    else',
    '        __voxform_commands "$cmdpath"',
    '        __voxform_words "$cmdpath" "#$n:$prev"',
    '        set code $status',
    `        if test $code -eq ${STATUS.none}`,
    '            __voxform_words "$cmdpath" "#$n"',
    '            set code $status',
    '        end',
    '    end',
    // fish lists a folder as `name/`, each path followed by a tab (and no description).
    `    if test $code -eq ${STATUS.files}`,
    '        __fish_complete_path "$cur"',
    `    else if test $code -eq ${STATUS.folders}`,
    "        __fish_complete_path \"$cur\" | string match -r -e -- '/\\t$'",
    `    else if test $code -eq ${STATUS.dataFiles}`,
    "        __fish_complete_path \"$cur\" | string match -r -e -- '(?:/|\\.yaml|\\.yml|\\.json)\\t$'",
    '    end',
    'end',
    'complete -c voxform -f -a \'(__voxform_complete)\'',
    '',
  ].join('\n');
}

export function completionScript(shell: Shell, commands: readonly CompletionCommand[]): string {
  checkOwnWords(commands);
  if (shell === 'bash') return bashScript(commands);
  if (shell === 'zsh') return zshScript(commands);
  return fishScript(commands);
}
