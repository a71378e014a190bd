import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellWord } from '../../src/util/shell-word.js';

/** The words bash reads from `line`, one per line of its output (each printed with its characters as bytes, so a line break in one shows). */
function bashWords(line: string): string[] {
  const out = execFileSync('bash', ['-c', `for word in ${line}; do printf '%s' "$word" | od -An -tx1 | tr -d ' \\n'; echo; done`], { encoding: 'utf8' });
  return out.trimEnd().split('\n').map((hex) => Buffer.from(hex, 'hex').toString('utf8'));
}

describe('shellWord', () => {
  const WORDS = [
    'plain',
    'a/b.yaml',
    'postgres://u@h:5432/db?sslmode=require&x=1',
    'with space',
    "it's",
    'tab\there',
    'line\nbreak',
    'escape\u001b[31m',
    'a ##[group] b',
    'key=value',
    '=value',
    '==',
    '~home',
    '$HOME',
    '`id`',
    '*.yaml',
    'émoji 🎙️',
  ];

  it('writes each word as one word bash reads back exactly', () => {
    expect(bashWords(WORDS.map(shellWord).join(' '))).toEqual(WORDS);
  });

  it('leaves a word of plain characters bare, an `=` after its first character too', () => {
    expect(shellWord('default@local')).toBe('default@local');
    expect(shellWord('key=value')).toBe('key=value');
  });

  it('quotes a word that starts with `=`, which zsh would read as the path of a command', () => {
    expect(shellWord('=value')).toBe("'=value'");
  });
});
