/**
 * Collects the problems of one load: every one (one run reports every mistake), each at most once
 * per place (a mistake in defaults merged into many agents), sorted by position, with code frames.
 */
import type { Diagnostic } from './types.js';
import type { DiagnosticCode } from '../error-codes.js';
import { codeFrame } from './code-frame.js';
import { MIN_SEARCHABLE_SECRET, redactNeedles } from '../secrets/redact.js';
import { MAX_DIAGNOSTICS_KEPT } from '../project-files/limits.js';
import { SuggestionBudget } from '../util/did-you-mean.js';
import { formatCount } from '../util/plural.js';
import { positionOf, type SourceText, type Span } from './source.js';
import { maskSecretLines, shownOffset, type MaskedLine } from '../secrets/secret-lines.js';

export { DIAGNOSTIC_CODES, type DiagnosticCode } from '../error-codes.js';

interface Pending {
  severity: Diagnostic['severity'];
  code: DiagnosticCode;
  message: string;
  span: Span;
  standIn?: boolean;
}

/** How a problem was placed, when not simply at its own span. */
export interface Placement {
  /**
   * The span stands in for the problem's own place, which could not be found (a reference written
   * otherwise in the source), and may stand in for several: problems there are told apart by message.
   */
  standIn?: boolean;
}

export class DiagnosticList {
  private readonly pending: Pending[] = [];
  private readonly seen = new Set<string>();
  private errorCount = 0;
  private relocation: { from: SourceText; at: Span; lead: string } | undefined;
  /** The files of the problems kept, and of those only counted: totals count every file with a problem. */
  private readonly keptSources = new Set<SourceText>();
  private readonly omittedSources = new Set<SourceText>();
  private firstOmitted: Span | undefined;
  /** Why checking stopped, when nothing else fails the run (see `stop`): listed first, so it is among those shown. */
  private stopError: Pending | undefined;
  /**
   * Problems found past MAX_DIAGNOSTICS_KEPT: counted, not kept (a hostile manifest can make
   * millions), and the files holding them that hold no kept one; `stopped` once the loader stopped
   * looking for more (see `stop`).
   */
  readonly omitted = { errors: 0, warnings: 0, files: 0, stopped: false };
  /** What the "did you mean" suggestions of this load spend together: a pull request writes both the names and what they are compared with. */
  readonly suggestions = new SuggestionBudget();

  error(code: DiagnosticCode, message: string, span: Span, placement?: Placement): void {
    this.add({ severity: 'error', code, message, span, standIn: placement?.standIn });
  }

  warning(code: DiagnosticCode, message: string, span: Span, placement?: Placement): void {
    this.add({ severity: 'warning', code, message, span, standIn: placement?.standIn });
  }

  get hasErrors(): boolean {
    return this.errorCount > 0;
  }

  /** Whether MAX_DIAGNOSTICS_KEPT problems were kept: further checking would only be counted, so the loader stops. */
  get full(): boolean {
    return this.pending.length >= MAX_DIAGNOSTICS_KEPT;
  }

  /** How many errors so far: lets a step tell whether it added any. */
  get errors(): number {
    return this.errorCount;
  }

  /**
   * Runs `check` with the problems it finds in the text `from` (a bundled template's, which is not
   * the user's to open or fix) reported at `at` instead, each led by `lead`: once per message there,
   * however many places of the template repeat it.
   */
  reportingAt<T>(from: SourceText, at: Span, lead: string, check: () => T): T {
    this.relocation = { from, at, lead };
    try {
      return check();
    } finally {
      this.relocation = undefined;
    }
  }

  /** A list holding what this one holds, to go on from apart: each environment resolved from one project read. */
  copy(): DiagnosticList {
    const copy = new DiagnosticList();
    copy.pending.push(...this.pending);
    for (const key of this.seen) copy.seen.add(key);
    copy.errorCount = this.errorCount;
    for (const source of this.keptSources) copy.keptSources.add(source);
    for (const source of this.omittedSources) copy.omittedSources.add(source);
    copy.firstOmitted = this.firstOmitted;
    copy.stopError = this.stopError;
    Object.assign(copy.omitted, this.omitted);
    return copy;
  }

