/**
 * A command stopped by Ctrl-C while it reads the service says one thing: that it was interrupted.
 * The request the stop cuts short fails too, but that failure is the stop itself, not a second
 * error to report (on stderr, or as an error object on stdout with --format json). The emulator
 * holds every GET (fault latency); the test signals once one has arrived, so the stop always falls
 * while a read is on the wire.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';

let project: ExampleProject;
beforeAll(async () => {
  project = await startExampleProject();
  project.emulator.control.setFaults([{ path: '**', method: 'GET', latencyMs: 60_000 }]);
});
afterAll(async () => {
  await project.close();
});

async function getArrived(after: number): Promise<void> {
  while (project.emulator.control.requestLog().slice(after).every((entry) => entry.method !== 'GET')) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('Ctrl-C while a command reads the service', () => {
  it.each(['plan', 'plan --format json', 'drift --format json', 'export --agent -OKdqbqetEcM4ak369ym --out exported', 'get agents'])(
    '%s: only the interrupted line, nothing on stdout, exit 130',
    async (commandLine) => {
      const args = commandLine.split(' ');
      const before = project.emulator.control.requestLog().length;
      const { child, output, exited } = spawnCli(project.dir, project.env, args);
      await getArrived(before);
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(output.stderr).toBe('Interrupted: voxform stopped at your request (exit 130).\n');
      expect(output.stdout).toBe('');
    },
  );
});
