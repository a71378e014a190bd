/**
 * Offsets in a text as 1-based lines and columns, for every place that points into a file (a
 * manifest's span, an operator's file, a template, a kept file).
 */

/**
 * Line starts of a text, for offset → line and column: yaml's LineCounter interface, defined here
 * so that the common path does not load the yaml library.
 */
export class LineCounter {
  lineStarts: number[] = [];

  addNewLine = (offset: number): number => this.lineStarts.push(offset);

  /** 1-based line and column; line 0 when no line was recorded before `offset`. */
  linePos = (offset: number): { line: number; col: number } => {
    let low = 0;
    let high = this.lineStarts.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (offset < (this.lineStarts[middle] as number)) high = middle;
      else low = middle + 1;
    }
    if (low === 0) return { line: 0, col: offset };
    return { line: low, col: offset - (this.lineStarts[low - 1] as number) + 1 };
  };
}

/** Records the line starts of `text` (for texts the YAML parser did not read). */
export function countLines(lines: LineCounter, text: string): void {
  lines.addNewLine(0);
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines.addNewLine(at + 1);
}

/** 1-based line and column of an offset in a text no LineCounter has read yet. */
export function textPosition(text: string, offset: number): { line: number; col: number } {
  const lines = new LineCounter();
  countLines(lines, text);
  return lines.linePos(offset);
}
