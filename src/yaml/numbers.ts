/**
 * Numbers as YAML writes them and a manifest keeps them: JSON's doubles. A number a field would hold
 * other than written is refused where it stands, never quietly changed. Loads nothing, as ./limits.ts.
 */

/**
 * Why the number `value`, written `written`, is not one a manifest field takes as written, or
 * undefined when it is: infinity and NaN (JSON has neither), a whole number past 2^53 − 1 (rounded:
 * 12345678901234567891 would be 12345678901234567000), a number other than zero too small for a
 * double (it would be 0).
 */
export function numberProblem(written: string, value: number): string | undefined {
  const fault = numberFault(written, value);
  return fault === undefined ? undefined : `${written} ${fault}`;
}

/** What `numberProblem` says of the number after naming it (`is past …`), for a caller that does not echo what was written. */
export function numberFault(written: string, value: number): string | undefined {
  if (!Number.isFinite(value)) return 'is not a number a manifest field takes (JSON has no infinity and no NaN); write a finite number';
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) return 'is past the largest whole number kept exactly (9,007,199,254,740,991) and would be rounded; write a smaller number';
  if (value === 0 && /^[^eE]*[1-9]/.test(written) && !/^0[xXoO]/.test(written)) return 'is too small to be kept as a number: it would be 0; write 0 or a larger number';
  return undefined;
}
