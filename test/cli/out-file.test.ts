import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useExampleProjects } from '../helpers/project.js';

const startProject = useExampleProjects();

/** The files of a folder and below, with their content: what must stay as it was. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files[path.relative(dir, path.join(entry.parentPath, entry.name))] = await readFile(path.join(entry.parentPath, entry.name), 'utf8');
  }
  return files;
}

const OWN_FOLDER = ".voxform, voxform's own folder (the state, its lock and history, test runs, the local emulator's account, caches)";

describe('--out never replaces a file its run reads', () => {
  it('report and test refuse a manifest, a prompt file, a test file or a recording as --out, and leave it as it was', { timeout: 120_000 }, async () => {
    const project = await startProject();
    expect((await project.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const inputs = ['voxform.yaml', 'example/prompts/front-desk.md', 'example/tests/front-desk.test.yaml'];
    const before = await Promise.all(inputs.map((file) => readFile(path.join(project.dir, file), 'utf8')));

    const report = await project.cliInProcess(['report', '--out', 'voxform.yaml']);
    expect(report.stderr).toContain('error[report_write_failed]: Cannot write the report to voxform.yaml: this run reads it (a manifest, a file one names, a test file or a recording); nothing was written.');
    expect(report.code).toBe(1);
    for (const out of inputs) {
      const run = await project.cliInProcess(['test', 'example/tests', '--format', 'junit', '--out', out]);
      expect(run.stderr, out).toContain(`error[report_write_failed]: Cannot write the report to ${out}: this run reads it (a manifest, a file one names, a test file or a recording); no test was run.\n  hint: Name another file with --out.\n`);
      expect(run.code, out).toBe(1);
    }
    const recording = await project.cliInProcess(['test', 'example/tests', '--out', 'example/tests/front-desk.recording.json']);
    expect(recording.code).toBe(1);
    expect(await Promise.all(inputs.map((file) => readFile(path.join(project.dir, file), 'utf8')))).toEqual(before);

    // Any other file is written as before.
    const written = await project.cliInProcess(['report', '--out', 'report.md']);
    expect(written.code).toBe(0);
  });

  it('no output replaces a test file, a recording or a manifest that this run does not read: voxform knows them by their name', { timeout: 120_000 }, async () => {
    const project = await startProject();
    const suite = ['example/tests/front-desk.test.yaml', 'example/tests/front-desk.recording.json'];
    await writeFile(path.join(project.dir, suite[1] as string), '{}\n');
    const before = await snapshot(path.join(project.dir, 'example/tests'));
    const why = {
      'example/tests/front-desk.test.yaml': 'it is a test file (*.test.yaml, *.test.yml), which voxform test reads',
      'example/tests/front-desk.recording.json': 'it is a recording (*.recording.json), which voxform test --mode replay reads',
    };
    for (const [out, problem] of Object.entries(why)) {
      const run = await project.cliInProcess(['test', 'example/tests/booking.test.yaml', '--out', out]);
      expect(run.stderr, out).toContain(`error[report_write_failed]: Cannot write the report to ${out}: ${problem}; no test was run.\n  hint: Name another file with --out.\n`);
      expect(run.code, out).toBe(1);
      const report = await project.cliInProcess(['report', '--out', out]);
      expect(report.stderr, out).toContain(`error[report_write_failed]: Cannot write the report to ${out}: ${problem}; nothing was written.`);
      const plan = await project.cliInProcess(['plan', '--out', out]);
      expect(plan.stderr, out).toContain(`error[plan_write_failed]: Cannot save the plan to ${out}: ${problem}; nothing was planned or saved.`);
    }
    // A test file not yet written is one too; test capture alone writes test files, over one with --force.
    const fresh = await project.cliInProcess(['test', 'example/tests/booking.test.yaml', '--out', 'new.test.yml']);
    expect(fresh.stderr).toContain('error[report_write_failed]: Cannot write the report to new.test.yml: it is a test file');
    // So is a manifest this run does not read: another environment's, with -f naming one. A plan may be
    // saved as YAML: it is never written over a file that is not a plan.
    await writeFile(path.join(project.dir, 'staging.yaml'), await readFile(path.join(project.dir, 'voxform.yaml'), 'utf8'));
    const manifest = await readFile(path.join(project.dir, 'voxform.yaml'), 'utf8');
    for (const command of [['report'], ['test', 'example/tests/booking.test.yaml']]) {
      const run = await project.cliInProcess([...command, '-f', 'staging.yaml', '--out', 'voxform.yaml']);
      expect(run.stderr, command[0]).toContain('Cannot write the report to voxform.yaml: it is a YAML file (*.yaml, *.yml), which voxform reads as a manifest, and no report is YAML;');
      expect(run.code, command[0]).toBe(1);
    }
    expect((await project.cliInProcess(['plan', '-f', 'staging.yaml', '--out', 'voxform.yaml'])).stderr).toContain('the file exists and is not a plan voxform saved');
    expect(await readFile(path.join(project.dir, 'voxform.yaml'), 'utf8')).toBe(manifest);
    const capture = await project.cliInProcess(['test', 'capture', 'any-call', '--out', suite[0] as string, '--force']);
    expect(capture.stderr).not.toContain('report_write_failed');
    expect(await snapshot(path.join(project.dir, 'example/tests'))).toEqual(before);
  });
});

describe("no output the user names replaces voxform's own files", () => {
  it('report, test, test capture, plan, export and init refuse the state, the local account, a history record, the folder itself, or a link to them; nothing changes', { timeout: 180_000 }, async () => {
    const project = await startProject();
    expect((await project.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const [record] = await readdir(path.join(project.dir, '.voxform/history'));
    await symlink('.voxform/state.json', path.join(project.dir, 'state-link.json'));
    const before = await snapshot(path.join(project.dir, '.voxform'));

    for (const out of ['.voxform/state.json', '.voxform/local.json', `.voxform/history/${record}`, '.voxform/new.json']) {
      const why = `it is in ${OWN_FOLDER}`;
      const report = await project.cliInProcess(['report', '--out', out]);
      expect(report.stderr, out).toContain(`error[report_write_failed]: Cannot write the report to ${out}: ${why}; nothing was written.`);
      expect(report.code, out).toBe(1);
      const test = await project.cliInProcess(['test', 'example/tests', '--out', out]);
      expect(test.stderr, out).toContain(`error[report_write_failed]: Cannot write the report to ${out}: ${why}; no test was run.`);
      expect(test.code, out).toBe(1);
      const capture = await project.cliInProcess(['test', 'capture', 'any-call', '--out', out, '--force']);
      expect(capture.stderr, out).toContain(`error[report_write_failed]: Cannot write the test file to ${out}: ${why}; no call was captured.`);
      const plan = await project.cliInProcess(['plan', '--out', out]);
      expect(plan.stderr, out).toContain(`error[plan_write_failed]: Cannot save the plan to ${out}: ${why}; nothing was planned or saved.`);
      expect(plan.code, out).toBe(1);
    }
    const link = await project.cliInProcess(['report', '--out', 'state-link.json']);
    expect(link.stderr).toContain(`error[report_write_failed]: Cannot write the report to state-link.json: it is a symbolic link into ${OWN_FOLDER}; nothing was written.`);
    const exported = await project.cliInProcess(['export', '--out', '.voxform/history', '--force']);
    expect(exported.stderr).toContain(`error[export_write_failed]: voxform export cannot write into .voxform/history: it is in ${OWN_FOLDER}; nothing was written.`);
    const init = await project.cliInProcess(['init', '--template', 'receptionist', '.voxform', '--force']);
    expect(init.stderr).toContain(`error[init_write_failed]: voxform init cannot write into .voxform: it is in ${OWN_FOLDER}; nothing was written.`);
    expect(await snapshot(path.join(project.dir, '.voxform'))).toEqual(before);
    expect((await project.cliInProcess(['plan'])).code).toBe(0);
  });

  it('a state kept elsewhere (--state, VOXFORM_STATE): its file, lock and history are refused too', { timeout: 120_000 }, async () => {
    const project = await startProject();
    await mkdir(path.join(project.dir, 'shared'));
    expect((await project.cliInProcess(['apply', '--auto-approve', '--state', 'shared/state.json'])).code).toBe(0);
    const before = await snapshot(path.join(project.dir, 'shared'));
    const why = 'it is the state file, or its lock or history, which voxform keeps';
    for (const out of ['shared/state.json', 'shared/history/new.json', 'shared/state.json.lock', 'shared/state.json.forced-open.json']) {
      const report = await project.cliInProcess(['report', '--state', 'shared/state.json', '--out', out]);
      expect(report.stderr, out).toContain(`error[report_write_failed]: Cannot write the report to ${out}: ${why}; nothing was written.`);
      const plan = await project.cliInProcess(['plan', '--out', out], { VOXFORM_STATE: 'shared/state.json' });
      expect(plan.stderr, out).toContain(`error[plan_write_failed]: Cannot save the plan to ${out}: ${why}; nothing was planned or saved.`);
    }
    expect(await snapshot(path.join(project.dir, 'shared'))).toEqual(before);
  });
});
