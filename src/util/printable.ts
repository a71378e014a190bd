/**
 * The one printing rule: text voxform did not write made safe to show. Control characters begin
 * every escape sequence that retitles or rewrites a terminal (`ESC ]52;…` sets its clipboard), and a
 * line break in a name can fake a line of output; DEL and C1 count too (U+009B is a CSI), and so do
 * the invisible characters (`INVISIBLE`), which reorder or hide what a reader sees. A CI runner reads
 * its job's log too: quoted text never forms one of its workflow commands (`WORKFLOW_COMMAND`).
 * Every write to stdout and stderr passes `terminalText` (a stream's writes: `terminalPrinter`); the
 * other functions keep what a layout needs on top of it.
 */

/**
 * The mark voxform's own terminal sequences carry (its colours, the progress line's `\r ESC[K`),
 * drawn afresh each run from the private-use area: text voxform quotes cannot know it, so a sequence
 * in a file name or a prompt is escaped however exactly it copies one of voxform's.
 */
const OWN_MARK = String.fromCharCode(...crypto.getRandomValues(new Uint16Array(6)).map((n) => 0xe000 + (n % 0x1900)));

/** A terminal sequence voxform writes itself (`terminal-colors.ts`, the progress line), marked so `terminalText` keeps it. */
export function ownSequence(sequence: string): string {
  return `${OWN_MARK}${sequence}`;
}

/**
 * The invisible characters, as a character-class body: every format character (Unicode category Cf:
 * the bidirectional controls, which reorder what a reader sees, zero-width spaces and joiners, the
 * soft hyphen, U+FEFF), the tag characters U+E0000–U+E007F, which spell text a model reads and a
 * person cannot see, and the characters drawn as nothing (the combining grapheme joiner, the Hangul
 * fillers). A line that only gained some of them looks unchanged.
 */
export const INVISIBLE = '\\p{Cf}\\u{e0000}-\\u{e007f}\\u034f\\u115f\\u1160\\u3164\\uffa0';
/**
 * A variation selector where it selects nothing: U+FE0E/U+FE0F pick the look of an emoji or a keycap
 * digit, the others of an ideograph; anywhere else (a run of them after a full stop) each is a byte
 * of hidden text.
 */
const STRAY_SELECTOR = '[\\ufe0e\\ufe0f](?<![\\p{Extended_Pictographic}0-9#*][\\ufe0e\\ufe0f])|[\\ufe00-\\ufe0d\\u{e0100}-\\u{e01ef}](?<!\\p{Ideographic}[\\ufe00-\\ufe0d\\u{e0100}-\\u{e01ef}])';
/**
 * The zero-width joiner inside an emoji sequence (👩‍💻, ❤️‍🔥: an emoji, maybe a skin tone or
 * U+FE0F, the joiner, an emoji) draws one picture and hides nothing, so it stays as it is.
 */
const NOT_AN_EMOJI_JOINER = '(?!(?<=\\p{Extended_Pictographic}[\\u{1f3fb}-\\u{1f3ff}\\ufe0f]?\\u200d)\\p{Extended_Pictographic})';

/**
 * A pattern of the C0 controls `c0` (a class body), DEL, C1, the invisible characters and stray
 * selectors; `before`: an alternative matched first. Each alternative tests its character before
 * its lookarounds: a lookaround first runs at every character of the text, and most text holds
 * no character any alternative matches.
 */
function controlPattern(c0: string, before = ''): RegExp {
  return new RegExp(`${before}${STRAY_SELECTOR}|[${c0}\\x7f-\\x9f${INVISIBLE}]${NOT_AN_EMOJI_JOINER}`, 'gu');
}

/** Every control character. */
const CONTROLS = controlPattern('\\x00-\\x1f');
/** Every control character but the tab. */
const CONTROLS_BUT_TAB = controlPattern('\\x00-\\x08\\x0a-\\x1f');
/** Every control character but the tab and the line feed. */
const CONTROLS_BUT_TAB_AND_LINE_FEED = controlPattern('\\x00-\\x08\\x0b-\\x1f');
/** A terminal stream: voxform's own marked sequences (an SGR colour, `\r ESC[K`) matched whole first, then any control. */
const TERMINAL = controlPattern('\\x00-\\x08\\x0b-\\x1f', `${OWN_MARK}(\\r?\\x1b\\[[0-9;]*[mK])|`);
/** What JSON.stringify leaves raw inside a string that a terminal would obey or a reader not see: DEL, C1, invisible characters. */
const JSON_RAW_CONTROLS = controlPattern('');

/**
 * What a CI runner obeys in a job's log, whichever the environment (the rule is the same everywhere):
 * `##[` anywhere in a line, and `::` as a line's first characters after blanks (GitHub Actions'
 * workflow commands: an error annotation on a green job, `add-mask`, `stop-commands`). The last
 * character of each is the one escaped (`##\u005b`, `:\u003a`), so a pattern completed by a later
 * write is escaped in that write; inside a JSON string `\u005b` is the same `[`. voxform's own
 * output neither starts a line with `::` nor writes `##[`.
 */
