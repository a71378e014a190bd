/**
 * How deeply JSON may nest in what the emulator accepts (request bodies, seeds, its data file).
 *
 * `JSON.parse` itself copes with any depth, but everything after it does not: serializing a stored
 * value (`JSON.stringify`, `structuredClone`) recurses, so one call registered with metadata nested
 * 5,000 levels deep made every later `GET /call-logs` a 500. Refusing such input at the door keeps
 * the account servable whatever a client sent.
 */

/** The deepest nesting accepted: `{}` is depth 1, `{"a":[1]}` depth 2. */
export const MAX_JSON_DEPTH = 64;

/**
 * The character position at which JSON text first opens more than `max` nested objects or arrays,
 * or undefined when it never does. A linear scan that skips string contents (escapes included); it
 * does not check the syntax, which `JSON.parse` does next.
 */
export function jsonTooDeepAt(text: string, max: number = MAX_JSON_DEPTH): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return i;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return undefined;
}

/** Whether a parsed value (from YAML, say) nests objects or arrays more than `max` deep. Iterative. */
export function valueTooDeep(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(current)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
