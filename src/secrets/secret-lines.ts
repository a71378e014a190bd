/**
 * Which parts of a YAML text a code frame must not show. A frame prints the lines around a
 * problem as they are written, and the problem is often that the text could not be read (a
 * syntax error, a duplicate key, a tab): then the loader never learnt which values are secret, so
 * it cannot ask the secret registry to hide them. This reads the text line by line, without
 * parsing it, and hides conservatively:
 *   - the value after a key the schemas mark secret anywhere (`headers`, `header`, `credentials`,
 *     `api_key`, `api_secret`; any letter case, in block or flow style), and every line indented
 *     under such a key: a header line shows its name, `x-token: (sensitive)`; anything else there
 *     (a block scalar, a comment, a line indented oddly or with a tab) is hidden whole;
 *   - every line a quoted or flow value that starts in a hidden part goes on to, wherever it is
 *     indented, until it closes;
 *   - the anchors (`&name`) whose aliases (`*name`) a hidden part uses, as if they were secret keys.
 * It hides more than the schemas would (a `headers:` in a prompt's text), never less, but for the
 * `provider:` of the top-level `credentials:` list: one word, it is shown, as it tells which
 * credential a frame is about; any other value there stays hidden, and messages may still name it.
 */
import { sensitiveFieldNames } from './schema-paths.js';
import { REDACTED } from './redact.js';

/** A line of a frame with its secret parts replaced. */
export interface MaskedLine {
  /** The line as a frame shows it. */
  shown: string;
  /** The parts it hides, as written (trimmed), to hide from a message that quotes the source. */
  hidden: string[];
  /**
   * How its units line up with the line as written, in order: units `from` to `to` as written stand
   * from unit `at` of `shown`, as written (`asWritten`: a key, a lone `${env:NAME}`) or as the hidden
   * mark. What lies between parts is left out (spaces, a comment).
   */
  parts: ShownPart[];
}

/** A part of a line as written and where a frame shows it. */
interface ShownPart {
  from: number;
  to: number;
  at: number;
  asWritten: boolean;
}

/**
 * The unit of `masked.shown` that stands for unit `offset` of the line as written: a caret placed
 * there stands under the same text, though the shown line is shorter or longer before it. A unit
 * inside a hidden part (or left out) stands at the start of what follows: a caret within a hidden
 * part would tell where in a secret a problem is, or how long the secret is.
 */
export function shownOffset(masked: MaskedLine, offset: number): number {
  for (const part of masked.parts) {
    if (offset < part.from) return part.at;
    if (offset < part.to) return part.asWritten ? part.at + offset - part.from : part.at;
  }
  return masked.shown.length;
}

/** How many passes follow aliases to their anchors before every anchor is treated as secret. */
const MAX_ANCHOR_PASSES = 3;

/** The lines (1-based) of `text` that hold secret parts, each as a frame may show it. */
export function maskSecretLines(text: string): ReadonlyMap<number, MaskedLine> {
  const keys = [...new Set([...sensitiveFieldNames()].map((name) => name.toLowerCase()))];
  let anchors: AnchorRule = new Set<string>();
  for (let pass = 1; ; pass++) {
    const masked = scanText(text, keys, anchors);
    if (anchors === 'all') return masked;
    const known: ReadonlySet<string> = anchors;
    const used = aliasesIn(masked);
    if ([...used].every((name) => known.has(name))) return masked;
    anchors = pass >= MAX_ANCHOR_PASSES ? 'all' : new Set([...known, ...used]);
  }
}

/** Anchors whose values are secret: by name, or every anchor (when aliases chain too far to follow). */
type AnchorRule = ReadonlySet<string> | 'all';

/** An open quote or flow collection a hidden part started, carried over to the next lines. */
interface Open {
  quote: '"' | "'" | undefined;
  depth: number;
}

