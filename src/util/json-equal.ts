/**
 * Equality of parsed JSON values (objects, arrays, strings, numbers, booleans, null), key order
 * ignored. Cheaper than serializing both and comparing the text, and it allocates nothing.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  return objectsEqualExcept(a as Record<string, unknown>, b as Record<string, unknown>, undefined);
}

/** Whether two JSON objects have the same keys and equal values, leaving out the key `except`. */
export function objectsEqualExcept(a: Record<string, unknown>, b: Record<string, unknown>, except: string | undefined): boolean {
  const keys = Object.keys(a);
  let count = 0;
  for (const key of keys) {
    if (key === except) continue;
    count++;
    if (!Object.hasOwn(b, key) || !jsonEqual(a[key], b[key])) return false;
  }
  for (const key of Object.keys(b)) if (key !== except) count--;
  return count === 0;
}
