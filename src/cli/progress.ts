import type { CommandContext } from './context.js';
import { pluralNoun } from '../util/plural.js';
import { ownSequence } from '../util/printable.js';
import { shorten } from '../util/shorten.js';
import { drawsEscapeSequences } from '../util/terminal-colors.js';

export interface ProgressLine {
  /** Shows `text` in place of the previous update (at most ten times a second). */
  update(text: string): void;
  /** Clears the line. */
  done(): void;
}

/** Back to the line's start and clear it: voxform's own sequence, so the terminal rule keeps it. */
export const CLEAR_LINE = ownSequence('\r\x1b[K');

const NO_PROGRESS: ProgressLine = { update: () => undefined, done: () => undefined };

/** Lines on screen now, so that an exit the command never sees (a signal) can clear them too. */
const visible = new Set<ProgressLine>();

/**
 * One self-overwriting status line on stderr, for long waits, on a terminal that draws escape
 * sequences; elsewhere (a pipe, a log, `TERM=dumb`) nothing, so logs stay clean.
 */
export function progressLine(ctx: Pick<CommandContext, 'stderr' | 'env'>): ProgressLine {
  const stream = ctx.stderr;
  if (!stream.isTTY || !drawsEscapeSequences(ctx.env)) return NO_PROGRESS;
  let last = 0;
  const line: ProgressLine = {
    update(text) {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      visible.add(line);
      stream.write(`${CLEAR_LINE}${fitted(text, stream.columns)}`);
    },
    done() {
      if (visible.delete(line)) stream.write(CLEAR_LINE);
    },
  };
  return line;
}

/**
 * `text` cut to the terminal's width, one cell spare: a line that wraps is left behind by the next
 * redraw, which clears only the line the cursor is on, and a line filling the last cell wraps at
 * once on some terminals. A terminal of 0 columns is one given no size (a container's pseudo-terminal
 * before its first resize): its width is unknown, and the line would be cut to nothing.
 */
function fitted(text: string, columns: number | undefined): string {
  return columns === undefined || columns === 0 ? text : shorten(text, columns - 1, 'cells');
}

/** The progress of reading the live agents: `Reading live state… 3/8 agents`. */
export function readProgress(read: number, total: number): string {
  return `Reading live state… ${read}/${total} ${pluralNoun(total, 'agent')}`;
}

/** Clears every progress line still on screen (an interrupted run, an error on its way out). */
export function clearProgressLines(): void {
  for (const line of [...visible]) line.done();
}
