import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { checkDeclaredWork, declaredRequests, DEFAULT_TEST_RUN_LIMITS } from '../../src/conversations/budgets.js';
import type { CompletionModel } from '../../src/model/chat-model.js';
import { loadTestFiles } from '../../src/conversations/load-tests.js';
import { runLazily, runPreparedTests } from '../../src/conversations/runner.js';
import type { ConversationTest, TestFile } from '../../src/conversations/types.js';
import { isVoxformError, type VoxformError } from '../../src/errors.js';
import type { ChatCompletionRequest } from '../../src/schema/types.gen.js';
import { useTempDirs } from '../helpers/cli.js';
import { useExampleProjects } from '../helpers/project.js';

const startProject = useExampleProjects();

const tempDir = useTempDirs();

const location = { file: 'tests/a.test.yaml', line: 3, col: 11 };

function scripted(name: string, turns: number, extra: Partial<ConversationTest> = {}): ConversationTest {
  const turn = { user: 'Hi', checks: [] };
  return { name, location, turns: Array.from({ length: turns }, () => turn), simulate: undefined, expect: [], repeat: 1, passRate: 1, needsModel: false, ...extra };
}

function simulated(name: string, maxTurns: number, extra: Partial<ConversationTest> = {}): ConversationTest {
  return { name, location, turns: undefined, simulate: { persona: 'P', goal: 'G', maxTurns }, expect: [], repeat: 1, passRate: 1, needsModel: true, ...extra };
}

const fileOf = (...tests: ConversationTest[]): TestFile => ({ path: '/p/tests/a.test.yaml', display: 'tests/a.test.yaml', contentHash: 'sha256:0', agent: 'front-desk', metadata: undefined, includeMetadataInPrompt: undefined, tests });

