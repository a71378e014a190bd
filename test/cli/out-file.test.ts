import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useExampleProjects } from '../helpers/project.js';

const startProject = useExampleProjects();

describe('--out never replaces a file its run reads', () => {
  it('report and test refuse a manifest, a prompt file, a test file or a recording as --out, and leave it as it was', { timeout: 120_000 }, async () => {
    const project = await startProject();
    expect((await project.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const inputs = ['voxform.yaml', 'example/prompts/front-desk.md', 'example/tests/front-desk.test.yaml'];
    const before = await Promise.all(inputs.map((file) => readFile(path.join(project.dir, file), 'utf8')));

    const report = await project.cliInProcess(['report', '--out', 'voxform.yaml']);
    expect(report.stderr).toContain('error[report_write_failed]: Cannot write the report to voxform.yaml: this run read it as a manifest or a file one names; nothing was written.');
    expect(report.code).toBe(1);
    for (const out of inputs) {
      const run = await project.cliInProcess(['test', 'example/tests', '--format', 'junit', '--out', out]);
      expect(run.stderr, out).toContain(`error[report_write_failed]: Cannot write the report to ${out}: this run reads it (a manifest, a file one names, a test file or a recording); no test was run.`);
      expect(run.code, out).toBe(1);
    }
    const recording = await project.cliInProcess(['test', 'example/tests', '--out', 'example/tests/front-desk.recording.json']);
    expect(recording.code).toBe(1);
    expect(await Promise.all(inputs.map((file) => readFile(path.join(project.dir, file), 'utf8')))).toEqual(before);

    // Any other file is written as before.
    const written = await project.cliInProcess(['report', '--out', 'report.md']);
    expect(written.code).toBe(0);
  });
});
