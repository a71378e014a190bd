import { execFileSync } from 'node:child_process';
import { realpath, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectCode, runCli, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

const TEST_FILE = 'agent: desk\ntests:\n  - name: greets\n    turns:\n      - expect: [{ contains: Acme }]\n';

/** A project in its own git work tree (a prompt file, its tests beside the manifest) and a folder in no git work tree to run from. */
async function projectAndElsewhere(): Promise<{ project: string; elsewhere: string }> {
  const project = await tempDir({
    'voxform.yaml': 'version: 1\nagents:\n  desk:\n    id: -OKdqbqetEcM4ak369ym\n    config: { prompt: { file: prompts/desk.md } }\n',
    'prompts/desk.md': 'You answer the phone for Acme.\n',
    'tests/a.test.yaml': TEST_FILE,
  });
  execFileSync('git', ['init', '-q'], { cwd: project });
  const elsewhere = await tempDir({ 'stray.test.yaml': TEST_FILE });
  return { project, elsewhere };
}

describe('voxform test -f MANIFEST, run from outside its project', () => {
  it('reads the tests of the manifest’s project, as plan reads its prompt files: the root is found from the manifest', { timeout: 120_000 }, async () => {
    const { project, elsewhere } = await projectAndElsewhere();
    const manifest = path.join(project, 'voxform.yaml');
    expectCode(await runCli(['plan', '-f', manifest, '--local'], { cwd: elsewhere }), 0);
    for (const given of [[], [path.join(project, 'tests')], [path.join(project, 'tests/a.test.yaml')]]) {
      const result = expectCode(await runCli(['test', '-f', manifest, ...given, '--local'], { cwd: elsewhere }), 0);
      expect(result.stdout).toContain('PASS  greets  [desired 1/1]');
    }
  });

  it('still refuses a test file outside that project, linked out of it or in its .git folder', { timeout: 120_000 }, async () => {
    const { project, elsewhere } = await projectAndElsewhere();
    const manifest = path.join(project, 'voxform.yaml');
    const stray = path.join(elsewhere, 'stray.test.yaml');
    const outside = await runCli(['test', '-f', manifest, stray, '--local'], { cwd: elsewhere });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toBe(
      `error[tests_unreadable]: stray.test.yaml is outside the project, whose root is ${await realpath(project)} (the git work tree holding the manifest).\n` +
        '  hint: Test files are read only inside the project of the manifest (the first -f, when several are named): move it into that project, or run its own project\'s tests apart, naming that project\'s manifest first with -f.\n',
    );
    await symlink(stray, path.join(project, 'tests/leak.test.yaml'));
    const linked = await runCli(['test', '-f', manifest, '--local'], { cwd: elsewhere });
    expect(linked.code).toBe(1);
    expect(linked.stderr).toContain(`error[tests_unreadable]: ${path.relative(elsewhere, path.join(project, 'tests/leak.test.yaml'))} is outside the project, whose root is ${await realpath(project)}`);
    await writeFile(path.join(project, '.git/kept.test.yaml'), TEST_FILE);
    const kept = await runCli(['test', '-f', manifest, path.join(project, '.git/kept.test.yaml'), '--local'], { cwd: elsewhere });
    expect(kept.code).toBe(1);
    expect(kept.stderr).toContain('error[tests_unreadable]: ');
    expect(kept.stderr).toContain("git's own folder");
    expect(kept.stdout).not.toContain('PASS');
  });

  it('takes the manifest’s folder for the project when no git work tree holds it', { timeout: 120_000 }, async () => {
    const { project, elsewhere } = await projectAndElsewhere();
    await rm(path.join(project, '.git'), { recursive: true });
    const manifest = path.join(project, 'voxform.yaml');
    expect(expectCode(await runCli(['test', '-f', manifest, '--local'], { cwd: elsewhere }), 0).stdout).toContain('PASS  greets  [desired 1/1]');
    const outside = await runCli(['test', '-f', manifest, 'stray.test.yaml', '--local'], { cwd: elsewhere });
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain(`error[tests_unreadable]: stray.test.yaml is outside the project, whose root is ${await realpath(project)} (the manifest's folder, which is in no git work tree).\n`);
  });
});
