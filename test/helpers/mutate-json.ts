/**
 * Seeded changes to JSON answers, for the fuzz tests of what voxform reads from outside (the
 * service, a code host): a field dropped, null, another type, a list item repeated, text with
 * controls or workflow commands appended, nesting thousands deep.
 */
import { expect } from 'vitest';
import { seededRandom } from '../../src/util/seeded-random.js';

/** A value nested 3,000 deep: put in as a marker, written out as its text (JSON.stringify would recurse that deep). */
const DEEP_MARK = '\u0000nested 3,000 deep\u0000';
const DEEP_TEXT = `${'['.repeat(3000)}1${']'.repeat(3000)}`;
const TEXTS = ['', ' ', '\u001b]0;title\u0007', '\u001b[2J', '\u202eevil', '::error::x', '##[error]y', 'a\u0085b', '-1', '__proto__', 'x'.repeat(5000)];

/** Changes one drawn place of a JSON value, in place where it can; returns the value. */
export function mutator(seed: number) {
  const next = seededRandom(seed);
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const replacement = (): unknown => pick([null, true, 0, -1, 1.5, 1e308, pick(TEXTS), [], {}, [null], { a: 1 }, DEEP_MARK]);
  const places = (value: unknown, at: Array<string | number> = [], out: Array<Array<string | number>> = []) => {
    out.push(at);
    if (value !== null && typeof value === 'object') for (const [key, child] of Object.entries(value)) places(child, [...at, Array.isArray(value) ? Number(key) : key], out);
    return out;
  };
  return (value: unknown): unknown => {
    const at = pick(places(value));
    if (at.length === 0) return replacement();
    let parent = value as Record<string | number, unknown>;
    for (const key of at.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    const key = at[at.length - 1] as string | number;
    const kind = int(4);
    if (kind === 0 && !Array.isArray(parent)) delete parent[key];
    else if (kind === 1 && Array.isArray(parent)) parent.push(structuredClone(parent[key as number]));
    else if (kind === 2 && typeof parent[key] === 'string') parent[key] = `${parent[key] as string}${pick(TEXTS)}`;
    else parent[key] = replacement();
    return value;
  };
}

/** An answer's text with 1 to 3 places changed: a JSON body whole, a stream's JSON events one by one. */
export function changedAnswer(text: string, mutate: (value: unknown) => unknown, draw: () => number): string {
  const changed = (json: string): string => {
    let value = JSON.parse(json) as unknown;
    for (let count = 1 + Math.floor(draw() * 3); count > 0; count--) value = mutate(value);
    return (JSON.stringify(value) ?? 'null').replaceAll(JSON.stringify(DEEP_MARK), DEEP_TEXT);
  };
  try {
    return changed(text);
  } catch {
    // Not one JSON document: a stream of events, each `data:` line its own.
    return text.replace(/^data: (\{.*\})$/gm, (line, json: string) => (draw() < 0.5 ? `data: ${changed(json)}` : line));
  }
}

/**
 * What a command fed changed answers must end with: a result or a clear error (exit 0, 1 or 2), never
 * an internal error, a stack trace or a word of a bug of voxform's, and output that neither holds a raw control character nor
 * starts a workflow command (voxform writes none; the answers carry `::error::x` and `##[error]y`).
 */
export function expectClearOutcome(result: { code: number; stdout: string; stderr: string }, command: string): void {
  const printed = result.stdout + result.stderr;
  expect([0, 1, 2], `${command}: ${result.stderr}`).toContain(result.code);
  // An answer of another shape is no bug of voxform's, and nothing may say it is.
  expect(printed, command).not.toMatch(/unexpected problem|\n\s+at \S+:\d+:\d+|bug (in|of) voxform/);
  expect(printed, command).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  expect(printed, command).not.toMatch(/^\s*::|##\[/m);
}
