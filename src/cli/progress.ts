import type { Output } from './context.js';

export interface ProgressLine {
  /** Shows `text` in place of the previous update (at most ten times a second). */
  update(text: string): void;
  /** Clears the line. */
  done(): void;
}

const NO_PROGRESS: ProgressLine = { update: () => undefined, done: () => undefined };

/**
 * One self-overwriting status line on a terminal, for long waits (reading 500 agents from a slow
 * service). On anything that is not a terminal it prints nothing: logs and CI output stay clean.
 */
export function progressLine(stream: Output): ProgressLine {
  if (!stream.isTTY) return NO_PROGRESS;
  let last = 0;
  let shown = false;
  return {
    update(text) {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      shown = true;
      stream.write(`\r\x1b[K${text}`);
    },
    done() {
      if (shown) stream.write('\r\x1b[K');
      shown = false;
    },
  };
}