const WORKFLOW_COMMAND = /\[(?<=##\[)|:(?<=^\s*::)/gmu;

/** `WORKFLOW_COMMAND` for a test, which holds no position between calls as a global pattern does. */
const HOLDS_WORKFLOW_COMMAND = new RegExp(WORKFLOW_COMMAND.source, 'mu');

/** Whether the printing rule would escape a character of `text`, printed from a line's start, as a workflow command's (`WORKFLOW_COMMAND`). */
export function holdsWorkflowCommand(text: string): boolean {
  return HOLDS_WORKFLOW_COMMAND.test(text);
}

/** Each control character but the tab escaped as JSON writes it (`\u001b`, `\n`), DEL, C1 and the invisible characters included. */
export function printable(text: string): string {
  return replaceInParts(text, CONTROLS_BUT_TAB, escapeMatch);
}

/** Running text (a reply in `voxform chat`): line breaks and tabs kept, other controls (`\r` too) escaped. */
export function printableKeepingLines(text: string): string {
  return replaceInParts(text, CONTROLS_BUT_TAB_AND_LINE_FEED, escapeMatch);
}

/**
 * The rule every write to stdout and stderr passes: as `printableKeepingLines`, but voxform's own
 * colour and line-clearing sequences (`ownSequence`) are kept on a terminal (`styled`) and dropped
 * elsewhere. Any other sequence is escaped, even one that reads exactly like voxform's. JSON stays valid JSON.
 */
export function terminalText(text: string, styled: boolean): string {
  return workflowCommandsEscaped('', controlsEscaped(text, styled));
}

/**
 * `terminalText` for the writes of one stream: a line the runner reads may be made of several
 * writes (a reply streamed in pieces), so each write is escaped knowing how the line it continues
 * ends (`lineTail`).
 */
export function terminalPrinter(styled: boolean): (text: string) => string {
  let tail = '';
  return (text) => {
    const printed = workflowCommandsEscaped(tail, controlsEscaped(text, styled));
    tail = lineTail(tail + printed);
    return printed;
  };
}

function controlsEscaped(text: string, styled: boolean): string {
  return replaceInParts(text, TERMINAL, ([match, own]) => (own === undefined ? escapeControl(match) : styled ? own : ''));
}

/** `text`, printed after `tail` (`lineTail`), with each `WORKFLOW_COMMAND` it completes escaped. */
function workflowCommandsEscaped(tail: string, text: string): string {
  if (!/[[:]/.test(text)) return text;
  return replaceInParts(tail + text, WORKFLOW_COMMAND, ({ 0: ch, index }) => (index < tail.length ? ch : escapeControl(ch))).slice(tail.length);
}

/**
 * What of the printed line so far decides how a next write could complete a workflow command:
 * nothing at a line start (blanks count as nothing), `:` after a first colon, else its last two
 * characters behind a stand-in for the rest of the line.
 */
function lineTail(printed: string): string {
  const line = printed.slice(Math.max(...['\n', '\r', '\u2028', '\u2029'].map((mark) => printed.lastIndexOf(mark))) + 1);
  if (/^\s*$/u.test(line)) return '';
  if (/^\s*:$/u.test(line)) return ':';
  return `.${line.slice(-2)}`;
}

/**
 * The one JSON serializer for output: JSON.stringify, with DEL, C1 and the invisible characters (left
 * raw by it) escaped too, and the `[` of `##[` (only ever inside a string), so the same bytes reach
 * a log or a file.
 */
export function toJsonText(value: unknown, indent?: number): string {
  return escapeJsonText(JSON.stringify(value, null, indent));
}

/** JSON text as `toJsonText` writes it: for a caller that needs the text JSON.stringify made as well. */
export function escapeJsonText(json: string): string {
  return replaceInParts(replaceInParts(json, JSON_RAW_CONTROLS, escapeMatch), WORKFLOW_COMMAND, escapeMatch);
}

/** The most matches one part of `replaceInParts` replaces. */
const MATCHES_PER_PART = 100_000;

/**
 * `text.replace(pattern, replace)` for a global `pattern`, replaced a part of at most
 * `matchesPerPart` matches at a time: one `replace` of tens of millions of matches outgrows the
 * list V8 keeps of them and aborts the process. This makes the text, or throws a RangeError (a
 * text past the longest string) that a caller can catch. The pattern runs over the whole text, so
 * its lookarounds see what lies on either side of a part's ends; `replace` must not run `pattern`
 * itself (it would move the pattern's `lastIndex`), and a pattern must not match the empty string.
 */
export function replaceInParts(text: string, pattern: RegExp, replace: (match: RegExpExecArray) => string, matchesPerPart = MATCHES_PER_PART): string {
  const parts: string[] = [];
  let part = '';
  let matches = 0;
  let from = 0;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    part += text.slice(from, match.index) + replace(match);
    from = pattern.lastIndex;
    if (++matches % matchesPerPart === 0) {
      parts.push(part);
      part = '';
    }
  }
  if (from === 0) return text;
  parts.push(part + text.slice(from));
  return parts.join('');
}

function escapeMatch(match: RegExpExecArray): string {
  return escapeControl(match[0]);
}

/** As JSON writes it: `\n`, `\u001b` (and `\u005b` for a `[` it would write as it is), and a character beyond U+FFFF as its two UTF-16 units (`\udb40\udc41`). */
function escapeControl(ch: string): string {
  return ch < ' ' ? JSON.stringify(ch).slice(1, -1) : ch.split('').map(unicodeEscape).join('');
}

/** One UTF-16 unit as JSON's `\uXXXX` escape writes it, lower-case hex (`\u001b`, `\u0026`). */
export function unicodeEscape(unit: string): string {
  return `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A value in a fixed layout (`status`, `history`): each control character, line breaks too, is one `?`. */
export function controlsAsQuestionMarks(text: string): string {
  return replaceInParts(text, CONTROLS, () => '?');
}

/** A line in a plan's diff: each control character is one `?`, but a tab is kept as indentation. */
export function lineAsShown(text: string): string {
  return replaceInParts(text, CONTROLS_BUT_TAB, () => '?');
}

/** Whether the text holds any C0, C1 or DEL control character: a name voxform writes never does. */
export function hasControlCharacter(text: string): boolean {
  return /[\x00-\x1f\x7f-\x9f]/.test(text);
}
