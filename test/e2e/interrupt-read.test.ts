/**
 * A command stopped by Ctrl-C while it reads the service says one thing: that it was interrupted,
 * as every error is said (`error[interrupted]` and its hint; with --format json, one envelope on
 * stdout and nothing on stderr). The request the stop cuts short fails too, but that failure is the
 * stop itself, not a second error to report. The emulator holds every GET (fault latency); the test
 * signals once one has arrived, so the stop always falls while a read is on the wire. Each command
 * gets an emulator of its own: a read an earlier, stopped command left in the recording proxy can
 * reach a shared emulator after that command has exited, and would be taken for this one's.
 */
import { describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { useExampleProjects, type ExampleProject } from '../helpers/project.js';

const startProject = useExampleProjects();

async function getArrived(project: ExampleProject): Promise<void> {
  while (project.emulator.control.requestLog().every((entry) => entry.method !== 'GET')) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Runs the command line, sends `signal` once one of its reads is on the wire, and resolves to what it printed. */
async function interruptedRead(commandLine: string, signal: NodeJS.Signals) {
  const project = await startProject();
  project.emulator.control.setFaults([{ path: '**', method: 'GET', latencyMs: 60_000 }]);
  const { child, output, exited } = spawnCli(project.dir, project.env, commandLine.split(' '));
  await getArrived(project);
  child.kill(signal);
  return { code: await exited, ...output };
}

describe('Ctrl-C while a command reads the service', () => {
  it.each(['plan', 'get agents', 'logs'])('%s: only error[interrupted] and its hint, nothing on stdout, exit 130', async (commandLine) => {
    const result = await interruptedRead(commandLine, 'SIGINT');
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('error[interrupted]: voxform stopped at your request.\n  hint: Run the command again to finish its work.\n');
    expect(result.stdout).toBe('');
  });

  it('export: only error[interrupted], saying nothing was written, and its hint; nothing on stdout, exit 130', async () => {
    const result = await interruptedRead('export --agent -OKdqbqetEcM4ak369ym --out exported', 'SIGINT');
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('error[interrupted]: voxform stopped at your request; nothing was written.\n  hint: Run the command again to export the agents.\n');
    expect(result.stdout).toBe('');
  });

  // Before its question: the documented "Apply cancelled" is the answer to the question only.
  it.each(['apply', 'apply --auto-approve'])('%s before its question: error[interrupted], not "Apply cancelled", exit 130', async (commandLine) => {
    const result = await interruptedRead(commandLine, 'SIGINT');
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('error[interrupted]: voxform stopped at your request; nothing was applied.\n  hint: Run the command again to finish its work.\n');
    expect(result.stdout).toBe('');
  });

  it.each(['plan --format json', 'drift --format json', 'logs --format json', 'status --format json'])('%s: one JSON error envelope on stdout, nothing on stderr, exit 130', async (commandLine) => {
    const result = await interruptedRead(commandLine, 'SIGTERM');
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'interrupted', message: 'voxform stopped at your request.', hint: 'Run the command again to finish its work.' },
    });
  });
});
