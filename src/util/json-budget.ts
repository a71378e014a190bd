/**
 * How much a JSON text may make voxform build: values (not keys) and nesting depth, counted over the
 * bytes before `JSON.parse` sees them, since a size cap alone does not bound memory (`[{},{},…]`),
 * and every later step walks values recursively (the plan's comparison, the hashes, the secret
 * scrub). No syntax check: `JSON.parse` does that next, on text known to be within the budget.
 * Kept files count their bytes as they are read (project-files/kept-files.ts); JSON from outside
 * voxform (a service's answer or stream event, a model's reply, a webhook's body, a code host's
 * answer, the emulator's requests, an operator's document) is parsed by `parseOutsideJson` alone.
 */
import { formatCount } from './plural.js';

/** What a JSON text may hold. */
export interface JsonBudget {
  /** Values in all, the document itself included. */
  maxValues: number;
  /** Objects and arrays inside one another: `{}` is depth 1, `{"a":[1]}` depth 2. */
  maxDepth: number;
}

/** The first limit passed, and the offset of the byte that passed it (from the first byte fed). */
type JsonOverrun = { limit: 'values' | 'depth'; max: number; at: number };

/** The characters that make a JSON text's structure, as bytes (or UTF-16 code units: all are ASCII). */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
export const COMMA = 0x2c;
const COLON = 0x3a;

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * Counts the values and depth of UTF-8 JSON fed in pieces (no byte of a multi-byte character is
 * ASCII, so structure is found bytewise); `feed` answers the first limit passed, if any.
 */
export class JsonCounter {
  values = 0;
  private depth = 0;
  /** Whether each open container is an object (1) or an array (0), by depth. */
  private readonly objects: Uint8Array;
  private inString = false;
  private escaped = false;
  private inScalar = false;
  /** In an object, where the next string is a key. */
  private expectKey = false;
  /** Bytes fed before the current piece. */
  private fed = 0;

  constructor(private readonly budget: JsonBudget) {
    this.objects = new Uint8Array(budget.maxDepth + 2);
  }

  feed(bytes: Uint8Array, from = 0, to = bytes.length): JsonOverrun | undefined {
    const { maxValues, maxDepth } = this.budget;
    const start = this.fed - from;
    this.fed += to - from;
    for (let i = from; i < to; i++) {
      const byte = bytes[i] as number;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
        continue;
      }
      if (isSpace(byte)) {
        this.inScalar = false;
        continue;
      }
      switch (byte) {
        case QUOTE:
          this.inString = true;
          this.inScalar = false;
          if (this.expectKey) {
            this.expectKey = false;
            continue;
          }
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          this.inScalar = false;
          if (++this.depth > maxDepth) return { limit: 'depth', max: maxDepth, at: start + i };
          this.objects[this.depth] = byte === OPEN_OBJECT ? 1 : 0;
          this.expectKey = byte === OPEN_OBJECT;
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          this.inScalar = false;
          this.expectKey = false;
          if (this.depth > 0) this.depth--;
          continue;
        case COMMA:
          this.inScalar = false;
          this.expectKey = this.objects[this.depth] === 1;
          continue;
        case COLON:
          this.inScalar = false;
          continue;
        default:
          // A number or literal: counted at its first byte.
          if (this.inScalar) continue;
          this.inScalar = true;
      }
      if (++this.values > maxValues) return { limit: 'values', max: maxValues, at: start + i };
    }
    return undefined;
  }
}

/** The first limit `text` passes, if any. */
export function overrunOf(text: string | Uint8Array, budget: JsonBudget): JsonOverrun | undefined {
  return new JsonCounter(budget).feed(typeof text === 'string' ? Buffer.from(text) : text);
}

/** "holds more than 2,000,000 JSON values", "nests deeper than 128 levels". */
function overrunPhrase(overrun: Pick<JsonOverrun, 'limit' | 'max'>): string {
  return overrun.limit === 'values' ? `holds more than ${formatCount(overrun.max)} JSON values` : `nests deeper than ${formatCount(overrun.max)} levels`;
}

/** "holds more than 2,000,000 JSON values, the limit", "nests deeper than 128 levels, the limit". */
export function describeOverrun(overrun: JsonOverrun): string {
  return `${overrunPhrase(overrun)}, the limit`;
}

/** The deepest nesting accepted of JSON from outside: `{}` is depth 1, `{"a":[1]}` depth 2. */
export const MAX_JSON_DEPTH = 64;

/**
 * What JSON from outside may hold. The nesting is far beyond any agent config or metadata of the
 * service. The values are far beyond the largest answer read (every phone of an account, a page of
 * a hundred call records with their transcripts), and bound what parsing builds: 64 MiB of `{},`
 * alone would be over twenty million objects, a few GB.
 */
export const OUTSIDE_JSON_BUDGET: JsonBudget = { maxValues: 2_000_000, maxDepth: MAX_JSON_DEPTH };

/**
 * JSON text from outside refused for its size in values or its nesting: a SyntaxError, as
 * JSON.parse's refusal of text that is not JSON, so a reader's fallback for such text applies.
 * `at` is the offset in the text of the character that passed the limit; the message names the
 * limit ("JSON nested deeper than 64 levels", "JSON of more than 2,000,000 values"), and `phrase`
 * completes a sentence ("the body nests deeper than 64 levels").
 */
export class JsonPastBudgetError extends SyntaxError {
  readonly phrase: string;
  constructor(
    overrun: Pick<JsonOverrun, 'limit' | 'max'>,
    readonly at: number,
  ) {
    super(overrun.limit === 'depth' ? `JSON nested deeper than ${formatCount(overrun.max)} levels` : `JSON of more than ${formatCount(overrun.max)} values`);
    this.name = 'JsonPastBudgetError';
    this.phrase = overrunPhrase(overrun);
  }
}

/** JSON text from outside, parsed once it is known to be within `budget`; throws a SyntaxError as JSON.parse does (JsonPastBudgetError past the budget). */
export function parseOutsideJson(text: string, budget: JsonBudget = OUTSIDE_JSON_BUDGET): unknown {
  const bytes = Buffer.from(text);
  const overrun = overrunOf(bytes, budget);
  // Structure is ASCII, so the byte that passed the limit starts a character: the text before it, decoded, is as long as the text's own.
  if (overrun) throw new JsonPastBudgetError(overrun, bytes.subarray(0, overrun.at).toString('utf8').length);
  return JSON.parse(text);
}

/** Whether a parsed value (from YAML, say) nests objects or arrays more than MAX_JSON_DEPTH deep. Iterative. */
export function valueTooDeep(value: unknown): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return true;
    for (const child of Object.values(current)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
