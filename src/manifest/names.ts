/** The names a manifest gives its resources, as the schema's `LocalName` and `PhoneNumber` define them. */

/** Letters, digits, `-`, `_` and `.`, starting with a letter or digit (the schema's `LocalName` pattern). */
export const LOCAL_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** The schema's `LocalName` maxLength. */
export const LOCAL_NAME_MAX_LENGTH = 100;
/** E.164: `+`, the country code and the number, digits only (the schema's `PhoneNumber` pattern). */
export const PHONE_NUMBER_PATTERN = /^\+[1-9][0-9]{6,14}$/;

/** Whether `name` is a name the schema's `LocalName` accepts (agents, campaigns, knowledge files, environments). */
export function isLocalName(name: string): boolean {
  return name.length <= LOCAL_NAME_MAX_LENGTH && LOCAL_NAME_PATTERN.test(name);
}

/** Why `name` is not one the schema's `LocalName` accepts, to follow the name in a message; undefined when it is one. */
export function localNameProblem(name: string): string | undefined {
  if (isLocalName(name)) return undefined;
  return name.length > LOCAL_NAME_MAX_LENGTH ? `is longer than ${LOCAL_NAME_MAX_LENGTH} characters` : 'is not a valid name: use letters, digits, "-", "_" and ".", starting with a letter or digit';
}

/** Whether `number` is a phone's key the schema's `PhoneNumber` accepts. */
export function isPhoneNumber(number: string): boolean {
  return PHONE_NUMBER_PATTERN.test(number);
}

/**
 * What to add after "is not an E.164 number" for a phone number written as `written`, the one rule
 * wherever a number is checked: the number itself only when its digits already carry a country
 * code (written after `+` or `00`, only separators wrong); for bare digits, a hint to write the
 * country code, since a national number names no country (guessing one would suggest a number
 * in another country); nothing for anything else.
 */
export function phoneNumberAdvice(written: string): string {
  const international = internationalNumber(written);
  if (international) return `; did you mean "${international}"?`;
  if (/^[0-9]+$/.test(written.replace(PHONE_SEPARATORS, ''))) return '; start it with "+" and the country code, digits only';
  return '';
}

/** What people write between a number's digits: spaces, brackets, dots and dashes. */
const PHONE_SEPARATORS = /[\s().-]/g;

/**
 * `written` as E.164 when its digits carry a country code (after `+` or `00`) and only the separators
 * are wrong (`+1 555 123 0003`, `0015551230003`); undefined for anything else.
 */
export function internationalNumber(written: string): string | undefined {
  const international = /^(?:\+|00)([1-9][0-9]{6,14})$/.exec(written.replace(PHONE_SEPARATORS, ''));
  return international ? `+${international[1]}` : undefined;
}
