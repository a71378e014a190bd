/**
 * Every command that writes an output file the user names with `--out` (plan, report, test) says the
 * same plain thing when that file's folder does not exist: the user's path, why, what was not done,
 * and a hint; never the system's message or the temporary file voxform writes first.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const MANIFEST = ['version: 1', 'agents:', '  desk:', '    id: -OKdqbqetEcM4ak369ym', '    name: Desk', '    config:', '      prompt: You answer the phone.', ''].join('\n');
const TESTS = 'agent: desk\ntests:\n  - name: greeting\n    turns:\n      - expect: [{ equals: Hello }]\n';

describe('--out into a missing folder', () => {
  it.each([
    ['plan', ['plan', '--local', '--out', 'r dir/r.json'], 'plan_write_failed', 'Cannot save the plan to', 'nothing was saved'],
    ['report', ['report', '--local', '--format', 'html', '--out', 'r dir/r.json'], 'report_write_failed', 'Cannot write the report to', 'nothing was written'],
    ['test', ['test', '--local', '--out', 'r dir/r.json'], 'report_write_failed', 'Cannot write the report to', 'no test was run'],
  ])('%s names the file and says its folder does not exist', async (_name, args, code, lead, outcome) => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST, 'tests/desk.test.yaml': TESTS });
    const result = await runCliInProcess(args, { cwd: dir });
    expect(result.code, result.stderr).toBe(1);
    const [first, hint, ...rest] = result.stderr.split('\n');
    expect(first).toBe(`error[${code}]: ${lead} ${path.join(dir, 'r dir/r.json')}: its folder does not exist; ${outcome}.`);
    expect(hint).toMatch(/^ {2}hint: \S/);
    expect(rest).toEqual(['']);
    expect(result.stderr).not.toContain('.tmp');
    expect(await readdir(dir)).not.toContain('r dir');
  });
});

describe('--out naming a named pipe (a device alike)', () => {
  it.each([
    ['plan', ['plan', '--local', '--out', 'pipe'], 'plan_write_failed'],
    ['report', ['report', '--local', '--out', 'pipe'], 'report_write_failed'],
    ['test', ['test', '--local', '--out', 'pipe'], 'report_write_failed'],
  ])('%s refuses it, exit 1, and leaves it a pipe', async (_name, args, code) => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST, 'tests/desk.test.yaml': TESTS });
    execFileSync('mkfifo', [path.join(dir, 'pipe')]);
    const result = await runCliInProcess(args, { cwd: dir });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`error[${code}]: `);
    expect(lstatSync(path.join(dir, 'pipe')).isFIFO()).toBe(true);
  });
});
