/**
 * A run stopped while it writes a file puts nothing in place, though the code that writes it goes on
 * once the signal came: the stop said what it left undone, and a saved plan nobody saw printed, or a
 * recording the run said it would not write, would contradict it. The write of each temporary file
 * stalls until the signal has reached the process, then completes (test/helpers/stall-temp-writes.mjs),
 * so the stop always falls between the file being written and it being put in place.
 */
import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { repoRoot, spawnCli } from '../helpers/cli.js';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';

const STALL = path.join(repoRoot, 'test/helpers/stall-temp-writes.mjs');

let project: ExampleProject;
beforeAll(async () => {
  project = await startExampleProject();
});
afterAll(async () => {
  await project.close();
});

/** Runs the CLI with the write of `file`'s temporary file held until a signal; sends `signal` once it is held. */
async function stoppedWhileWriting(args: string[], file: string, signal: 'SIGINT' | 'SIGTERM'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { child, output, exited, stderrShows } = spawnCli(project.dir, { ...project.env, STALL_TEMP_WRITES_UNTIL_SIGNAL: '1', STALL_TEMP_WRITES_OF: file }, args, { preload: STALL });
  // A run that does not end by the signal (a test failing, timed out) is not left holding its write.
  onTestFinished(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  await stderrShows('stalled writing');
  child.kill(signal);
  return { code: await exited, ...output };
}

describe('a file being written when the run stops', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('plan --out (%s): the saved plan there stays as it was, and no temporary file is left', async (signal) => {
    const saved = path.join(project.dir, 'reviewed.plan.json');
    expect((await project.cliInProcess(['plan', '--local', '--out', 'reviewed.plan.json'])).code).toBe(0);
    const reviewed = await readFile(saved, 'utf8');
    // The plan the stopped run makes differs from the one reviewed.
    await appendFile(path.join(project.dir, 'example/prompts/front-desk.md'), `A line added before the ${signal}.\n`);
    const stopped = await stoppedWhileWriting(['plan', '--local', '--out', 'reviewed.plan.json'], 'reviewed.plan.json', signal);
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain('error[interrupted]: voxform stopped at your request.');
    expect(await readFile(saved, 'utf8')).toBe(reviewed);
    expect((await readdir(project.dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('test --mode record, once its conversations ended: no recording is put in place, and the run ends as interrupted', async () => {
    await mkdir(path.join(project.dir, 'stop-tests'), { recursive: true });
    await writeFile(path.join(project.dir, 'stop-tests/greets.test.yaml'), 'agent: front-desk\ntests:\n  - name: greets\n    turns: [{ expect: [{ contains: Acme }] }]\n');
    const stopped = await stoppedWhileWriting(['test', 'stop-tests', '--mode', 'record'], 'greets.recording.json', 'SIGINT');
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain('error[interrupted]');
    expect(stopped.stderr).not.toContain('Recorded ');
    expect(await readdir(path.join(project.dir, 'stop-tests'))).toEqual(['greets.test.yaml']);
  });
});
