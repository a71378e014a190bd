/** Small helpers for dotted field paths (`config.flow.response_delay`) over plain JSON values. */

import { isPlainObject, type JsonObject } from '../util/json-object.js';

export function splitPath(path: string): string[] {
  return path === '' ? [] : path.split('.');
}

export function getAtPath(value: unknown, parts: readonly string[]): unknown {
  let current = value;
  for (const part of parts) {
    if (!isPlainObject(current)) return undefined;
    current = current[part];
  }
  return current;
}

/**
 * Every leaf of an object as `prefix.a.b → value`. Objects are walked into; arrays, scalars and
 * `null` are leaves (a manifest owns an array as one value, and `null` means "clear").
 */
export function flattenLeaves(value: unknown, prefix: string, out = new Map<string, unknown>()): Map<string, unknown> {
  if (isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) flattenLeaves(child, prefix ? `${prefix}.${key}` : key, out);
  } else {
    out.set(prefix, value);
  }
  return out;
}

/** Whether `path` is `base` or lies under it. */
export function isAtOrUnder(path: string, base: string): boolean {
  return path === base || path.startsWith(`${base}.`);
}

/** Sets a value deep in an object, creating (or replacing non-object) parents; `undefined` deletes. */
export function setAtPath(target: JsonObject, parts: readonly string[], value: unknown): void {
  let current = target;
  parts.slice(0, -1).forEach((part) => {
    if (!isPlainObject(current[part])) current[part] = {};
    current = current[part] as JsonObject;
  });
  const last = parts[parts.length - 1] as string;
  if (value === undefined) delete current[last];
  else current[last] = value;
}

export function deepClone<T>(value: T): T {
  return value === undefined ? value : (structuredClone(value) as T);
}
