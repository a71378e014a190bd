/**
 * `{{name}}` substitution for templates: in manifest YAML values and in prompt files alike.
 * A whole-value placeholder (`"{{delay}}"`) keeps the variable's type (number, boolean); inside a
 * longer string the value is written as text. `{{ name }}` with spaces is the same placeholder.
 */
export type TemplateVars = Readonly<Record<string, string | number | boolean>>;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export interface UnknownVariable {
  name: string;
  /** Offset of the placeholder in the text. */
  offset: number;
}

/** Names used in a text, in order of first use. */
export function variablesIn(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) if (!names.includes(match[1] as string)) names.push(match[1] as string);
  return names;
}

/** Replaces every placeholder; unknown names are left as written and reported with their offsets. */
export function substituteText(text: string, vars: TemplateVars): { text: string; unknown: UnknownVariable[] } {
  const unknown: UnknownVariable[] = [];
  const out = text.replace(PLACEHOLDER, (whole, name: string, offset: number) => {
    if (!Object.hasOwn(vars, name)) {
      unknown.push({ name, offset });
      return whole;
    }
    return String(vars[name]);
  });
  return { text: out, unknown };
}

/** Like `substituteText`, but a value that is exactly one placeholder becomes the variable's own value. */
export function substituteValue(text: string, vars: TemplateVars): { value: string | number | boolean; unknown: UnknownVariable[] } {
  const whole = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/.exec(text);
  if (whole && Object.hasOwn(vars, whole[1] as string)) return { value: vars[whole[1] as string] as string | number | boolean, unknown: [] };
  const { text: out, unknown } = substituteText(text, vars);
  return { value: out, unknown };
}
