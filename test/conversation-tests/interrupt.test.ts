import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { runPreparedTests } from '../../src/conversations/runner.js';
import type { TestFile } from '../../src/conversations/types.js';
import { spawnCli } from '../helpers/cli.js';
import { defaultAnswer, startFakeModel, type FakeModel } from '../helpers/fake-model.js';
import { useExampleProjects } from '../helpers/project.js';

const startProject = useExampleProjects();

let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** One conversation: a turn whose reply the judge checks. */
const JUDGED_TESTS = ['agent: front-desk', 'tests:', '  - name: greets', '    turns:', '      - user: Hello', '        expect:', '          - judge: Says "hello"', ''].join('\n');


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
    const client = { chatCompletions: () => { throw new Error('no conversation may start'); }, withSignal() { return this; } } as unknown as ApiClient;
    await expect(
      runPreparedTests({ files: [file], targets: ['desired'], client, agents: new Map([['front-desk', { id: '-OK', desiredConfig: {} }]]), model: undefined, parallelism: 2, signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'interrupted' });
  });

  it.each([
    ['the judge', 'strict judge'],
    ["the agent's model (a chat request to the service in flight)", ''],
  ])('held by %s, Ctrl-C says at once that it stops, cuts the conversation short, writes no recording, exits 130', async (_holder, held) => {
    let heldArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (heldArrived = resolve));
    // The model answers nothing it is asked of the held role, until the test ends.
    fake = await startFakeModel((request) => {
      if (!(request.messages.find((m) => m.role === 'system')?.content ?? '').includes(held)) return defaultAnswer(request);
      heldArrived();
      return new Promise<never>(() => undefined);
    });
    const project = await startProject({ llm: { url: fake.url, model: 'fake-agent' } });
    await writeFile(path.join(project.dir, 'example/tests/judged.test.yaml'), JUDGED_TESTS);
    const before = await readdir(path.join(project.dir, 'example/tests'));
    const env = { ...project.env, VOXFORM_JUDGE_URL: fake.url, VOXFORM_JUDGE_MODEL: 'fake-judge' };
    const { child, output, exited, stderrShows } = spawnCli(project.dir, env, ['test', 'example/tests/judged.test.yaml', '--mode', 'record']);
    await arrived;
    child.kill('SIGINT');
    // Said while the model still holds its answer (it never gives one).
    await stderrShows('Stopping:');
    expect(await exited).toBe(130);
    expect(output.stderr).toBe(
      [
        'Stopping: the conversations under way are cut short; no report or recording is written (Ctrl-C again stops at once).',
        'error[interrupted]: Tests interrupted: the conversations under way were cut short, no other was started, and no report or recording was written.',
        '  hint: Run `voxform test example/tests/judged.test.yaml --mode record` to run the tests again.',
        '',
      ].join('\n'),
    );
    expect(output.stdout).toBe('');
    // No recording, whole or in part, and no temporary file beside the tests.
    expect(await readdir(path.join(project.dir, 'example/tests'))).toEqual(before);
  });

  it('with --format json, the interrupt is the one JSON document on stdout, exit 130; its hint carries the run\'s --env, --state, --repeat, --no-cache and --format', async () => {
    const project = await startProject();
    project.emulator.control.setFaults([{ path: '/chat/completions', latencyMs: 300 }]);
    const { child, output, exited } = spawnCli(project.dir, project.env, ['test', 'example/tests', '--env', 'staging', '--state', 'staging-state.json', '--repeat', '20', '--parallelism', '2', '--no-cache', '--format', 'json']);
    while (!project.emulator.control.requestLog().some((entry) => entry.path === '/chat/completions')) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(output.stderr).toBe('Stopping: the conversations under way are cut short; no report or recording is written (Ctrl-C again stops at once).\n');
    expect(JSON.parse(output.stdout)).toEqual({
      error: {
        code: 'interrupted',
        message: 'Tests interrupted: the conversations under way were cut short, no other was started, and no report or recording was written.',
        hint: 'Run `voxform test example/tests --repeat 20 --no-cache --format json --env staging --state staging-state.json` to run the tests again.',
      },
    });
  });
});
