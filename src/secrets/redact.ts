import { domainToASCII } from 'node:url';
import { isPlainObject } from '../util/json-object.js';
import { markdownHtmlText, markdownText } from '../util/markdown-escape.js';
import { controlsAsQuestionMarks, escapeJsonText, lineAsShown, printable, unicodeEscape } from '../util/printable.js';
import { shorten } from '../util/shorten.js';

/** What every printed, logged or stored secret becomes. */
export const REDACTED = '(sensitive)';

/**
 * Secrets shorter than this are not searched for in text: a value of a few characters also occurs
 * inside ordinary words ("x" in "excludes"), and hiding each occurrence garbles the output while
 * protecting nothing. Such values are masked where they stand as values instead (their config
 * paths, headers: the renderers, withholding and `logs` mask by place), and the manifest loader
 * warns about them (`env_value_short`).
 */
export const MIN_SEARCHABLE_SECRET = 6;

/** Hides the secrets a text holds (`SecretRegistry.redact`, or a library caller's own). */
export type Redact = (text: string) => string;

/** For callers that have no secrets to hide. */
export const keepText: Redact = (text) => text;

/**
 * `text` cut to at most `max` characters, an ellipsis marking the cut, **redacted first**: a
 * secret cut in two no longer matches the last scrub of the output, and its first part would be
 * printed. Every place that shortens text that may hold a secret (an agent's reply, a model's
 * answer) shortens through this.
 */
export function shortenRedacted(text: string, max: number, redact: Redact): string {
  return shorten(redact(text), max);
}

/**
 * Every text inside a JSON value — strings and object keys — passed through `redact`, each on its
 * own: a secret scrubbed from the value's JSON text could span its syntax and leave it unparseable.
 */
export function redactStrings(value: unknown, redact: Redact): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([key, child]) => [redact(key), redactStrings(child, redact)]));
  return value;
}

/**
 * The secret values known to this run (`${env:…}` values, headers, keys). Every line the CLI prints
 * passes through `redact`, so a secret that slipped past the schema-based redaction of the plan
 * still never reaches the terminal.
 *
 * Redaction cannot fail: it searches plain strings (no regular expression is built from a secret),
 * so a value of any characters is scrubbed in linear time. A value shorter than
 * `MIN_SEARCHABLE_SECRET` is not searched for (see there): it is masked by place. Besides the
 * value as written, the forms a service or a renderer echoes it in are scrubbed too (see
 * `echoedForms`), whatever the case of their ASCII letters, and in the text as it reads with its
 * escapes decoded (`redactNeedles`).
 */
export class SecretRegistry {
  private readonly values = new Set<string>();
  private needles: string[] | undefined;
  /** The values too short to search for in printed text, kept for `redactQuoted`. */
  private readonly shortValues = new Set<string>();
  private shortNeedles: string[] | undefined;
  /** Each value's searched forms, lower-cased (see searchedForms). */
  private readonly formsOf = new Map<string, string[]>();
  /** Both lists as one, kept while neither changes (redactNeedles keeps its buckets by the list). */
  private quotedNeedles: string[] | undefined;

  add(value: string | undefined | null): void {
    if (typeof value !== 'string' || value === '') return;
    if (value.length < MIN_SEARCHABLE_SECRET) {
      if (!this.shortValues.has(value)) (this.shortValues.add(value), (this.shortNeedles = undefined), (this.quotedNeedles = undefined));
      return;
    }
    if (this.values.has(value)) return;
    this.values.add(value);
    this.needles = undefined;
    this.quotedNeedles = undefined;
  }

  get size(): number {
    return this.values.size;
  }

  redact(text: string): string {
    return this.replaced(text, REDACTED);
  }

  /**
   * `text` with each secret `redact` finds replaced by `marker` instead: how a live text is read
   * where output measures it rather than prints it (withheldLiveText in withhold.ts).
   */
  replaced(text: string, marker: string): string {
    if (this.values.size === 0) return text;
    this.needles ??= this.searchedForms(this.values);
    return redactNeedles(String(text), this.needles, marker);
  }

