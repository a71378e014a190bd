/** What every printed, logged or stored secret becomes. */
export const REDACTED = '(sensitive)';

/**
 * The secret values known to this run (`${env:…}` values, headers, keys). Every line the CLI prints
 * passes through `redact`, so a secret that slipped past the schema-based redaction of the plan
 * still never reaches the terminal. Values shorter than 4 characters are not scrubbed from free
 * text (they would mangle ordinary words); structured redaction covers them.
 */
export class SecretRegistry {
  private readonly values = new Set<string>();
  private pattern: RegExp | undefined;

  add(value: string | undefined | null): void {
    if (!value || value.length < 4 || this.values.has(value)) return;
    this.values.add(value);
    this.pattern = undefined;
  }

  get size(): number {
    return this.values.size;
  }

  redact(text: string): string {
    if (this.values.size === 0) return text;
    this.pattern ??= new RegExp(
      [...this.values]
        .sort((a, b) => b.length - a.length)
        .map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('|'),
      'g',
    );
    return text.replace(this.pattern, REDACTED);
  }
}
