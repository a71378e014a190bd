import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, COMMAND_ERROR_CODES, DIAGNOSTIC_CODES, PLAN_PROBLEM_CODES } from '../../src/error-codes.js';
import { VoxformError } from '../../src/errors.js';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** The cells of each row of the three-column table after `<!-- marker -->`, the code first (unquoted). */
function tableRows(text: string, marker: string): string[][] {
  const lines = text.split('\n');
  const at = lines.findIndex((line) => line.trim() === `<!-- ${marker} -->`);
  if (at < 0) throw new Error(`no <!-- ${marker} --> table`);
  const rows: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (!line.startsWith('|')) break;
    rows.push(line);
  }
  return rows.slice(2).map((row) => {
    const cells = row.split('|').slice(1, -1).map((cell) => cell.trim());
    const code = /^`([a-z0-9_]+)`$/.exec(cells[0] ?? '')?.[1];
    if (!code || cells.length !== 3 || cells.some((cell) => cell === '')) throw new Error(`a row of the ${marker} table is not | \`code\` | … | … |: ${row}`);
    return [code, ...cells.slice(1)];
  });
}

/** The codes in the first column of the table after `<!-- marker -->`. */
function codesInTable(text: string, marker: string): string[] {
  return tableRows(text, marker).map(([code]) => code as string);
}

const srcDir = new URL('../../src/', import.meta.url).pathname;

/** The text of every source file except the list of codes itself. */
function sourceTexts(): string {
  const files = readdirSync(srcDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && file !== 'error-codes.ts');
  return files.map((file) => readFileSync(path.join(srcDir, file), 'utf8')).join('\n');
}

/** Every code of errors voxform throws: a command's, the client's, a plan problem's. */
const THROWN_CODES: readonly string[] = [...COMMAND_ERROR_CODES, ...API_ERROR_CODES, ...PLAN_PROBLEM_CODES];

describe('docs/errors.md', () => {
  it('has one row for each code an error can carry, and no row for a code that does not exist', () => {
    const documented = codesInTable(doc, 'error-codes');
    expect(new Set(documented).size, 'a code is listed twice').toBe(documented.length);
    expect([...documented].sort()).toEqual([...new Set(THROWN_CODES)].sort());
  });

  it('lists no command or plan-problem code that no source file uses', () => {
    const sources = sourceTexts();
    const unused = [...COMMAND_ERROR_CODES, ...PLAN_PROBLEM_CODES].filter((code) => !sources.includes(`'${code}'`));
    expect(unused, 'codes no source file uses').toEqual([]);
  });

  it('explains every code a manifest diagnostic can carry, and no other, with its severity', () => {
    // A diagnostic's code is typed DiagnosticCode, so DIAGNOSTIC_CODES is every code text or JSON can show.
    const documented = codesInTable(doc, 'diagnostic-codes');
    expect(new Set(documented).size, 'a code is listed twice').toBe(documented.length);
    expect([...documented].sort()).toEqual([...DIAGNOSTIC_CODES].sort());
    const severities = new Set(tableRows(doc, 'diagnostic-codes').map((cells) => cells[1]));
    expect([...severities].sort()).toEqual(['error', 'warning']);
  });

  it('names every severity a source file reports a diagnostic code with, in the code\'s row', () => {
    const sources = sourceTexts();
    const unsaid = tableRows(doc, 'diagnostic-codes').flatMap(([code, ...cells]) =>
      ['error', 'warning']
        .filter((severity) => new RegExp(`\\.${severity}\\(\\s*'${code}'`).test(sources) && !cells.join(' ').includes(severity))
        .map((severity) => `${code} (${severity})`),
    );
    expect(unsaid).toEqual([]);
  });

  it('says when `ci run` checks the runner\'s variables as docs/ci.md does: only for a review to report on or an apply\'s commit', () => {
    // src/cli/commands/ci.ts reads them before the command only then: a job with no review (a push, a
    // schedule) runs the command and reports nowhere, whatever variables are missing.
    const row = tableRows(doc, 'error-codes').find(([code]) => code === 'ci_environment_invalid')?.join(' ') ?? '';
    expect(row).toContain('when there is a review to report on');
    expect(row).toContain("an apply's commit");
    expect(row).not.toMatch(/misses a variable the CI runner sets \(/);
  });

  it('writes every code in snake_case, once per list', () => {
    for (const list of [COMMAND_ERROR_CODES, API_ERROR_CODES, PLAN_PROBLEM_CODES, DIAGNOSTIC_CODES]) {
      expect(new Set<string>(list).size).toBe(list.length);
      for (const code of list) expect(code).toMatch(/^[a-z]+(_[a-z0-9]+)*$/);
    }
  });

  it('accepts only codes of the union (a misspelled code fails `npm run typecheck`)', () => {
    // @ts-expect-error — not a code of src/error-codes.ts
    const misspelled = new VoxformError('manifest_invalidd', 'x', { hint: undefined });
    expect(misspelled.code).toBe('manifest_invalidd');
  });
});
