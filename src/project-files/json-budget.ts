/**
 * How much a JSON text may make voxform build: values (not keys) and nesting depth, counted over the
 * bytes before `JSON.parse` sees them, since a size cap alone does not bound memory (`[{},{},…]`).
 * No syntax check: `JSON.parse` does that next, on text known to be within the budget.
 */
import { formatCount } from '../util/plural.js';

/** What a JSON text may hold. */
export interface JsonBudget {
  /** Values in all, the document itself included. */
  maxValues: number;
  /** Objects and arrays inside one another: `{}` is depth 1, `{"a":[1]}` depth 2. */
  maxDepth: number;
}

type JsonOverrun = { limit: 'values'; max: number } | { limit: 'depth'; max: number };

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

  constructor(private readonly budget: JsonBudget) {
    this.objects = new Uint8Array(budget.maxDepth + 2);
  }

  feed(bytes: Uint8Array, from = 0, to = bytes.length): JsonOverrun | undefined {
    const { maxValues, maxDepth } = this.budget;
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
          if (++this.depth > maxDepth) return { limit: 'depth', max: maxDepth };
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
      if (++this.values > maxValues) return { limit: 'values', max: maxValues };
    }
    return undefined;
  }
}

/** The first limit `text` passes, if any. */
export function overrunOf(text: string | Uint8Array, budget: JsonBudget): JsonOverrun | undefined {
  return new JsonCounter(budget).feed(typeof text === 'string' ? Buffer.from(text) : text);
}

/** "holds more than 2,000,000 JSON values, the limit", "nests deeper than 128 levels, the limit". */
export function describeOverrun(overrun: JsonOverrun): string {
  return overrun.limit === 'values'
    ? `holds more than ${formatCount(overrun.max)} JSON values, the limit`
    : `nests deeper than ${formatCount(overrun.max)} levels, the limit`;
}
