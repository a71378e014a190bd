import { describe, expect, it } from 'vitest';
import { CLEAR_LINE, clearProgressLines, progressLine } from '../../src/cli/progress.js';
import { displayWidth } from '../../src/util/display-width.js';
import { terminalText } from '../../src/util/printable.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { STAGED_MANIFEST } from '../helpers/project.js';

const tempDir = useTempDirs();

/** A command's stderr and environment: a terminal of `columns` (when known), or not a terminal. */
function stream(isTTY: boolean, options: { columns?: number | undefined; env?: Record<string, string> } = {}) {
  const written: string[] = [];
  const columns = 'columns' in options ? options.columns : 80;
  const stderr = { write: (t: string) => void written.push(t), isTTY, columns: isTTY ? columns : undefined };
  return { written, out: { stderr, env: options.env ?? { TERM: 'xterm-256color' } } };
}

describe('progressLine', () => {
  it('overwrites one line on a terminal and clears it at the end', () => {
    const { written, out } = stream(true);
    const line = progressLine(out);
    line.update('Reading live state… 1/2 agents');
    line.update('Reading live state… 2/2 agents'); // within 100 ms: skipped
    line.done();
    expect(written).toEqual([`${CLEAR_LINE}Reading live state… 1/2 agents`, CLEAR_LINE]);
    // voxform's own sequence, which the terminal rule keeps.
    expect(terminalText(written.join(''), true)).toBe('\r\x1b[KReading live state… 1/2 agents\r\x1b[K');
  });

  it('prints nothing when the stream is not a terminal', () => {
    const { written, out } = stream(false);
    const line = progressLine(out);
    line.update('Reading…');
    line.done();
    expect(written).toEqual([]);
  });

  it('prints nothing on a terminal that draws no escape sequences (TERM=dumb)', () => {
    const { written, out } = stream(true, { env: { TERM: 'dumb' } });
    const line = progressLine(out);
    line.update('Reading…');
    line.done();
    expect(written).toEqual([]);
  });

  it('cuts the line to the terminal\'s width, one cell spare, by the cells each character takes', () => {
    const { written, out } = stream(true, { columns: 30 });
    progressLine(out).update('Reading live state… 12/500 agents');
    expect(written).toEqual([`${CLEAR_LINE}Reading live state… 12/500 a…`]);
    expect(displayWidth(written[0]?.slice(CLEAR_LINE.length) ?? '')).toBe(29);

    const wide = stream(true, { columns: 12 });
    progressLine(wide.out).update('受付エージェントを読んでいます');
    expect(wide.written).toEqual([`${CLEAR_LINE}受付エージ…`]);
  });

  it('leaves the line whole when the width is unknown or it fits', () => {
    const unknown = stream(true, { columns: undefined });
    progressLine(unknown.out).update('Reading live state… 12/500 agents');
    const roomy = stream(true, { columns: 34 });
    progressLine(roomy.out).update('Reading live state… 12/500 agents');
    // A pseudo-terminal given no size (a container's, before its first resize) reports 0 columns: no width known, not none to fill.
    const sizeless = stream(true, { columns: 0 });
    progressLine(sizeless.out).update('Reading live state… 12/500 agents');
    expect([...unknown.written, ...roomy.written, ...sizeless.written]).toEqual(Array(3).fill(`${CLEAR_LINE}Reading live state… 12/500 agents`));
  });

  it('clearProgressLines() clears a line its command never cleared (a run stopped by a signal), once', () => {
    const { written, out } = stream(true);
    const line = progressLine(out);
    line.update('Reading live state… 1/500 agents');
    clearProgressLines();
    line.done();
    clearProgressLines();
    expect(written).toEqual([`${CLEAR_LINE}Reading live state… 1/500 agents`, CLEAR_LINE]);
  });

  it('drift counts one agent read as one: "1/1 agent"', async () => {
    const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    const result = await runCliInProcess(['drift', '--local'], { cwd: dir, terminal: 'no-color' });
    expect(result.stderr).toBe('\r\x1b[KReading live state… 1/1 agent\r\x1b[K');
  });
});
