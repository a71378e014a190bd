/**
 * What filling in `{{variables}}` and `${env:…}` may build: one text at most MAX_FILLED_TEXT_CHARS
 * long, and all of one load's together at most MAX_FILLED_TEXT_CHARS_TOTAL. A text is charged with
 * the length its pieces add up to, before it is built: past the cap it never exists. The message never
 * says the length: with `${env:…}` in the text it would tell a value's length to whoever wrote the text.
 */
import { MAX_FILLED_TEXT_CHARS, MAX_FILLED_TEXT_CHARS_TOTAL } from '../project-files/limits.js';
import type { DiagnosticList } from './diagnostics.js';
import type { Span } from './source.js';

const FIX = 'use shorter values or fewer references to them';

export class FilledTextBudget {
  private spent = 0;

  /** `diagnostics`: where `admit` reports a refusal; without them (init has no manifest to point into), use `charge`. */
  constructor(private readonly diagnostics?: DiagnosticList) {}

  /**
   * Charges a text of `length` characters when it may be built; else charges nothing and returns
   * why not (`what` says what fills it in), for the caller to report.
   */
  charge(length: number, what: string): string | undefined {
    let refusal: string | undefined;
    if (length > MAX_FILLED_TEXT_CHARS) {
      refusal = `with ${what} filled in, this text would be longer than ${characters(MAX_FILLED_TEXT_CHARS)}, the limit for one text (no longer one fits in an agent's update); ${FIX}`;
    } else if (length > MAX_FILLED_TEXT_CHARS_TOTAL - this.spent) {
      refusal = `with ${what} filled in, this text would take the texts filled in for these manifests past ${characters(MAX_FILLED_TEXT_CHARS_TOTAL)} together; that is the limit; ${FIX}`;
    }
    if (refusal === undefined) this.spent += length;
    return refusal;
  }

  /**
   * Whether a text of `length` characters may be built: charged when it may, else reported at
   * `span` (`what` says what fills it in) and nothing charged.
   */
  admit(length: number, span: Span | undefined, what: string): boolean {
    const refusal = this.charge(length, what);
    if (refusal === undefined) return true;
    if (span) this.diagnostics?.error('text_too_long', refusal, span);
    return false;
  }
}

function characters(count: number): string {
  return `${count.toLocaleString('en-US')} characters`;
}
