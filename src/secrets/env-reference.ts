/**
 * The `${env:NAME}` reference as manifests write it (`${env:NAME:-fallback}`; `$${env:…}` is the
 * text itself, escaped): one definition for the loader that fills references in and for the
 * trusted-secrets evidence that reads values back out of what an apply recorded.
 */

/** A reference, or an escaped one (group 1 `$`); group 2 its body, `NAME` or `NAME:-fallback`. */
export const ENV_REFERENCE = /\$(\$?)\{env:([^}]*)\}/g;

/** A reference's body as the loader takes it: group 1 the variable's name, group 2 its fallback when it has one. */
export const ENV_REFERENCE_BODY = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

/** `text` as a manifest value that loads back as itself: `$${env:X}` loads as the text `${env:X}`; `${env:` without a closing `}` is no reference and stays as it is. */
export function escapeEnvReferences(text: string): string {
  return text.replace(ENV_REFERENCE, (reference) => `$${reference}`);
}

/** Whether `text` is a string holding a reference (not only escaped `$${env:…}` text). */
export function hasEnvReference(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  for (const match of text.matchAll(ENV_REFERENCE)) if (!match[1]) return true;
  return false;
}

/** The names of the variables the references of `text` read (`${env:X:-d}` too), in order; escaped `$${env:…}` text names none. */
export function referencedNames(text: string): string[] {
  const names: string[] = [];
  for (const [, escaped, body] of text.matchAll(ENV_REFERENCE)) {
    const name = escaped ? undefined : ENV_REFERENCE_BODY.exec(body ?? '')?.[1];
    if (name !== undefined && !names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * The literal text around the references of a written value, unescaped (`$${env:X}` is the text
 * `${env:X}`): one more part than the value has references (`Code ${env:P}.` → `Code `, `.`).
 */
export function literalParts(text: string): string[] {
  const parts: string[] = [];
  let literal = '';
  let from = 0;
  for (const match of text.matchAll(ENV_REFERENCE)) {
    literal += text.slice(from, match.index);
    from = match.index + match[0].length;
    if (match[1]) {
      literal += match[0].slice(1);
      continue;
    }
    parts.push(literal);
    literal = '';
  }
  parts.push(literal + text.slice(from));
  return parts;
}
