/**
 * docs/security.md §8: what `init` and `export` write into files quotes text nobody reviewed there (a
 * template's description and comments, a live agent's prompt and keys); no control or invisible
 * character of it is written raw, in a value, a comment or a prompt file. `init` and `export` run as
 * the built CLI, asserting on the bytes written; the apply that sets the live agent up and the plan
 * that reads the export back run in this process.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { runCli, runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

/** A control or invisible character a file would hold raw (the tab and the line feed aside). */
const RAW_HIDDEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\p{Cf}\u2028\u2029]/u;

/** An OSC 52 clipboard write, a right-to-left override and a window-title sequence, as YAML double-quoted escapes. */
const CLIPBOARD = '\\u001b]52;c;ZXZpbA==\\u0007';
const TEMPLATE = [
  `description: "desc ${CLIPBOARD} \\u202e end"`,
  'variables:',
  '  d:',
  '    description: A word',
  '    required: true',
  'agent:',
  '  name: "Agent {{d}}"',
  '  config:',
  '    prompt: { file: prompt.md }',
  // A comment carries over into voxform.yaml; YAML has no escapes in one, so the template holds it raw.
  '    # note \u001b]0;title\u0007 \u202e hidden',
  '    first_message: Hello',
  '',
].join('\n');

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

describe('files init and export write hold no raw control or invisible character', () => {
  test('init --template ./folder: the description and comments of the template are written escaped', async () => {
    const dir = await tempDir({ 'tpl/template.yaml': TEMPLATE, 'tpl/prompt.md': 'Hello {{d}}\n' });
    const result = await runCli(['init', '--template', './tpl', '--var', 'agent_id=-OKspareAgent0000002', '--var', 'd=x', 'out'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const manifest = await readFile(path.join(dir, 'out/voxform.yaml'), 'utf8');
    expect(manifest).not.toMatch(RAW_HIDDEN);
    expect(manifest.split('\n')[2]).toBe(`# desc ${CLIPBOARD} \\u202e end`);
    expect(manifest).toContain('# note \\u001b]0;title\\u0007 \\u202e hidden\n');
    for (const file of await filesUnder(path.join(dir, 'out'))) expect(await readFile(file, 'utf8'), file).not.toMatch(RAW_HIDDEN);
  });

  test('export: a live prompt holding controls stays inline, escaped, and loads back exactly', async () => {
    const prompt = 'P1 \u001b]0;t\u0007 and \u202e';
    const dir = await tempDir({
      'voxform.yaml': ['version: 1', 'agents:', '  a:', '    id: -OKspareAgent0000001', '    name: A', '    config:', '      prompt: "P1 \\e]0;t\\a and \\u202e"', ''].join('\n'),
    });
    const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir });
    expect(applied.code).toBe(0);
    const exported = await runCli(['export', '--agent', '-OKspareAgent0000001', '--local', '--out', 'exp'], { cwd: dir });
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    const files = await filesUnder(path.join(dir, 'exp'));
    expect(files.map((file) => path.relative(dir, file))).not.toContain(path.join('exp', 'prompts', 'a.md'));
    for (const file of files) expect(await readFile(file, 'utf8'), file).not.toMatch(RAW_HIDDEN);
    const manifest = await readFile(path.join(dir, 'exp/voxform.yaml'), 'utf8');
    expect(manifest).toContain('prompt: "P1 \\e]0;t\\a and \\u202e"');
    const read = parse(manifest) as { agents: { a: { config: { prompt: unknown } } } };
    expect(read.agents.a.config.prompt).toBe(prompt);
    const plan = await runCliInProcess(['plan', '--local', '-f', 'exp/voxform.yaml', '--detailed-exitcode'], { cwd: dir });
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
  });

  test("export: the header names a secret's place, a key of the service's, escaped", async () => {
    const manifest = ['version: 1', 'agents:', '  a:', '    id: -OKspareAgent0000001', '    name: A', '    config:', '      session_data_webhook:'];
    manifest.push('        url: https://hooks.example.com/end', '        headers: { "x-\\u202e-token": "${env:HOOK_TOKEN}" }', '');
    const dir = await tempDir({ 'voxform.yaml': manifest.join('\n') });
    const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir, env: { HOOK_TOKEN: 'live-hook-token-1' } });
    expect(applied.code).toBe(0);
    const exported = await runCli(['export', '--agent', '-OKspareAgent0000001', '--local', '--out', 'exp'], { cwd: dir });
    expect(exported.code).toBe(0);
    const written = await readFile(path.join(dir, 'exp/voxform.yaml'), 'utf8');
    expect(written).not.toMatch(RAW_HIDDEN);
    expect(written).toContain('#   A_SESSION_DATA_WEBHOOK_X_TOKEN  (agents.a.config.session_data_webhook.headers["x-\\u202e-token"])\n');
  });
});
