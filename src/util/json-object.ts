/** The plain-JSON-object test and the service's null-removal rule, shared by the CLI, the client and the emulator. */

export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
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
