/**
 * A prompt of 20,000 lines rewritten whole, on `--local` (the pull request holds both sides: the
 * prompt file and the committed local service). Its line diff would take time growing with the
 * lines times the lines changed, and held plan for over a minute; within the line diff's budget
 * (src/plan/field-lines.ts) each format shows the field replaced whole instead, with both sizes, and
 * the JSON plan still holds both texts whole. The built CLI, as a user runs it.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runCliInProcess, useTempDirs, type CliResult } from '../helpers/cli.js';

const tempDir = useTempDirs();

const LINES = 20_000;
// Without a final line break, which the load would drop: the files hold the prompts exactly.
const prompt = (prefix: string) => Array.from({ length: LINES }, (_, index) => `${prefix}${index}`).join('\n');
const BEFORE = prompt('a');
const AFTER = prompt('b');
const MANIFEST = 'version: 1\nagents:\n  a1:\n    id: -OKdqbqetEcM4ak369ym\n    name: A\n    config:\n      prompt: { file: prompts/a.md }\n';
const REPLACED = `config.prompt: (replaced whole: the texts differ too much to show line by line, 20,000 lines, ${BEFORE.length.toLocaleString('en-US')} characters → 20,000 lines, ${AFTER.length.toLocaleString('en-US')} characters; --format json holds both, to compare with a diff tool)`;

function succeeded(result: CliResult, code = 0): string {
  expect(result.code, result.stderr).toBe(code);
  return result.stdout;
}

describe('a long prompt rewritten whole', () => {
  it('is shown replaced whole by plan in every format, plan show and drift', async () => {
    const cwd = await tempDir({ 'v.yaml': MANIFEST, 'prompts/a.md': BEFORE });
    const cli = (args: string[]) => runCli([...args, '--local', '-f', 'v.yaml'], { cwd });
    // The service holding the prompt before: setup, in the test's process.
    const inProcess = (args: string[]) => runCliInProcess([...args, '--local', '-f', 'v.yaml'], { cwd });
    succeeded(await inProcess(['apply', '--auto-approve']));
    await writeFile(path.join(cwd, 'prompts/a.md'), AFTER);

    const text = succeeded(await cli(['plan', '--out', 'plan.json']));
    expect(text).toContain(`      ~ ${REPLACED}\n`);
    expect(text).not.toContain('@@');
    expect(succeeded(await runCli(['plan', 'show', 'plan.json'], { cwd }))).toContain(`      ~ ${REPLACED}\n`);

    const markdown = succeeded(await inProcess(['plan', '--format', 'markdown']));
    expect(markdown).toContain(`\n! ${REPLACED}\n`);
    expect(markdown).not.toContain('@@');

    const json = JSON.parse(succeeded(await cli(['plan', '--format', 'json']))) as { resource_changes: Array<{ field_changes: Array<{ path: string; before: unknown; after: unknown }> }> };
    expect(json.resource_changes[0]?.field_changes).toEqual([expect.objectContaining({ path: 'config.prompt', before: BEFORE, after: AFTER })]);

    expect(succeeded(await cli(['drift']), 2)).toContain(`      ~ ${REPLACED}\n`);
  });
});