/** Lines indented more than `column` (or a list at that column) belong to a secret value. */
interface Region {
  column: number;
  /** The indentation of the region's first line: its `key:` lines show their key. */
  childIndent: number | undefined;
  /** Lines indented more than this are a block scalar's text (`key: |`): hidden, their quotes not followed. */
  literal: number | undefined;
  /**
   * The manifest's own `credentials:` list (at the top): its `provider:` values are shown in the
   * frame when one word, and a message may name them (`credential "openai"`, `${env:OPENAI_API_KEY}`):
   * a provider is the credential's name, not its secret.
   */
  namesProviders: boolean;
}

interface ScanState {
  open: Open | undefined;
  region: Region | undefined;
}

function scanText(text: string, keys: readonly string[], anchors: AnchorRule): Map<number, MaskedLine> {
  const masked = new Map<number, MaskedLine>();
  const state: ScanState = { open: undefined, region: undefined };
  let start = 0;
  for (let number = 1; start <= text.length; number++) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const line = text.slice(start, end).replace(/\r$/, '');
    const result = scanLine(line, state, keys, anchors);
    if (result) masked.set(number, result);
    if (newline === -1) break;
    start = newline + 1;
  }
  return masked;
}

function scanLine(line: string, state: ScanState, keys: readonly string[], anchors: AnchorRule): MaskedLine | undefined {
  const content = line.trimStart();
  const lead = line.slice(0, line.length - content.length);
  if (state.open) {
    state.open = scanValue(line, state.open);
    return hideWhole(lead, content);
  }
  if (content === '') return undefined;
  // YAML indents with spaces only: a tab (or any other blank) leaves the depth unknown, so the line
  // is taken to be inside whatever secret value is open.
  const indent = /[^ ]/.test(lead) ? Infinity : lead.length;
  if (state.region && inRegion(state.region, indent, content)) return maskRegionLine(lead, content, indent, state);
  state.region = undefined;
  return maskOpener(line, lead.length, state, keys, anchors);
}

function inRegion(region: Region, indent: number, content: string): boolean {
  return indent > region.column || (indent === region.column && /^-(\s|$)/.test(content));
}

/**
 * A line inside a secret value: `name: (sensitive)` for a key at the region's first indentation
 * (also after a list item's `- `, so that each item of `credentials:` shows its keys), else hidden whole.
 */
function maskRegionLine(lead: string, content: string, indent: number, state: ScanState): MaskedLine {
  const region = state.region as Region;
  if (region.literal !== undefined && indent > region.literal) return hideWhole(lead, content);
  region.literal = undefined;
  const item = LIST_ITEMS.exec(content)?.[0] ?? '';
  const keyColumn = indent + item.length;
  region.childIndent ??= keyColumn;
  const key = keyColumn === region.childIndent ? PLAIN_KEY.exec(content.slice(item.length)) : null;
  if (!key) {
    state.open = scanValue(content, undefined);
    return hideWhole(lead, content);
  }
  const valueFrom = lead.length + item.length + key[0].length;
  const value = content.slice(item.length + key[0].length);
  state.open = scanValue(value, undefined);
  if (BLOCK_SCALAR.test(value)) region.literal = keyColumn;
  const kept = `${lead}${item}${key[1] as string}:`;
  const providerName = region.namesProviders && unquoted(key[1] as string).toLowerCase() === 'provider' && state.open === undefined;
  if (providerName && PROVIDER_NAME.test(value)) return shownAsWritten(`${lead}${content}`);
  const masked = hideAfter(kept, value, valueFrom);
  return providerName ? { ...masked, hidden: [] } : masked;
}

