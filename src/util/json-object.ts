/** The plain-JSON-object test, the JSON copy and the service's null-removal rule, shared by the CLI, the client and the emulator. */

export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A deep copy of a JSON value (objects, arrays, strings, numbers, booleans, null): own enumerable
 * properties only, so positions kept beside a manifest value (src/manifest/positions.ts) are left
 * behind, as `structuredClone` leaves them. Written out because the differ copies a live subtree
 * for every changed agent, and `structuredClone` (which serializes and reads back) costs several
 * times as much for such small values.
 */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const copy: JsonObject = {};
  for (const key of Object.keys(value)) copy[key] = cloneJson((value as JsonObject)[key]);
  return copy as T;
}

/**
 * PUT /agents/{id}: a top-level `config` key set to null asks the service to remove that key
 * (docs/service-api.md; a null deeper down is no removal). Splits a config into those removals and
 * the values it sets.
 */
export function splitTopLevelNulls(config: object): { rest: JsonObject; removed: string[] } {
  const rest: JsonObject = {};
  const removed: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    if (value === null) removed.push(key);
    else rest[key] = value;
  }
  return { rest, removed };
}