  /**
   * Text quoted from the job log onto a review (a failed command's output, which may hold an error
   * quoting every value it was given): short secrets are hidden too, even inside words. The quote
   * may read garbled; it never shows a secret to the review's readers.
   */
  redactQuoted(text: string): string {
    if (this.shortValues.size === 0) return this.redact(text);
    this.needles ??= this.searchedForms(this.values);
    // One pass over both lists: a short value is never searched for inside a marker already written.
    this.shortNeedles ??= this.searchedForms(this.shortValues);
    this.quotedNeedles ??= [...this.needles, ...this.shortNeedles];
    return redactNeedles(String(text), this.quotedNeedles);
  }

  /**
   * A text that arrives in pieces (an agent's reply as the service streams it), redacted as one
   * text: each piece printed on its own would cut a secret the stream split ("Code SPR", "ING-26")
   * into parts no scrub finds, as a text cut to a size would (`shortenRedacted`). Yields what of
   * the text so far can be printed, redacted, holding back the end that could still be the start
   * of a secret or lie inside one, and that end once the text is complete; never an empty text.
   */
  async *redactPieces(pieces: AsyncIterable<string>): AsyncGenerator<string> {
    let held = '';
    for await (const piece of pieces) {
      held += piece;
      this.needles ??= this.searchedForms(this.values);
      const settled = this.values.size === 0 ? held.length : settledLength(held, this.needles);
      if (settled > 0) yield this.redact(held.slice(0, settled));
      held = held.slice(settled);
    }
    if (held !== '') yield this.redact(held);
  }

  /**
   * Every echoed form of the values, once: forms that differ only in the case of ASCII letters are one
   * search (redactNeedles ignores it). Each value's forms are worked out once, however often values
   * are added between two scrubs (a call log's pages each add URL tokens).
   */
  private searchedForms(values: ReadonlySet<string>): string[] {
    const forms = new Set<string>();
    for (const value of values) {
      let own = this.formsOf.get(value);
      if (!own) this.formsOf.set(value, (own = echoedForms(value).map(asciiLower)));
      for (const form of own) forms.add(form);
    }
    return [...forms];
  }
}

/** Text that every echoed form but the Markdown ones (`markdownForms`) writes unchanged. */
const WRITTEN_AS_ITSELF = /^[A-Za-z0-9._-]+$/;

/**
 * A secret as it may appear in text: each form of the whole value (`wholeForms`), and, for a value
 * holding line breaks (a PEM key, a JSON credential), each of its lines of searchable length as a
 * report shows and escapes text (shownForms, markupForms): a line diff (`voxform plan`, `drift`)
 * shows the value a line at a time, and the scrub reads each printed line on its own. Each line is
 * searched for without the spaces around it: a pretty-printed credential's `    },` is indentation and
 * a bracket, which every other such document holds. A line shorter than MIN_SEARCHABLE_SECRET so
 * trimmed is not searched for, as a short value is not (it would garble ordinary words): it may show
 * where the value is shown line by line.
 */
export function echoedForms(secret: string): string[] {
  const lines = secret.split(/\r?\n/).map((line) => line.trim());
  const searchedLines = lines.length > 1 ? lines.filter((line) => line.length >= MIN_SEARCHABLE_SECRET) : [];
  return [...new Set([...wholeForms(secret), ...searchedLines.flatMap((line) => shownForms(line).flatMap(markupForms))])];
}

/**
 * One text as it may appear: as written; JSON-escaped (as JSON.stringify and voxform's own
 * toJsonText write it, also with non-ASCII as `\uXXXX`, with `<`,
 * `>` and `&` so too as Go writes them, with `/` as `\/`, and escaped twice, as in a JSON body quoted
 * inside a JSON error message);
 * URL-encoded (path and query encodings, upper- and lower-case hex, space as `+`, and as a URL
 * parser writes it: urlPartForms); and as the report formats show it (shownForms) and escape it
 * (markupForms, markdownForms). A parser's lower-cased host is matched by the scrub ignoring case.
 */
