/**
 * How deeply JSON may nest in what voxform accepts from outside (a service's answer or stream event,
 * a model's reply, a webhook's body, a code host's answer, the emulator's requests, an operator's
 * files): reading and serializing a value recurse (the plan's comparison, the hashes, the secret
 * scrub), so one value nested thousands of levels deep would make every later read of it fail.
 * JSON that reaches voxform over the network is parsed by `parseOutsideJson` alone.
 */

/** The deepest nesting accepted: `{}` is depth 1, `{"a":[1]}` depth 2. */
export const MAX_JSON_DEPTH = 64;

/** Where JSON text first opens more than MAX_JSON_DEPTH nested objects or arrays (syntax is JSON.parse's job). */
function jsonTooDeepAt(text: string): number | undefined {
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
      if (++depth > MAX_JSON_DEPTH) return i;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return undefined;
}

/** JSON text refused for its nesting: a SyntaxError, as JSON.parse's refusal of text that is not JSON, so a reader's fallback for such text applies. */
export class JsonTooDeepError extends SyntaxError {
  constructor(readonly at: number) {
    super(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    this.name = 'JsonTooDeepError';
  }
}

/** JSON text from outside, parsed once its nesting is known to be within MAX_JSON_DEPTH; throws a SyntaxError as JSON.parse does (JsonTooDeepError for the nesting). */
export function parseOutsideJson(text: string): unknown {
  const tooDeep = jsonTooDeepAt(text);
  if (tooDeep !== undefined) throw new JsonTooDeepError(tooDeep);
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
