import { describe, expect, it } from 'vitest';
import { colorOn, drawsEscapeSequences, terminalColors } from '../../src/util/terminal-colors.js';
import { runCli, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

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

describe('FORCE_COLOR', () => {
  it('0 or false: no colour on a terminal; 1, 2, 3 or true: colour in a pipe too; any other value leaves it to the terminal', () => {
    for (const value of ['0', 'false', 'FALSE']) expect(colorOn(terminal, { TERM: 'xterm', FORCE_COLOR: value }, true), value).toBe(false);
    for (const value of ['1', '2', '3', 'true']) expect(colorOn({ isTTY: false }, { FORCE_COLOR: value }, true), value).toBe(true);
    expect(colorOn({ isTTY: false }, { FORCE_COLOR: 'yes' }, true)).toBe(false);
    expect(colorOn(terminal, { TERM: 'xterm', FORCE_COLOR: 'yes' }, true)).toBe(true);
  });

  it('NO_COLOR and --no-color still win', () => {
    expect(colorOn({ isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: '1' }, true)).toBe(false);
    expect(colorOn(terminal, { FORCE_COLOR: '1' }, false)).toBe(false);
  });

  it('FORCE_COLOR=1 colours the CLI\'s output in a pipe; with --no-color it does not', async () => {
    const cwd = await tempDir({ 'voxform.yaml': 'version: 1\nagents:\n  desk:\n    id: "-OKdqbqetEcM4ak369ym"\n' });
    const forced = await runCli(['validate'], { cwd, env: { NO_COLOR: '', FORCE_COLOR: '1' } });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('\x1b[32m✓\x1b[39m voxform.yaml is valid');
    const plain = await runCli(['validate', '--no-color'], { cwd, env: { NO_COLOR: '', FORCE_COLOR: '1' } });
    expect(plain.stdout).toMatch(/^✓ voxform\.yaml is valid/);
  });
});