  private add(found: Pending): void {
    const moved = this.relocation?.from === found.span.source ? this.relocation : undefined;
    const item = moved ? { ...found, message: `${moved.lead}${found.message}`, span: moved.at } : found;
    if (this.pending.length >= MAX_DIAGNOSTICS_KEPT) {
      if (item.severity === 'error') this.errorCount++;
      this.omitted[item.severity === 'error' ? 'errors' : 'warnings']++;
      this.firstOmitted ??= item.span;
      const source = item.span.source;
      if (!this.keptSources.has(source) && !this.omittedSources.has(source)) {
        this.omittedSources.add(source);
        this.omitted.files++;
      }
      return;
    }
    // A place standing in for several (a template's line, a reference's value) holds one problem per message.
    const key = `${item.span.source.path}\0${item.span.start}\0${item.code}${moved || item.standIn ? `\0${item.message}` : ''}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (item.severity === 'error') this.errorCount++;
    this.pending.push(item);
    this.keptSources.add(item.span.source);
  }

  /**
   * The loader stops checking (the list is `full`). Found errors already fail the run; with warnings
   * only, one more error, where checking stopped, says why the manifests are not valid.
   */
  stop(): void {
    this.omitted.stopped = true;
    const at = this.firstOmitted ?? this.pending.at(-1)?.span;
    if (this.errorCount > 0 || at === undefined) return;
    const message = `checking stopped at ${formatCount(MAX_DIAGNOSTICS_KEPT)} problems, the most one run keeps (this is the first past them), so the manifests are not valid until it can finish; fix the problems listed, or check fewer files at a time with -f PATH, and run again`;
    this.errorCount++;
    this.stopError = { severity: 'error', code: 'too_many_problems', message, span: at };
    if (this.omittedSources.delete(at.source)) this.omitted.files--;
    this.keptSources.add(at.source);
  }

  /**
   * The diagnostics in file order, then by position (why checking stopped first), with code frames. A frame never shows a secret
   * the text holds: those lines are shown with it hidden, and so is a message that quotes one.
   */
  toList(): Diagnostic[] {
    const masks = new Map<SourceText, ReadonlyMap<number, MaskedLine>>();
    const maskOf = (source: SourceText): ReadonlyMap<number, MaskedLine> => {
      let mask = masks.get(source);
      if (!mask) masks.set(source, (mask = maskSecretLines(source.text)));
      return mask;
    };
    const sorted = [...this.pending].sort((a, b) => a.span.source.order - b.span.source.order || a.span.start - b.span.start);
    return (this.stopError ? [this.stopError, ...sorted] : sorted)
      .map(({ severity, code, message, span }) => {
        const { line, col } = positionOf(span.source, span.start);
        const mask = maskOf(span.source);
        const shownLines = new Map([...linesNear(mask, line)].map(([number, masked]) => [number, { text: masked.shown, shownOffset: (offset: number) => shownOffset(masked, offset) }]));
        const frame = codeFrame(span.source.text, line, col, { lineStarts: span.source.lines.lineStarts, shownLines, context: FRAME_CONTEXT });
        const hidden = [...linesNear(mask, line)].flatMap(([, masked]) => masked.hidden);
        return { severity, code, message: hideParts(message, hidden), file: span.source.display, line, col, frame };
      });
  }
}

/** Lines shown before and after the one at fault. */
const FRAME_CONTEXT = 2;

function* linesNear(mask: ReadonlyMap<number, MaskedLine>, line: number): Generator<[number, MaskedLine]> {
  for (let number = line - FRAME_CONTEXT; number <= line + FRAME_CONTEXT; number++) {
    const masked = mask.get(number);
    if (masked) yield [number, masked];
  }
}

/** A YAML block scalar's or flow collection's opening alone (`|`, `{`) is no secret, and hiding it would garble a message. */
const NOT_SECRET = /^(?:[|>][-+0-9]*|[[{])$/;

/**
 * `message` with every hidden part it quotes replaced, as written or JSON-quoted (as the YAML parser
 * quotes a token it cannot place), in one pass of the secret registry's search: a part is never
 * searched for inside the marker another one left, and, as there, a part shorter than
 * MIN_SEARCHABLE_SECRET is not searched for (hiding every `e` would garble the sentence; the frame
 * hides it where it stands).
 */
function hideParts(message: string, hidden: readonly string[]): string {
  const searched = hidden.filter((part) => part.length >= MIN_SEARCHABLE_SECRET && !NOT_SECRET.test(part));
  return redactNeedles(message, searched.flatMap((part) => [part, JSON.stringify(part).slice(1, -1)]));
}
