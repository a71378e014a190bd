import { describe, expect, it } from 'vitest';
import { CLEAR_LINE, clearProgressLines, progressLine } from '../../src/cli/progress.js';
import { terminalText } from '../../src/util/printable.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { STAGED_MANIFEST } from '../helpers/project.js';

const tempDir = useTempDirs();

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { written, out: { write: (t: string) => void written.push(t), isTTY, columns: isTTY ? 80 : undefined } };
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
