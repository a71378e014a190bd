/** The plain-JSON-object test, the JSON copy and the service's null-removal rule, shared by the CLI, the client and the emulator. */

export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Sets an own data property, also for the key `__proto__`, which plain assignment would take as the
 * prototype (the key dropped, the object's prototype changed). JSON from the service and every parsed
 * manifest may hold such a key: each copy of one sets its keys through this.
 */
export function setOwn(target: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Copies `source`'s own enumerable keys onto `target` with setOwn: Object.assign would take a `__proto__` key as the prototype. */
export function assignOwn(target: JsonObject, source: object): void {
  for (const [key, value] of Object.entries(source)) setOwn(target, key, value);
}

/**
 * A deep copy of a JSON value, own enumerable properties only (positions kept beside a manifest
 * value are left behind). Cheaper than `structuredClone` for the small values the differ copies.
 */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const copy: JsonObject = {};
  for (const key of Object.keys(value)) setOwn(copy, key, cloneJson((value as JsonObject)[key]));
  return copy as T;
}

/** A copy of a JSON value without the object keys set to null, at every depth (a null item of a list stays). */
export function withoutNullFields(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(withoutNullFields);
  const copy: JsonObject = {};
  for (const key of Object.keys(value)) {
    const child = (value as JsonObject)[key];
    if (child !== null) setOwn(copy, key, withoutNullFields(child));
  }
  return copy;
}

/** Splits a config into the top-level keys set to null (PUT /agents/{id} removes them; no deeper null does) and the rest. */
export function splitTopLevelNulls(config: object): { rest: JsonObject; removed: string[] } {
  const rest: JsonObject = {};
  const removed: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    if (value === null) removed.push(key);
    else setOwn(rest, key, value);
  }
  return { rest, removed };
}
