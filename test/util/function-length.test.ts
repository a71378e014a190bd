/**
 * No function in src/ is longer than 80 lines (generated *.gen.ts files aside). The sources are
 * laid out consistently (two-space indentation, a block's closing brace at its opening line's
 * indentation), so a function is measured from the line that opens its body to the first later
 * line at the same indentation that starts with `}`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const MAX_FUNCTION_LINES = 80;
const srcDir = new URL('../../src/', import.meta.url).pathname;

const indentOf = (line: string) => line.length - line.trimStart().length;

/** A statement header that opens a function body: `function`, an arrow, or a method or accessor signature. */
function opensFunction(header: string): boolean {
  const code = header.trim();
  if (/\bfunction\b[\s\w*]*(<[^>]*>)?\s*\(/.test(code) || /=>\s*\{$/.test(code)) return true;
  if (/^(if|for|while|switch|catch|else|do|try|return|class|interface|type|enum|namespace|declare|module|export (class|interface|type|enum))\b/.test(code)) return false;
  // A method: `name(…) {`, `async name(…): T {`, `private static get x() {`, `constructor(…) {`, `[Symbol.iterator]() {`.
  return /^((public|private|protected|static|async|override|readonly|get|set)\s+)*(\*\s*)?([\w$#]+|\[[^\]]+\])\s*(<[^>]*>)?\s*\(/.test(code) && /\)\s*(:[^{]+)?\{$/.test(code);
}

interface LongFunction {
  where: string;
  lines: number;
}

/** The functions of one file longer than `max` lines, as `file:line header`. */
export function longFunctions(file: string, text: string, max: number): LongFunction[] {
  const lines = text.split('\n');
  const found: LongFunction[] = [];
  for (let end = 0; end < lines.length; end++) {
    const line = lines[end]!.replace(/\s*\/\/.*$/, '');
    if (!line.trimEnd().endsWith('{')) continue;
    const indent = indentOf(line);
    // A signature written over several lines starts at the earlier line of the same indentation.
    let start = end;
    if (/^\s*\)/.test(line)) while (start > 0 && indentOf(lines[start - 1]!) > indent) start--;
    if (start !== end) start--;
    const header = lines.slice(start, end + 1).map((l) => l.trim()).join(' ');
    if (!opensFunction(header)) continue;
    let close = end + 1;
    while (close < lines.length && !(indentOf(lines[close]!) === indent && lines[close]!.trimStart().startsWith('}'))) close++;
    const length = close - start + 1;
    if (length > max) found.push({ where: `${file}:${start + 1} ${lines[start]!.trim()}`, lines: length });
  }
  return found;
}

describe('function length', () => {
  it(`finds no function over ${MAX_FUNCTION_LINES} lines in src/`, () => {
    const files = readdirSync(srcDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !file.endsWith('.gen.ts'));
    const long = files.flatMap((file) => longFunctions(file, readFileSync(path.join(srcDir, file), 'utf8'), MAX_FUNCTION_LINES));
    expect(long.map((f) => `${f.where} (${f.lines} lines)`)).toEqual([]);
  });

  it('measures functions, methods, arrows and multi-line signatures, and skips other blocks', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `    step${i}();`).join('\n');
    const text = [
      'export async function load(',
      '  a: string,',
      '): Promise<void> {',
      body(4),
      '}',
      'class A {',
      '  private async run(x: number): Promise<void> {',
      body(3),
      '  }',
      '}',
      'const f = (x: number) => {',
      body(5),
      '};',
      'if (ready) {',
      body(9),
      '}',
    ].join('\n');
    expect(longFunctions('t.ts', text, 3).map((f) => `${f.where} ${f.lines}`)).toEqual([
      't.ts:1 export async function load( 8',
      't.ts:10 private async run(x: number): Promise<void> { 5',
      't.ts:16 const f = (x: number) => { 7',
    ]);
  });
});
