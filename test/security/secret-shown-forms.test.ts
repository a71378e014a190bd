/**
 * A renderer changes text before the last scrub reads it (docs/security.md §5): a line diff shows a
 * value of several lines a line at a time, and a diff line or a summary shows an invisible or C1
 * character as `?`. A secret the live agent holds is hidden in each of these, in every format of
 * `plan` and `drift`. Each of those runs, for each kind of secret, is the built CLI's somewhere in
 * this file; the apply that sets the scene, and a run the file shows with the built CLI already for
 * the same kind of secret, run in this process (the same parser, commands and redaction).
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCli, runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

function manifest(prompt: string, firstMessage: string): string {
  return ['version: 1', 'agents:', '  front-desk:', '    id: -OKdqbqetEcM4ak369ym', '    config:', `      prompt: "${prompt}"`, `      first_message: "${firstMessage}"`, ''].join('\n');
}

/** A project whose live agent holds HOOK_TOKEN in a prompt of three lines and a one-line greeting, which the pull request rewrites. */
async function pullRequestAfterApply(token: string): Promise<string> {
  const project = await tempDir();
  execFileSync('git', ['init', '-q'], { cwd: project, stdio: 'pipe' });
  await writeFile(path.join(project, 'voxform.yaml'), manifest('Hello\\nyour code ${env:HOOK_TOKEN} bye\\nthird', 'Hello ${env:HOOK_TOKEN} bye'));
  const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env: { VOXFORM_ENV_ALLOW: 'HOOK_TOKEN', HOOK_TOKEN: token } });
  expect(applied.code, applied.stderr).toBe(0);
  await writeFile(path.join(project, 'voxform.yaml'), manifest('Hello\\nnew\\nthird', 'Hello there'));
  return project;
}

/** Each run `printed` makes, by its name. */
const EVERY_RUN = ['plan --format text', 'plan --format markdown', 'drift --format text', 'drift --format markdown'];

/**
 * What `plan` and `drift` print in text and Markdown, each run named; `HOOK_TOKEN` as given (unset: the
 * ledger reads it off the live agent). The runs `builtCli` names are the built CLI's, the others this process's.
 */
async function printed(project: string, token: string | undefined, builtCli: readonly string[]): Promise<Array<[string, string]>> {
  const runs: Array<[string, string]> = [];
  for (const command of ['plan', 'drift']) {
    for (const format of ['text', 'markdown']) {
      const run = `${command} --format ${format}`;
      const cli = builtCli.includes(run) ? runCli : runCliInProcess;
      const result = await cli([command, '--local', '--format', format], { cwd: project, env: { VOXFORM_ENV_ALLOW: 'HOOK_TOKEN', HOOK_TOKEN: token } });
      // drift exits 2: the live agents differ from the manifests.
      expect(result.code, `${run}: ${result.stderr}`).toBe(command === 'drift' ? 2 : 0);
      runs.push([run, result.stdout + result.stderr]);
    }
  }
  return runs;
}

// Between the two, each command in each format runs as the built CLI once for a secret of two lines.
it.each([
  ['set', true, ['plan --format text', 'drift --format markdown']],
  ['unset (read off the live value by the ledger)', false, ['plan --format markdown', 'drift --format text']],
])('a secret holding a line break, shown a line at a time by a line diff, prints neither of its lines: HOOK_TOKEN %s', async (_name, set, builtCli) => {
  const token = 'firsthalf-secret-AAAA\nsecondhalf-secret-BBBB';
  const project = await pullRequestAfterApply(token);
  for (const [run, output] of await printed(project, set ? token : undefined, builtCli)) {
    expect(output, run).not.toContain('firsthalf');
    expect(output, run).not.toContain('secondhalf');
    expect(output, run).toContain('(sensitive)');
  }
}, 120_000);

it('a secret holding an invisible and a C1 character, each shown as `?`, is hidden in a diff line and a summary', async () => {
  const token = 'planted-secret\u200dvalue\u0085-123';
  const project = await pullRequestAfterApply(token);
  // No other test shows this kind of secret hidden by a process: every run is the built CLI's.
  for (const [run, output] of await printed(project, token, EVERY_RUN)) {
    expect(output, run).not.toContain('planted-secret');
    expect(output, run).not.toContain('value-123');
    expect(output, run).toContain('(sensitive)');
  }
}, 120_000);
