/**
 * Reading back a JSON document voxform wrote (a saved plan, its policy block, a test report, a
 * recording, a history record): a file a pull request or a hand edit may have changed, so every field
 * is checked. Each reader returns a value of its shape or throws `ShapeError` naming where it is
 * (`tests[0].location is not an object`); the caller refuses the whole document on the first one.
 * The predicates serve checkers that report a problem instead of throwing.
 */
import { isPlainObject, type JsonObject } from './json-object.js';
import { hasControlCharacter } from './printable.js';

/** A value out of shape; the message says where and what it is not. */
export class ShapeError extends Error {}

export const isText = (value: unknown): value is string => typeof value === 'string';
/** A name voxform wrote (an id, an address, a file): never a control character, which only a hand edit puts there and which would reach the terminal raw. */
export const isName = (value: unknown): value is string => isText(value) && !hasControlCharacter(value);
/** A duration, a rate or a count: a finite number, not negative. */
export const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;
export const isWhole = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
/** A number that counts from one: a review's, a comment's. */
export const isPositiveWhole = (value: unknown): value is number => isWhole(value) && value > 0;

export function isOneOf<T extends string>(values: readonly T[]): (value: unknown) => value is T {
  return (value): value is T => (values as readonly unknown[]).includes(value);
}

/** `value` when it `fits`; else `where is not what`. */
export function shaped<T>(value: unknown, fits: (value: unknown) => value is T, where: string, what: string): T {
  if (!fits(value)) throw new ShapeError(`${where} is not ${what}`);
  return value;
}

export const object = (value: unknown, where: string): JsonObject => shaped(value, isPlainObject, where, 'an object');
export const list = (value: unknown, where: string): unknown[] => shaped(value, Array.isArray, where, 'a list');
export const text = (value: unknown, where: string): string => shaped(value, isText, where, 'a string');
export const name = (value: unknown, where: string): string => shaped(value, isName, where, 'a name');
export const count = (value: unknown, where: string): number => shaped(value, isCount, where, 'a count');
export const whole = (value: unknown, where: string): number => shaped(value, isWhole, where, 'a whole number');

/** Undefined for an absent or null value, else what `read` makes of it. */
export function optional<T>(value: unknown, where: string, read: (value: unknown, where: string) => T): T | undefined {
  return value === null || value === undefined ? undefined : read(value, where);
}

/** The list at `where`, each item read by `read` at `where[index]`. */
export function each<T>(value: unknown, where: string, read: (value: unknown, where: string) => T): T[] {
  return list(value, where).map((item, index) => read(item, `${where}[${index}]`));
}