function wholeForms(secret: string): string[] {
  // Letters, digits, `.`, `_` and `-` are written as themselves in every form but Markdown's: most tokens, found at once.
  if (WRITTEN_AS_ITSELF.test(secret)) return [...new Set([secret, ...markdownForms(secret)])];
  const json = JSON.stringify(secret).slice(1, -1);
  const jsonAscii = json.replace(/[^\x20-\x7e]/g, unicodeEscape);
  // As Go's encoding/json writes text by default, safe inside HTML: `<`, `>`, `&`, U+2028 and U+2029
  // as `\u003c`…, the rest of what is not ASCII as it is; and so with the rest escaped too.
  const jsonHtmlSafe = json.replace(/[<>&\u2028\u2029]/g, unicodeEscape);
  const jsonAsciiHtmlSafe = jsonAscii.replace(/[<>&]/g, unicodeEscape);
  const component = safeEncode(encodeURIComponent, secret);
  const forms = [
    secret,
    json,
    // As voxform's own JSON output writes it (toJsonText): the invisible and C1 characters escaped, the rest of what is not ASCII as it is.
    escapeJsonText(json),
    jsonAscii,
    jsonAscii.replace(/\\u([0-9a-f]{4})/g, (_m, hex: string) => `\\u${hex.toUpperCase()}`),
    json.replace(/\//g, '\\/'),
    jsonHtmlSafe,
    jsonAsciiHtmlSafe,
    ...[json, jsonAscii, jsonHtmlSafe, jsonAsciiHtmlSafe].map((form) => JSON.stringify(form).slice(1, -1)),
    component,
    component?.replace(/%20/g, '+'),
    component?.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
    safeEncode(encodeURI, secret),
    new URLSearchParams([['', secret]]).toString().slice(1),
    ...urlPartForms(secret),
    ...shownForms(secret).flatMap(markupForms),
    ...markdownForms(secret),
  ];
  return [...new Set(forms.filter((form): form is string => typeof form === 'string' && form !== ''))];
}

/**
 * A secret as a report shows text: as written; with its control characters escaped (`printable`)
 * or each shown as `?` (`lineAsShown` in a plan's diff, `controlsAsQuestionMarks` in a table; the
 * invisible and C1 characters too); and as a transcript line, line breaks turned into spaces, then escaped.
 */
function shownForms(secret: string): string[] {
  return [secret, printable(secret), lineAsShown(secret), controlsAsQuestionMarks(secret), printable(secret.replace(/\r?\n/g, ' '))];
}

/**
 * A secret as the Markdown escapers write it (`markdownText`, `markdownHtmlText`: `_` as `\_`, `@`
 * with a zero-width space after it, `://` with entities): the whole text, where a leading `-` or `#`
 * is escaped, leading white space is one space and a closing run of `#` is escaped too; after other
 * text; and with text after it as well.
 */
function markdownForms(secret: string): string[] {
  return [markdownText, markdownHtmlText].flatMap((escape) => [escape(secret), escape(`x${secret}`).slice(1), escape(`x${secret}x`).slice(1, -1)]);
}

/**
 * A secret as a report writes it: XML and HTML escape `&`, `<`, `>`, quotes (JUnit with named
 * entities, the HTML report with numeric ones, a Markdown `<summary>` only `<`, or `&`, `<`, `>`),
 * and a Markdown table cell writes `|` as `\|`; the scrub runs on the finished text, so it must
 * know each of them (`a&b` is `a&amp;b` in JUnit).
 */
function markupForms(secret: string): string[] {
  const named: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
  const markup = [
    (text: string) => text.replace(/</g, '&lt;'),
    (text: string) => text.replace(/[&<>]/g, (c) => named[c] as string),
    (text: string) => text.replace(/[&<>"']/g, (c) => named[c] as string),
    (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`),
  ];
  const cells = [(text: string) => text, (text: string) => text.replaceAll('|', '\\|')];
  return cells.flatMap((cell) => [cell(secret), ...markup.map((escape) => cell(escape(secret)))]);
}

/**
 * Each part of a URL the parser writes a secret into, as a function of one character: a path, a
 * query and user info each escape their own set (a path keeps `|` and `[`, which `encodeURI`
 * escapes), and a host of non-ASCII letters becomes punycode (`domainToASCII`).
 */
const URL_PARTS: ReadonlyArray<(ch: string) => string> = [
  // Between two letters: the parser trims white space at the ends of its input.
  (ch) => new URL(`http://h/x${ch}x`).pathname.slice(2, -1),
  (ch) => new URL(`http://h/?x${ch}x`).search.slice(2, -1),
  (ch) => new URL(`http://x${ch}x@h/`).username.slice(1, -1),
];

/**
 * A secret as `new URL(…)` writes it in a path, a query, user info and a host (see URL_PARTS). The
 * parser drops every tab and line break, and at the ends of the URL spaces and other controls: a
 * pasted secret's trailing line break or tab, with the secret last in the URL.
 */
function urlPartForms(secret: string): string[] {
  const parsed = secret.replace(/[\t\n\r]/g, '');
  const trimmed = parsed.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, '');
  // Never a form shorter than what is searched for: what is left of a value of mostly white space would garble words.
  const read = [...new Set([parsed, trimmed])].filter((form) => form.length >= Math.min(secret.length, MIN_SEARCHABLE_SECRET));
  return read.flatMap(writtenInParts);
}

/** `secret`, as the parser has read it, written in each part (and as a host, when it could be one). */
function writtenInParts(secret: string): string[] {
  const forms = URL_PARTS.map((part) => {
    const seen = new Map<string, string>();
    let out = '';
    for (const ch of secret) {
      let written = seen.get(ch);
      if (written === undefined) {
        written = partOf(part, ch);
        seen.set(ch, written);
      }
      out += written;
    }
    return out;
  });
  // Only text a host can hold: the parser stops a host at `/`, `?`, `#`, `@` or `:`, and a prefix is no form of the secret.
  return HOST_TEXT.test(secret) ? [...forms, domainToASCII(secret)] : forms;
}

/** Non-ASCII text with none of the characters that end a host or that a host refuses. */
const HOST_TEXT = /^(?=.*[^\x00-\x7f])[^\x00-\x20\x7f/\\?#@:%[\]<>^|]+$/su;

/** The character as the part writes it; itself where the part gives it a meaning of its own (`?` in a path, `:` in user info). */
function partOf(part: (ch: string) => string, ch: string): string {
  try {
    return part(ch) || ch;
  } catch {
    return ch;
  }
}

/** `encodeURIComponent` and `encodeURI` throw on a lone surrogate; such a value has no URL form. */
function safeEncode(encode: (text: string) => string, text: string): string | undefined {
  try {
    return encode(text);
  } catch {
    return undefined;
  }
}

/** ASCII letters lower-cased, every other character kept: the same length, so a place in the result is the same place in the text. */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/**
 * Replaces every occurrence of every needle with `marker` (`REDACTED`), whatever the case of its ASCII letters
 * (a URL parser lower-cases a host; a service may upper-case what it echoes), in the text as written
 * and as it reads decoded (`decodedReadings`): a service quotes text with the escapes JSON, HTML and
 * URLs allow, a quote inside a quote escaped again, and a secret so written is found in what it decodes to;
 * and as voxform's own renderers' escapes read undone (`rendererReadings`).
 * Occurrences are found with `indexOf` (never in text already redacted) and replaced where they stand
 * in the text as written, escapes and all, then overlapping and touching ones are merged, so
 * overlapping secrets are scrubbed as one span and the marker itself is never re-scanned.
 */
export function redactNeedles(text: string, needles: readonly string[], marker = REDACTED): string {
  const merged = secretSpans(text, needles);
  if (merged.length === 0) return text;
  let out = '';
  let cursor = 0;
  for (const [from, to] of merged) {
    out += `${text.slice(cursor, from)}${marker}`;
    cursor = to;
  }
  return out + text.slice(cursor);
}

/**
 * Where the needles occur in `text`, as written or in a decoded reading of it, as places in the text
 * as written; overlapping and touching occurrences merged, in order.
 */
function secretSpans(text: string, needles: readonly string[]): Array<[number, number]> {
  const spans = searchedSpans(asciiLower(text), needles);
  for (const reading of [...decodedReadings(text), ...rendererReadings(text)]) {
    for (const [from, to] of searchedSpans(asciiLower(reading.text), needles)) spans.push([reading.from[from] as number, reading.to[to - 1] as number]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [found, to] of spans) {
    const from = escapeStartBefore(text, found);
    const last = merged[merged.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/**
 * Where a span found at `from` starts so that it leaves no escape cut in two: one place earlier when
 * an odd run of backslashes ends right before it, the last of them escaping its first character.
 * A form found in JSON's `\\\t` from the second backslash would leave the first alone before the
 * marker, and `\(sensitive)` is no JSON.
 */
function escapeStartBefore(text: string, from: number): number {
  let run = 0;
  while (from - run > 0 && text[from - run - 1] === '\\') run++;
  return run % 2 === 1 ? from - 1 : from;
}

/** Each needle's occurrences in `haystack` (lower-cased), unordered. */
function searchedSpans(haystack: string, needles: readonly string[]): Array<[number, number]> {
  return needles.length < BUCKETED_SEARCH_FROM ? searchEach(haystack, needles) : searchBucketed(haystack, needles);
}

/**
 * Text as it reads decoded, and where each of its characters stands in the text as written: `from`
 * the first place of what it was decoded from, `to` the place after the last.
 */
interface DecodedReading {
  text: string;
  from: Int32Array;
  to: Int32Array;
}

/**
 * The text as read back from what voxform's own renderers wrote, each reading one renderer's escapes
 * undone at once, so a secret is found however the text around it changed how its characters were
 * escaped (a `[` after `##`, a `0)` at a line's start, `//` after `:`): the Markdown escaper's (its
 * backslash escapes, character references and the zero-width space it adds, with printable's
 * `\u` escapes), and HTML's alone (a `<summary>`, where a backslash is a backslash).
 */
function rendererReadings(text: string): DecodedReading[] {
  // Each only where it can read otherwise than the first of decodedReadings: no JSON text pays for them.
  const markdown = MARKDOWN_ONLY_ESCAPE.test(text) ? decodedOnce(text, undefined, JSON_OR_MARKDOWN_ESCAPE) : undefined;
  const html = text.includes('\\') && CHARACTER_REFERENCE.test(text) ? decodedOnce(text, undefined, null) : undefined;
  return [markdown, html].filter((reading) => reading !== undefined);
}

/** Something HTML_REFERENCE may decode (a query's `&b=` is not). */
const CHARACTER_REFERENCE = /&#?[0-9a-z]+;/i;
/** A Markdown escape JSON does not have: a backslash before ASCII punctuation other than `"`, `'`, `/` and `\`. */
const MARKDOWN_ONLY_ESCAPE = /\\[!#-&(-.:-@[\]^_`{-~]/;

/**
 * How many times a text is decoded at most: a JSON error quoted as a string in another's, that one
 * quoted again, HTML in JSON. Each reading is at most as long as the one before it, and each is
 * searched for every needle, so the bound keeps the scrub linear in the text.
 */
const DECODE_ROUNDS = 4;

/**
 * The readings of `text` with the escapes a service may have written decoded (`decodedOnce`), each
 * decoding the one before, until nothing more decodes or after DECODE_ROUNDS rounds. A JSON string
 * quoted inside a JSON string has its escapes escaped again (`\\u0073`): each round takes one
 * quoting off. Text with nothing to decode has none.
 */
function decodedReadings(text: string): DecodedReading[] {
  const readings: DecodedReading[] = [];
  let reading: DecodedReading | undefined;
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    const next = decodedOnce(reading?.text ?? text, reading);
    if (next === undefined) break;
    readings.push((reading = next));
  }
  return readings;
}

/** A backslash and `\u` with four hex digits, `\x` with two (Python's), or one of `characters` (a character class). */
function backslashEscape(characters: string): RegExp {
  return new RegExp(String.raw`\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|(${characters}))`, 'y');
}
/** A JSON escape (`\u` and four hex digits, or a character JSON escapes with a backslash), or Python's `\'` and `\xNN`. */
const JSON_ESCAPE = backslashEscape(String.raw`["'\\/bfnrt]`);
/** The same, or a Markdown escape: any ASCII punctuation after a backslash (`\#`, `\)`), as the Markdown escaper writes it. */
const JSON_OR_MARKDOWN_ESCAPE = backslashEscape(String.raw`[!-/:-@[-\`{-~bfnrt]`);
const JSON_ESCAPED: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
/**
 * An HTML character reference of what HTML escapers write (Go's `html.EscapeString`, XML's and the
 * reports' own escapers): `&`, `<`, `>` and the quotes by name, and any character by number.
 */
const HTML_REFERENCE = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));/y;
const HTML_NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * `text` (a reading of the text as written, or that text itself) with each JSON escape, HTML
 * character reference and run of URL-encoded bytes decoded once, left to right, anywhere in it: a service quotes JSON inside
 * plain words, and what it quotes need not be whole JSON. Undefined when nothing decodes.
 * `backslash`: the escapes a backslash starts (JSON's, or JSON's and Markdown's); null: none, a backslash is itself.
 */
function decodedOnce(text: string, of: DecodedReading | undefined, backslash: RegExp | null = JSON_ESCAPE): DecodedReading | undefined {
  if (!text.includes('\\') && !text.includes('&') && !text.includes('%')) return undefined;
  const parts: string[] = [];
  let length = 0;
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  /** Appends `written`, which stands for the text from `start` to `end`, each of its characters placed there. */
  const put = (written: string, start: number, end: number) => {
    for (let unit = 0; unit < written.length; unit++, length++) {
      from[length] = of ? (of.from[start] as number) : start;
      to[length] = of ? (of.to[end - 1] as number) : end;
    }
    parts.push(written);
  };
  let decoded = false;
  let plainFrom = 0;
  ESCAPE_START.lastIndex = 0;
  for (let match = ESCAPE_START.exec(text); match !== null; match = ESCAPE_START.exec(text)) {
    const escape = escapeAt(text, match.index, backslash);
    if (!escape) continue;
    // Characters written as themselves each stand where they stood.
    for (let at = plainFrom; at < match.index; at++) put(text[at] as string, at, at + 1);
    const [written, escapeLength] = escape;
    put(written, match.index, match.index + escapeLength);
    decoded = true;
    plainFrom = ESCAPE_START.lastIndex = match.index + escapeLength;
  }
  if (!decoded) return undefined;
  for (let at = plainFrom; at < text.length; at++) put(text[at] as string, at, at + 1);
  return { text: parts.join(''), from: from.subarray(0, length), to: to.subarray(0, length) };
}

/** Where an escape may start. */
const ESCAPE_START = /[\\&%]/g;

/** What the escape at `at` (a `\\`, a `&` or a `%`) stands for, and the escape's length; undefined where none starts. */
function escapeAt(text: string, at: number, backslash: RegExp | null): [string, number] | undefined {
  if (text[at] === '%') return percentRunAt(text, at);
  if (text[at] !== '\\') return htmlReferenceAt(text, at);
  return backslash ? backslashEscapeAt(text, at, backslash) : undefined;
}

/** A JSON escape, or one of those Python's repr writes beside them (`\'`, `\x27`), or with `pattern` a Markdown one too. */
function backslashEscapeAt(text: string, at: number, pattern: RegExp): [string, number] | undefined {
  pattern.lastIndex = at;
  const match = pattern.exec(text);
  if (!match) return undefined;
  const [escape, unicode, byte, character] = match;
  const hex = unicode ?? byte;
  return [hex !== undefined ? String.fromCharCode(parseInt(hex, 16)) : (JSON_ESCAPED[character as string] ?? (character as string)), escape.length];
}

/** A run of URL-encoded bytes (`%22`, `%C3%A9`), decoded as UTF-8 whole; undefined where they are no UTF-8 text. */
const PERCENT_RUN = /(?:%[0-9a-fA-F]{2})+/y;
function percentRunAt(text: string, at: number): [string, number] | undefined {
  PERCENT_RUN.lastIndex = at;
  const run = PERCENT_RUN.exec(text)?.[0];
  if (run === undefined) return undefined;
  try {
    return [decodeURIComponent(run), run.length];
  } catch {
    return undefined;
  }
}

const ZERO_WIDTH_SPACE = 0x200b;

function htmlReferenceAt(text: string, at: number): [string, number] | undefined {
  HTML_REFERENCE.lastIndex = at;
  const match = HTML_REFERENCE.exec(text);
  if (!match) return undefined;
  const [reference, name, decimal, hex] = match;
  if (name !== undefined) return [HTML_NAMED[name] as string, reference.length];
  const codePoint = decimal !== undefined ? parseInt(decimal, 10) : parseInt(hex as string, 16);
  // The zero-width space the Markdown escaper writes after `@` and before an issue number is none of the text.
  if (codePoint === ZERO_WIDTH_SPACE) return ['', reference.length];
  return codePoint <= 0x10ffff ? [String.fromCodePoint(codePoint), reference.length] : undefined;
}

/**
 * How much of `text`, a text that may go on, is redacted as it will be once complete: up to the
 * first place whose rest, as written or decoded, is the start of a needle, before an escape the next
 * piece may finish (`\\u00`, `&#3`: it could decode into a secret's start), and never into a secret
 * found across that place.
 */
function settledLength(text: string, needles: readonly string[]): number {
  const complete = text.length - unfinishedEscapeLength(text, DECODE_ROUNDS);
  const written = text.slice(0, complete);
  const readings = [{ text: written, place: (at: number) => at }, ...decodedReadings(written).map((reading) => ({ text: reading.text, place: (at: number) => reading.from[at] as number }))];
  let settled = complete;
  for (const [round, reading] of readings.entries()) {
    // An escape complete as written may decode into the start of one (`&amp;` into `&`, `\u005c` into
    // `\`): held back, and what comes before it is what may start a secret.
    const open = unfinishedEscapeLength(reading.text, DECODE_ROUNDS - round);
    const haystack = asciiLower(reading.text.slice(0, reading.text.length - open));
    if (open > 0) settled = Math.min(settled, reading.place(haystack.length));
    for (const needle of needles) {
      for (let at = Math.max(0, haystack.length - needle.length + 1); at < haystack.length && reading.place(at) < settled; at++) {
        if (endStartsNeedle(haystack, at, needle)) settled = reading.place(at);
      }
    }
  }
  const across = secretSpans(text, needles).find(([from, to]) => from < settled && to > settled);
  return across ? across[0] : settled;
}

/** The start of an HTML character reference or of a URL-encoded byte (see decodedOnce) at the end of a text: `&am`, `&#x1F6`, `%C3%A`. */
const UNFINISHED_REFERENCE = /&(?:#[xX]?[0-9a-fA-F]{0,7}|[a-z]{0,4})$|(?:%[0-9a-fA-F]{2})*%[0-9a-fA-F]?$/;
/** The start of an escape at the end of a text, past its backslashes: `u` and up to three hex digits, or `x` and up to one. */
const UNFINISHED_UNICODE = /u[0-9a-fA-F]{0,3}$|x[0-9a-fA-F]?$/;
/**
 * How many characters at the end of `text` begin an escape the next piece may finish: a JSON escape
 * (backslashes, `u` or `x` and hex digits), an HTML character reference or a URL-encoded byte, with `rounds` rounds of decoding
 * still to come. Read from the end, never the whole text: a reply streamed in many pieces is scanned
 * once per piece. Each round halves a run of backslashes (`\\\\` reads `\\`, then `\`), so of a
 * long run only the last 2^(rounds+1) can join the next piece; the rest is let go in a multiple of
 * 2^rounds, so it pairs its backslashes as the whole text would, round after round.
 */
function unfinishedEscapeLength(text: string, rounds: number): number {
  const tail = text.slice(-12);
  const reference = UNFINISHED_REFERENCE.exec(tail);
  if (reference) return tail.length - reference.index;
  const unicode = UNFINISHED_UNICODE.exec(tail)?.[0].length ?? 0;
  let backslashes = 0;
  while (text.charCodeAt(text.length - unicode - backslashes - 1) === 0x5c) backslashes++;
  if (backslashes === 0) return 0;
  const kept = 2 ** (rounds + 1);
  const held = backslashes <= kept ? backslashes : kept + ((backslashes - kept) % (kept / 2));
  return held + unicode;
}

/** Whether `haystack` from `at` to its end is the start of `needle` (shorter than it), compared without copying either. */
function endStartsNeedle(haystack: string, at: number, needle: string): boolean {
  for (let i = 0; at + i < haystack.length; i++) if (haystack.charCodeAt(at + i) !== needle.charCodeAt(i)) return false;
  return true;
}

/** Each needle's occurrences in `haystack` (lower-cased), one search per needle. */
function searchEach(haystack: string, needles: readonly string[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const written of needles) {
    if (written === '' || written.length > haystack.length) continue;
    const needle = asciiLower(written);
    // Continue after the whole match: linear time even for a long, repetitive secret.
    for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) spans.push([at, at + needle.length]);
  }
  return spans;
}

/**
 * From this many needles on, the text is read once, each place looked up among the needles by its
 * first characters, instead of searched once per needle: the URL tokens of a long call log are
 * thousands of values, and every printed line is scrubbed of them all.
 */
const BUCKETED_SEARCH_FROM = 64;

/**
 * Needles by a hash of their last MIN_SEARCHABLE_SECRET characters (lower-cased: tokens often share
 * their start, a JWT's header, a `sk-live-`, seldom their end), and those searched
 * one by one: shorter ones, longer ones than BUCKETED_LONGEST and those past BUCKET_SIZE in a bucket,
 * so a place of the text costs at most BUCKET_SIZE comparisons of BUCKETED_LONGEST characters, whatever
 * the needles (a manifest chooses some: its literal headers, its URL tokens).
 */
interface NeedleBuckets {
  byEnd: Map<number, string[]>;
  each: string[];
}

const BUCKETED_LONGEST = 256;
const BUCKET_SIZE = 4;

/** The buckets of each needle list, built once: a registry keeps its list until a value is added. */
const bucketsOfNeedles = new WeakMap<readonly string[], NeedleBuckets>();

function needleBuckets(needles: readonly string[]): NeedleBuckets {
  let buckets = bucketsOfNeedles.get(needles);
  if (buckets) return buckets;
  buckets = { byEnd: new Map(), each: [] };
  for (const written of needles) {
    const needle = asciiLower(written);
    const end = needle.length < MIN_SEARCHABLE_SECRET || needle.length > BUCKETED_LONGEST ? undefined : startHash(needle, needle.length - MIN_SEARCHABLE_SECRET);
    const bucket = end === undefined ? undefined : buckets.byEnd.get(end);
    if (end === undefined || (bucket && bucket.length >= BUCKET_SIZE)) buckets.each.push(needle);
    else if (bucket) bucket.push(needle);
    else buckets.byEnd.set(end, [needle]);
  }
  bucketsOfNeedles.set(needles, buckets);
  return buckets;
}

/** The rolling hash of MIN_SEARCHABLE_SECRET characters: each step drops the first character and adds the next. */
const HASH_BASE = 31;
/** HASH_BASE to the power MIN_SEARCHABLE_SECRET − 1, in 32 bits: the weight of the character a step drops. */
const HASH_TOP = Array.from({ length: MIN_SEARCHABLE_SECRET - 1 }).reduce<number>((power) => Math.imul(power, HASH_BASE), 1);

/** The hash of the MIN_SEARCHABLE_SECRET characters of `text` from `from` on. */
function startHash(text: string, from: number): number {
  let hash = 0;
  for (let at = from; at < from + MIN_SEARCHABLE_SECRET; at++) hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(at)) | 0;
  return hash;
}

/** The same occurrences as `searchEach` (each needle's, left to right, none overlapping its own last), in one pass. */
function searchBucketed(haystack: string, needles: readonly string[]): Array<[number, number]> {
  const { byEnd, each } = needleBuckets(needles);
  const spans = searchEach(haystack, each);
  if (haystack.length < MIN_SEARCHABLE_SECRET) return spans;
  const nextFrom = new Map<string, number>();
  // `hash` is that of the characters from `at` on: the end of every needle that ends there.
  for (let at = 0, hash = startHash(haystack, 0); ; at++) {
    const bucket = byEnd.get(hash);
    if (bucket) {
      for (const needle of bucket) {
        const start = at + MIN_SEARCHABLE_SECRET - needle.length;
        if (start < (nextFrom.get(needle) ?? 0) || !haystack.startsWith(needle, start)) continue;
        spans.push([start, start + needle.length]);
        nextFrom.set(needle, start + needle.length);
      }
    }
    if (at + MIN_SEARCHABLE_SECRET >= haystack.length) return spans;
    hash = (Math.imul((hash - Math.imul(haystack.charCodeAt(at), HASH_TOP)) | 0, HASH_BASE) + haystack.charCodeAt(at + MIN_SEARCHABLE_SECRET)) | 0;
  }
}
