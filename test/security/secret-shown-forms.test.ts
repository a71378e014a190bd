/**
 * A renderer changes text before the last scrub reads it (docs/security.md §5): a line diff shows a
 * value of several lines a line at a time, and a diff line or a summary shows an invisible or C1
 * character as `?`. A secret the live agent holds is hidden in each of these, in every format of
 * `plan` and `drift`, with the built CLI.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCli, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

function manifest(prompt: string, firstMessage: string): string {
  return ['version: 1', 'agents:', '  front-desk:', '    id: -OKdqbqetEcM4ak369ym', '    config:', `      prompt: "${prompt}"`, `      first_message: "${firstMessage}"`, ''].join('\n');
}

/** A project whose live agent holds HOOK_TOKEN in a prompt of three lines and a one-line greeting, which the pull request rewrites. */
async function pullRequestAfterApply(token: string): Promise<string> {
  const project = await tempDir();
  execFileSync('git', ['init', '-q'], { cwd: project, stdio: 'pipe' });
  await writeFile(path.join(project, 'voxform.yaml'), manifest('Hello\\nyour code ${env:HOOK_TOKEN} bye\\nthird', 'Hello ${env:HOOK_TOKEN} bye'));
  const applied = await runCli(['apply', '--local', '--auto-approve'], { cwd: project, env: { VOXFORM_ENV_ALLOW: 'HOOK_TOKEN', HOOK_TOKEN: token } });
  expect(applied.code, applied.stderr).toBe(0);
  await writeFile(path.join(project, 'voxform.yaml'), manifest('Hello\\nnew\\nthird', 'Hello there'));
  return project;
}

/** What `plan` and `drift` print in text and Markdown, each run named; `HOOK_TOKEN` as given (unset: the ledger reads it off the live agent). */
async function printed(project: string, token: string | undefined): Promise<Array<[string, string]>> {
  const runs: Array<[string, string]> = [];
  for (const command of ['plan', 'drift']) {
    for (const format of ['text', 'markdown']) {
      const result = await runCli([command, '--local', '--format', format], { cwd: project, env: { VOXFORM_ENV_ALLOW: 'HOOK_TOKEN', HOOK_TOKEN: token } });
      // drift exits 2: the live agents differ from the manifests.
      expect(result.code, `${command} ${format}: ${result.stderr}`).toBe(command === 'drift' ? 2 : 0);
      runs.push([`${command} --format ${format}`, result.stdout + result.stderr]);
    }
  }
  return runs;
}

it.each([
  ['set', true],
  ['unset (read off the live value by the ledger)', false],
])('a secret holding a line break, shown a line at a time by a line diff, prints neither of its lines: HOOK_TOKEN %s', async (_name, set) => {
  const token = 'firsthalf-secret-AAAA\nsecondhalf-secret-BBBB';
  const project = await pullRequestAfterApply(token);
  for (const [run, output] of await printed(project, set ? token : undefined)) {
    expect(output, run).not.toContain('firsthalf');
    expect(output, run).not.toContain('secondhalf');
    expect(output, run).toContain('(sensitive)');
  }
}, 120_000);

it('a secret holding an invisible and a C1 character, each shown as `?`, is hidden in a diff line and a summary', async () => {
  const token = 'planted-secret\u200dvalue\u0085-123';
  const project = await pullRequestAfterApply(token);
  for (const [run, output] of await printed(project, token)) {
    expect(output, run).not.toContain('planted-secret');
    expect(output, run).not.toContain('value-123');
    expect(output, run).toContain('(sensitive)');
  }
}, 120_000);