function thrown(run: () => unknown): VoxformError {
  try {
    run();
  } catch (error) {
    if (isVoxformError(error)) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('the work a run declares', () => {
  const judged = scripted('judged', 3, {
    turns: [{ user: undefined, checks: [{ kind: 'judge', rubric: 'r' }, { kind: 'contains', text: 'a' }] }, { user: 'Hi', checks: [] }, { user: 'Bye', checks: [] }],
    expect: [
      { kind: 'judge', rubric: 'r' },
      { kind: 'tool_called', tool: 'book', args: { day: { kind: 'judge', rubric: 'a day' }, room: { kind: 'exact', value: 1 } } },
      { kind: 'call_status', status: 'chat_completion' },
    ],
  });
  it.each<[string, ConversationTest, boolean, number]>([
    ['a scripted turn is one request', scripted('s', 3), true, 3],
    ['each judge check is one more (a judged argument too)', judged, true, 6],
    ['without a judge, judge checks send nothing', judged, false, 3],
    ['a simulated conversation: greeting, a move and a reply per max_turns, the end', simulated('m', 8), true, 18],
    ['its judge checks count too', simulated('m', 8, { expect: [{ kind: 'judge', rubric: 'r' }] }), true, 19],
    ['without a judge a simulated conversation is skipped', simulated('m', 8), false, 0],
  ])('%s', (_name, test, judge, requests) => {
    expect(declaredRequests(test, judge)).toBe(requests);
  });

  it('counts test × target × repeat, and --repeat replaces each test’s repeat', () => {
    const files = [fileOf(scripted('a', 2, { repeat: 5 }), simulated('b', 10))];
    expect(checkDeclaredWork(files, { targets: ['live', 'desired'], judge: true }, DEFAULT_TEST_RUN_LIMITS)).toEqual({ conversations: 12, requests: 10 * 2 + 2 * 22 });
    expect(checkDeclaredWork(files, { targets: ['desired'], repeat: 3, judge: true }, DEFAULT_TEST_RUN_LIMITS)).toEqual({ conversations: 6, requests: 3 * 2 + 3 * 22 });
  });

  it('refuses a run over the conversation cap, pointing at the test that asks for the most and at the flag', () => {
    const files = [fileOf(scripted('small', 1, { repeat: 2 }), scripted('big', 1, { repeat: 20, location: { ...location, line: 9 } }))];
    const error = thrown(() => checkDeclaredWork(files, { targets: ['live', 'desired'], judge: false }, { maxConversations: 40, maxRequests: 4_000 }));
    expect(error.code).toBe('test_run_too_large');
    expect(error.message).toBe('This run asks for 44 conversations (each test × target × repeat), over the cap of 40 per run; "big" asks for the most (40). No test was run.');
    expect(error.location).toEqual({ file: 'tests/a.test.yaml', line: 9, col: 11 });
    expect(error.hint).toBe('Run fewer at once (--grep, --agent, a lower repeat:), or, as the operator, raise the cap with --max-conversations N (docs/testing.md, Budgets).');
    const flagged = thrown(() => checkDeclaredWork(files, { targets: ['live', 'desired'], repeat: 30, judge: false }, { maxConversations: 40, maxRequests: 4_000 }));
    expect(flagged.hint).toBe('Run fewer at once (--grep, --agent, a lower --repeat), or, as the operator, raise the cap with --max-conversations N (docs/testing.md, Budgets).');
  });

  it('refuses a run over the request cap; the operator may raise either cap, a test file cannot', () => {
    const files = [fileOf(simulated('caller', 50, { repeat: 20 }), scripted('short', 1))];
    const shape = { targets: ['live', 'desired'] as const, judge: true };
    const error = thrown(() => checkDeclaredWork(files, shape, DEFAULT_TEST_RUN_LIMITS));
    expect(error.code).toBe('test_run_too_large');
    expect(error.message).toBe(
      'This run asks for 4,082 requests (up to one per scripted turn, two per simulated turn, one per judge check), over the cap of 4,000 per run; "caller" asks for the most (4,080). No test was run.',
    );
    expect(error.hint).toMatch(/raise the cap with --max-requests N/);
    expect(checkDeclaredWork(files, shape, { ...DEFAULT_TEST_RUN_LIMITS, maxRequests: 5_000 })).toEqual({ conversations: 42, requests: 4_082 });
  });
});

/** A service whose every chat request is answered at once, recording what was asked. */
function instantService(): { client: ApiClient; requests: ChatCompletionRequest[] } {
  const requests: ChatCompletionRequest[] = [];
  const client = {
    chatCompletions(body: ChatCompletionRequest) {
      requests.push(body);
      return { collect: async () => 'Hello from the agent.', sessionId: `s${requests.length}`, finishReason: 'stop' };
    },
  } as unknown as ApiClient;
  return { client, requests };
}

const agents = new Map([['front-desk', { id: 'ag_1', desiredConfig: {} }]]);

describe('the requests a run sends', () => {
  it('stops sending at the request cap while running: a judge asked again counts, and the request over it is not sent', async () => {
    const service = instantService();
    const asked: unknown[] = [];
    // The caller model answers nonsense once, so voxform asks again: a request the files do not declare.
    const model: CompletionModel = {
      complete: async (messages) => {
        asked.push(messages);
        const content = asked.length === 1 ? 'not json' : JSON.stringify({ message: 'Hi again', goal_reached: false });
        return { role: 'assistant', content, refusal: null };
      },
    };
    // Declared: greeting + 3 × (move + reply) + the end = 8 requests, within a cap of 8.
    const run = await runPreparedTests({ files: [fileOf(simulated('caller', 3))], targets: ['desired'], client: service.client, agents, model, parallelism: 1, limits: { maxRequests: 8 } });
    expect(service.requests.length + asked.length).toBe(8);
    const result = run.reports[0]?.verdicts.desired?.results[0];
    expect(result).toMatchObject({ status: 'error', error: 'Not sent: this run has sent its 8 requests (the cap per run).' });
  });

  it('refuses the run before any request when the files declare more than the cap', async () => {
    const service = instantService();
    const run = runPreparedTests({ files: [fileOf(scripted('long', 5, { repeat: 3 }))], targets: ['desired'], client: service.client, agents, model: undefined, parallelism: 4, limits: { maxRequests: 14 } });
    await expect(run).rejects.toMatchObject({ code: 'test_run_too_large' });
    expect(service.requests).toHaveLength(0);
  });
});

describe('scheduling', () => {
  it('makes a conversation only when a slot is free: never more than the parallelism ahead', async () => {
    let made = 0;
    let finished = 0;
    let mostAhead = 0;
    function* jobs(): Generator<() => Promise<void>> {
      for (let i = 0; i < 100_000; i++) {
        made++;
        mostAhead = Math.max(mostAhead, made - finished);
        yield async () => {
          await Promise.resolve();
          finished++;
        };
      }
    }
    await runLazily(jobs(), 4);
    expect({ made, finished, mostAhead }).toEqual({ made: 100_000, finished: 100_000, mostAhead: 4 });
  });

  it('runs every conversation of a run larger than the default caps when the operator raises them, reporting progress against the declared total', async () => {
    const service = instantService();
    const progress: Array<[number, number]> = [];
    const files = [fileOf(scripted('a', 2, { repeat: 20 }), scripted('b', 1))];
    const run = await runPreparedTests({
      files,
      targets: ['live', 'desired'],
      client: service.client,
      agents,
      model: undefined,
      parallelism: 8,
      repeat: 600,
      limits: { maxConversations: 2_400, maxRequests: 3_600 },
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(service.requests).toHaveLength(600 * 2 * 3);
    expect(run.summary).toEqual({ live: { passed: 2, failed: 0, skipped: 0, errors: 0 }, desired: { passed: 2, failed: 0, skipped: 0, errors: 0 } });
    expect(run.reports[0]?.verdicts.live).toMatchObject({ passes: 600, runs: 600 });
    expect(progress.at(-1)).toEqual([2_400, 2_400]);
  });
});

describe('caps of the test files', () => {
  const agentNames = new Set(['front-desk']);

  it('refuses repeat, turns and max_turns over their caps at file:line:col, saying how to stay under', async () => {
    const many = Array.from({ length: 51 }, () => '      - user: Hi').join('\n');
    const dir = await tempDir({
      'tests/a.test.yaml': [
        'agent: front-desk',
        'tests:',
        '  - name: repeated',
        '    turns: [{ user: Hi, expect: [{ contains: Hi }] }]',
        '    repeat: 21',
        '  - name: simulated',
        '    simulate: { persona: P, goal: G, max_turns: 51 }',
        '    expect: [{ call_status: chat_completion }]',
        '  - name: long',
        '    expect: [{ call_status: chat_completion }]',
        '    turns:',
        many,
      ].join('\n'),
    });
    const result = await loadTestFiles({ files: [path.join(dir, 'tests/a.test.yaml')], cwd: dir, agents: agentNames });
    expect(result.files).toBeUndefined();
    expect(result.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.message}`)).toEqual([
      'tests/a.test.yaml:5:13 tests[0].repeat is 21, over the cap of 20; lower it (the operator may run more with --repeat N)',
      'tests/a.test.yaml:7:49 tests[1].simulate.max_turns is 51, over the cap of 50; lower it, or split the goal over several tests',
      'tests/a.test.yaml:12:7 tests[2].turns has 51 items, over the cap of 50; split the conversation into shorter tests',
    ]);
  });

  it('refuses test files over 4 MiB together, naming the file that crosses it, before parsing any', async () => {
    const names = ['a', 'b', 'c', 'd', 'e'].map((name) => `tests/${name}.test.yaml`);
    const dir = await tempDir(Object.fromEntries(names.map((name) => [name, `# ${'x'.repeat(900 * 1024)}\n`])));
    const files = names.map((name) => path.join(dir, name));
    const load = loadTestFiles({ files, cwd: dir, agents: agentNames });
    await expect(load).rejects.toMatchObject({
      code: 'test_run_too_large',
      message: 'tests/e.test.yaml takes the test files of this run past 4 MiB together (the cap per run). No test was run.',
    });
  });
});

describe('voxform test within its caps', () => {
  it('refuses a run over --max-conversations or --max-requests before it connects, and runs within them', async () => {
    const project = await startProject();
    // The example: 5 conversations (booking is repeated) and 9 chat requests.
    const fewer = await project.cliInProcess(['test', 'example/tests', '--max-conversations', '4']);
    expect(fewer.code).toBe(1);
    expect(fewer.stderr).toMatch(/^error\[test_run_too_large\]: example\/tests\/booking\.test\.yaml:4:11: This run asks for 5 conversations \(each test × target × repeat\), over the cap of 4 per run; "offers to book" asks for the most \(2\)\. No test was run\.\n/);
    expect(fewer.stderr).toContain('--max-conversations N');
    const requests = await project.cliInProcess(['test', 'example/tests', '--max-requests', '8']);
    expect(requests.code).toBe(1);
    expect(requests.stderr).toContain('This run asks for 9 requests');
    const repeated = await project.cliInProcess(['test', 'example/tests', '--repeat', '300']);
    expect(repeated.stderr).toContain('This run asks for 1,200 conversations');
    expect(project.requests).toEqual([]);
    const within = await project.cliInProcess(['test', 'example/tests', '--max-conversations', '5', '--max-requests', '9']);
    expect(within.stderr).toBe('');
    expect(within.code).toBe(0);
  });
});
