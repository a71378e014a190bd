import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { runPreparedTests } from '../../src/conversations/runner.js';
import type { TestFile } from '../../src/conversations/types.js';
import { repoRoot, spawnCli } from '../helpers/cli.js';
import { useExampleProjects } from '../helpers/project.js';

const startProject = useExampleProjects();


const file: TestFile = {
  path: '/x/a.test.yaml',
  display: 'a.test.yaml',
  contentHash: 'sha256:0',
  agent: 'front-desk',
  metadata: undefined,
  includeMetadataInPrompt: undefined,
  tests: [{ name: 't', location: { file: 'a.test.yaml', line: 1, col: 1 }, turns: [{ user: 'hi', checks: [] }], simulate: undefined, expect: [], repeat: 3, passRate: 1, needsModel: false }],
};

describe('Ctrl-C during voxform test', () => {
  it('runPreparedTests starts no conversation once aborted, and says it was interrupted', async () => {
    const controller = new AbortController();
    controller.abort();
    const client = { chatCompletions: () => { throw new Error('no conversation may start'); } } as unknown as ApiClient;
    await expect(
      runPreparedTests({ files: [file], targets: ['desired'], client, agents: new Map([['front-desk', { id: '-OK', desiredConfig: {} }]]), model: undefined, parallelism: 2, signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'interrupted' });
  });

  it('the command finishes the conversations under way, writes no report, says so and exits 130', async () => {
    const project = await startProject();
    project.emulator.control.setFaults([{ path: '/chat/completions', latencyMs: 300 }]);
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/voxform.js'), 'test', 'example/tests', '--repeat', '20', '--parallelism', '2', '--out', 'report.txt'], {
      cwd: project.dir,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...project.env },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Interrupt once the first conversation has reached the service.
    while (!project.emulator.control.requestLog().some((entry) => entry.path === '/chat/completions')) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toBe('error[interrupted]: Tests interrupted: the conversations under way were finished, no other was started, and no report was written.\n  hint: Run `voxform test` again to run every test.\n');
    const chats = project.emulator.control.requestLog().filter((entry) => entry.path === '/chat/completions').length;
    // 20 repeats of 4 tests would be well over a hundred requests.
    expect(chats).toBeLessThan(40);
  });

  it('with --format json, the interrupt is the one JSON document on stdout, exit 130', async () => {
    const project = await startProject();
    project.emulator.control.setFaults([{ path: '/chat/completions', latencyMs: 300 }]);
    const { child, output, exited } = spawnCli(project.dir, project.env, ['test', 'example/tests', '--repeat', '20', '--parallelism', '2', '--format', 'json']);
    while (!project.emulator.control.requestLog().some((entry) => entry.path === '/chat/completions')) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(output.stderr).toBe('');
    expect(JSON.parse(output.stdout)).toEqual({
      error: {
        code: 'interrupted',
        message: 'Tests interrupted: the conversations under way were finished, no other was started, and no report was written.',
        hint: 'Run `voxform test` again to run every test.',
      },
    });
  });
});