/** A provider's name as the credentials list holds it: one word, quoted or not, with nothing after it (a comment is hidden). */
const PROVIDER_NAME = /^ *(["']?)[A-Za-z0-9_.-]+\1 *$/;

/** A line of a secret value shown whole: what tells the reader which credential a frame is about. */
function shownAsWritten(shown: string): MaskedLine {
  return { shown, hidden: [], parts: [{ from: 0, to: shown.length, at: 0, asWritten: true }] };
}

function unquoted(key: string): string {
  return key.replace(/^(["'])(.*)\1$/, '$2');
}

/** The `- ` of list items a line starts with. */
const LIST_ITEMS = /^(?:- +)+/;
/** A key as a mapping line starts with it: plain, or quoted without escapes. */
const PLAIN_KEY = /^([A-Za-z0-9_][A-Za-z0-9_.-]*|"[A-Za-z0-9_.-]*"|'[A-Za-z0-9_.-]*'):(\s|$)/;

/**
 * A line outside any secret value: hides what follows the first secret key (or secret anchor) on
 * it. A key that starts the line (after `- `) opens a region: the lines indented under it.
 */
function maskOpener(line: string, leadLength: number, state: ScanState, keys: readonly string[], anchors: AnchorRule): MaskedLine | undefined {
  const found = findSecretStart(line, keys, anchors);
  if (found === undefined) return undefined;
  const value = line.slice(found.at);
  state.open = scanValue(value, undefined);
  const block = /^(\s*(?:-\s+)*)/.exec(line)?.[1]?.length ?? leadLength;
  // A key inside a line (flow style) whose value starts on the next line: the lines indented under this one hold it.
  const valueBelow = !found.anchor && found.keyAt !== block && value.trim() === '';
  if (found.keyAt === block || found.anchor || valueBelow) {
    const column = found.anchor || valueBelow ? leadLength : block;
    const namesProviders = !found.anchor && column === 0 && /^credentials:/.test(line);
    state.region = { column, childIndent: undefined, literal: BLOCK_SCALAR.test(value) ? column : undefined, namesProviders };
  }
  return hideAfter(line.slice(0, found.at).trimEnd(), value, found.at);
}

const BLOCK_SCALAR = /^\s*[|>]/;
const ANCHOR_PATTERN = /(?:^|[\s{,[:-])&([^\s,[\]{}]+)/g;
/** What may come before a key: the line's start, a space, or flow punctuation. */
const KEY_BOUNDARY = ' \t{,[';

/** Where the first secret part of a line starts: after a secret key's colon, or after a secret anchor. */
function findSecretStart(line: string, keys: readonly string[], anchors: AnchorRule): { at: number; keyAt: number; anchor: boolean } | undefined {
  const key = findSecretKey(line, keys);
  let best = key && { ...key, anchor: false };
  if (anchors === 'all' || anchors.size > 0) {
    for (const match of line.matchAll(ANCHOR_PATTERN)) {
      if (anchors !== 'all' && !anchors.has(match[1] as string)) continue;
      const at = match.index + match[0].length;
      if (!best || at < best.at) best = { at, keyAt: -1, anchor: true };
      break;
    }
  }
  return best;
}

/**
 * The first secret key of a line (in any letter case, quoted or not): where it starts and where its
 * value does. A plain search rather than one regular expression: a hostile line of a megabyte must
 * not make it backtrack.
 */
function findSecretKey(line: string, keys: readonly string[]): { keyAt: number; at: number } | undefined {
  // ASCII letters only, so that offsets stay those of `line`.
  const lower = /[A-Z]/.test(line) ? line.replace(/[A-Z]/g, (letter) => letter.toLowerCase()) : line;
  let first: { keyAt: number; at: number } | undefined;
  for (const name of keys) {
    for (let from = lower.indexOf(name); from !== -1 && (!first || from < first.at); from = lower.indexOf(name, from + 1)) {
      const found = keyAt(lower, name, from);
      if (!found) continue;
      if (!first || found.at < first.at) first = found;
      break;
    }
  }
  return first;
}

/** Whether the `name` found at `from` is a key (`name:`, `"name":`, in block or flow style). */
function keyAt(line: string, name: string, from: number): { keyAt: number; at: number } | undefined {
  let start = from;
  let end = from + name.length;
  const quote = line[from - 1];
  if ((quote === '"' || quote === "'") && line[end] === quote) {
    start--;
    end++;
  }
  if (start > 0 && !KEY_BOUNDARY.includes(line[start - 1] as string)) return undefined;
  while (line[end] === ' ' || line[end] === '\t') end++;
  if (line[end] !== ':') return undefined;
  const next = line[end + 1];
  if (next !== undefined && !/[\s{["']/.test(next)) return undefined;
  return { keyAt: start, at: end + 1 };
}

/**
 * A value that is one `${env:NAME}` reference and nothing else: the name is no secret, and the
 * problem may well be the name (`VOXFORM_*` refused). A fallback (`:-…`) is hidden where it stands, like the value.
 */
const ONE_REFERENCE = /^(["']?)\$\{env:[A-Za-z_][A-Za-z0-9_]*\}\1$/;

/**
 * `kept` (the line as written up to there), then `value`, written from unit `valueFrom` of the line,
 * hidden unless a lone reference; a flow mapping closed on the line shows its keys, as a block one
 * does, so that a frame's caret can stand under the entry a problem is about.
 */
function hideAfter(kept: string, value: string, valueFrom: number): MaskedLine {
  const written = value.trim();
  const from = valueFrom + value.length - value.trimStart().length;
  const first = { from: 0, to: kept.length, at: 0, asWritten: true };
  if (written === '') return { shown: kept, hidden: [], parts: [first] };
  const pieces = flowMappingPieces(written) ?? [{ text: written, from: 0, secret: !ONE_REFERENCE.test(written) }];
  const masked: MaskedLine = { shown: `${kept} `, hidden: [], parts: [first] };
  for (const [index, piece] of pieces.entries()) {
    const at = masked.shown.length;
    const start = from + piece.from;
    // A hidden part at the end stands for the rest of the line: a caret past its end still stands at the mark.
    const to = piece.secret && index === pieces.length - 1 ? Infinity : start + piece.text.length;
    masked.parts.push({ from: start, to, at, asWritten: !piece.secret });
    masked.shown += piece.secret ? REDACTED : piece.text;
    if (piece.secret) masked.hidden.push(piece.text);
  }
  return masked;
}

/** A piece of a value as written (from unit `from` of it), and whether a frame hides it. */
interface ValuePiece {
  text: string;
  from: number;
  secret: boolean;
}

/**
 * A flow mapping (`{ x-token: "${env:T}", other: abc }`) in pieces: its punctuation and keys as
 * written, each value hidden unless a lone reference; after its `}`, closing brackets as written and
 * anything else hidden. Undefined for anything else (a nested collection, a key that is not plain,
 * a comment, a mapping that goes on to the next line): hidden whole.
 */
function flowMappingPieces(written: string): ValuePiece[] | undefined {
  if (!written.startsWith('{')) return undefined;
  const mapping = flowEntries(written);
  if (mapping === undefined) return undefined;
  const pieces: ValuePiece[] = [{ text: '{', from: 0, secret: false }];
  for (const [index, { from, to }] of mapping.entries.entries()) {
    const entry = written.slice(from, to);
    const lead = entry.length - entry.trimStart().length;
    const key = PLAIN_KEY.exec(entry.slice(lead));
    const last = index === mapping.entries.length - 1;
    if (!key && !(last && entry.trim() === '')) return undefined;
    const valueAt = key ? lead + key[0].length : entry.length;
    const rest = entry.slice(valueAt);
    const valueFrom = valueAt + rest.length - rest.trimStart().length;
    const value = rest.trim();
    pieces.push({ text: entry.slice(0, valueFrom), from, secret: false });
    if (value !== '') pieces.push({ text: value, from: from + valueFrom, secret: !ONE_REFERENCE.test(value) });
    const after = valueFrom + value.length;
    pieces.push({ text: `${entry.slice(after)}${last ? '}' : ','}`, from: from + after, secret: false });
  }
  const rest = written.slice(mapping.close + 1);
  const restFrom = mapping.close + 1 + rest.length - rest.trimStart().length;
  pieces.push({ text: written.slice(mapping.close + 1, restFrom), from: mapping.close + 1, secret: false });
  if (restFrom < written.length) pieces.push({ text: written.slice(restFrom), from: restFrom, secret: !/^[\s}\],]*$/.test(rest) });
  return pieces;
}

/**
 * The entries of the flow mapping `text` starts with, split at commas outside quotes, and where its
 * `}` is; undefined if a bracket or a comment comes first, or it does not close.
 */
function flowEntries(text: string): { entries: Array<{ from: number; to: number }>; close: number } | undefined {
  const entries: Array<{ from: number; to: number }> = [];
  let start = 1;
  let quote: Open['quote'];
  for (let i = 1; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote !== undefined) {
      ({ i, quote } = throughQuote(text, i, quote));
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === '}') {
      entries.push({ from: start, to: i });
      return { entries, close: i };
    } else if ('{[]#'.includes(ch)) {
      return undefined;
    } else if (ch === ',') {
      entries.push({ from: start, to: i });
      start = i + 1;
    }
  }
  return undefined;
}

function hideWhole(lead: string, content: string): MaskedLine {
  const first = { from: 0, to: lead.length, at: 0, asWritten: true };
  if (content === '') return { shown: lead, hidden: [], parts: [first] };
  return { shown: `${lead}${REDACTED}`, hidden: [content], parts: [first, { from: lead.length, to: Infinity, at: lead.length, asWritten: false }] };
}

/**
 * Follows quotes and flow brackets through a value (from where `open` left off), as YAML starts
 * them: a quote or bracket only where a value may start (not `it's`). Returns what is still open
 * at the end of the text, if anything.
 */
function scanValue(text: string, open: Open | undefined): Open | undefined {
  if (!open && !OPENERS.test(text)) return undefined;
  let quote = open?.quote;
  let depth = open?.depth ?? 0;
  let previous = open ? ',' : '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote !== undefined) {
      ({ i, quote } = throughQuote(text, i, quote));
    } else if (ch === '#' && (i === 0 || isSpace(text[i - 1]))) {
      break;
    } else if (valueMayStart(previous) && (ch === '"' || ch === "'")) {
      quote = ch;
    } else if (valueMayStart(previous) && (ch === '{' || ch === '[')) {
      depth++;
    } else if (depth > 0 && (ch === '}' || ch === ']')) {
      depth--;
    }
    if (!isSpace(ch)) previous = ch;
  }
  return quote !== undefined || depth > 0 ? { quote, depth } : undefined;
}

const OPENERS = /["'{[]/;

/**
 * One step inside a quoted scalar, at `i`: where the step ends and whether the quote is still open,
 * as YAML reads them: a backslash escapes the next character in "…", and '' is a quote in '…'.
 */
function throughQuote(text: string, i: number, quote: '"' | "'"): { i: number; quote: Open['quote'] } {
  const ch = text[i];
  if (quote === '"') return ch === '\\' ? { i: i + 1, quote } : { i, quote: ch === '"' ? undefined : quote };
  if (ch !== "'") return { i, quote };
  return text[i + 1] === "'" ? { i: i + 1, quote } : { i, quote: undefined };
}

function isSpace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t';
}

function valueMayStart(previous: string): boolean {
  return previous === '' || '[{,:-?'.includes(previous);
}

const ALIAS_PATTERN = /(?:^|[\s{,[:-])\*([^\s,[\]{}]+)/g;

/** The anchor names the hidden parts refer to (`*name`). */
function aliasesIn(masked: ReadonlyMap<number, MaskedLine>): Set<string> {
  const names = new Set<string>();
  for (const { hidden } of masked.values()) {
    for (const part of hidden) if (part.includes('*')) for (const match of part.matchAll(ALIAS_PATTERN)) names.add(match[1] as string);
  }
  return names;
}
