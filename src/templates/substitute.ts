/**
 * `{{name}}` substitution for templates: in manifest YAML values and in prompt files alike.
 * A whole-value placeholder (`"{{delay}}"`) keeps the variable's type (number, boolean); inside a
 * longer string the value is written as text. `{{ name }}` with spaces is the same placeholder.
 */
export type TemplateVars = Readonly<Record<string, string | number | boolean>>;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

interface UnknownVariable {
  name: string;
  /** Offset of the placeholder in the text. */
  offset: number;
}

/** Names used in a text, in order of first use. */
export function variablesIn(text: string): string[] {
  const names = new Set<string>();
  for (const match of text.matchAll(PLACEHOLDER)) names.add(match[1] as string);
  return [...names];
}

/** Where each name is first used in a text: the offset and the length of its placeholder as written. */
export function firstPlaceholders(text: string): Map<string, { offset: number; length: number }> {
  const first = new Map<string, { offset: number; length: number }>();
  for (const match of text.matchAll(PLACEHOLDER)) {
    const name = match[1] as string;
    if (!first.has(name)) first.set(name, { offset: match.index, length: match[0].length });
  }
  return first;
}

/**
 * Replaces every placeholder; unknown names are left as written and reported with their offsets.
 * `admit` is asked the length the text would have, counted from its pieces before it is built: when
 * it says no, the text is not built and comes back as written, with `refused` set.
 */
export function substituteText(
  text: string,
  vars: TemplateVars,
  admit: (length: number) => boolean = () => true,
): { text: string; unknown: UnknownVariable[]; refused?: true } {
  const unknown: UnknownVariable[] = [];
  const pieces: string[] = [];
  let length = 0;
  let written = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const name = match[1] as string;
    if (!Object.hasOwn(vars, name)) {
      unknown.push({ name, offset: match.index });
      continue;
    }
    const value = String(vars[name]);
    pieces.push(text.slice(written, match.index), value);
    length += match.index - written + value.length;
    written = match.index + match[0].length;
  }
  if (written === 0) return { text, unknown };
  length += text.length - written;
  if (!admit(length)) return { text, unknown, refused: true };
  pieces.push(text.slice(written));
  return { text: pieces.join(''), unknown };
}

/** Like `substituteText`, but a value that is exactly one placeholder becomes the variable's own value. */
export function substituteValue(
  text: string,
  vars: TemplateVars,
  admit?: (length: number) => boolean,
): { value: string | number | boolean; unknown: UnknownVariable[]; refused?: true } {
  const whole = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/.exec(text);
  if (whole && Object.hasOwn(vars, whole[1] as string)) return { value: vars[whole[1] as string] as string | number | boolean, unknown: [] };
  const { text: out, ...rest } = substituteText(text, vars, admit);
  return { value: out, ...rest };
}
