import { describe, expect, it } from 'vitest';
import { colorOn, drawsEscapeSequences, terminalColors } from '../../src/util/terminal-colors.js';

const terminal = { isTTY: true };

describe('colorOn', () => {
  it('colours a terminal that draws escape sequences', () => {
    expect(colorOn(terminal, { TERM: 'xterm-256color' }, true)).toBe(true);
    expect(colorOn(terminal, {}, true)).toBe(true);
  });

  it('never colours TERM=dumb, a pipe, --no-color or NO_COLOR', () => {
    expect(colorOn(terminal, { TERM: 'dumb' }, true)).toBe(false);
    expect(colorOn({ isTTY: false }, { TERM: 'xterm' }, true)).toBe(false);
    expect(colorOn(terminal, { TERM: 'xterm' }, false)).toBe(false);
    expect(colorOn(terminal, { TERM: 'xterm', NO_COLOR: '1' }, true)).toBe(false);
  });

  it('TERM=dumb is the one terminal that draws no escape sequences', () => {
    expect([drawsEscapeSequences({ TERM: 'dumb' }), drawsEscapeSequences({ TERM: 'vt100' }), drawsEscapeSequences({})]).toEqual([false, true, true]);
    expect(terminalColors(colorOn(terminal, { TERM: 'dumb' }, true)).red('error')).toBe('error');
  });
});
