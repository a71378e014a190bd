/**
 * Seeded conversation-test files (scripted turns with every reply check, simulated callers, call
 * record checks, repeats, pass rates, metadata) run against a judge and a simulated caller that
 * answer at random — a model varies — and each file must give the same verdicts twice, as
 * docs/testing.md promises: recorded, then replayed, the same JSON result apart from its timings,
 * nothing sent to the model; replayed again, the same; `--mode auto` with nothing changed, the same,
 * nothing sent; run live twice, the same verdicts for every scripted test (the judge's cache;
 * simulated callers are never cached, so vary by design). What broke once: two checks asking the
 * judge the same question in one run (replayed, both read one answer). The seed is in the test
 * name; VOXFORM_FUZZ_SEED repeats a run.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { seededRandom } from '../../src/util/seeded-random.js';
import { startFakeModel, type FakeModel } from '../helpers/fake-model.js';
import { fuzzSeed } from '../helpers/fuzz-seed.js';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';

const SEED = fuzzSeed(20_261_204);
const CASES = 8;

/** Texts the checks look for: the example's greetings, the echo agent's words, a placeholder, nothing. */
const TEXTS = ['acme', 'Acme Dental', 'Ava', 'book', 'You said', 'Hi!', 'help', 'never said', '?', 'é', '(sensitive)'];
const RUBRICS = ['Is polite.', 'Offers to book.', 'Names the practice.'];

function testFileGenerator(seed: number) {
  const next = seededRandom(seed);
  const int = (max: number) => Math.floor(next() * max);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const replyCheck = () => pick([{ contains: pick(TEXTS) }, { not_contains: pick(TEXTS) }, { equals: pick(TEXTS) }, { regex: pick(['^\\[', 'help', 'Ava|book', '\\?$']) }, { judge: pick(RUBRICS) }]);
  const callCheck = () => pick([{ call_status: pick(['chat_completion', 'completed']) }, { tool_not_called: 'transfer_call' }, { tool_calls: [] }, { judge: pick(RUBRICS) }]);
  const test = (index: number) => {
    const simulated = next() < 0.3;
    const drawn: Record<string, unknown> = { name: `test ${index}${simulated ? ' (simulated)' : ''}` };
    if (simulated) drawn.simulate = { persona: 'A patient.', goal: 'Book a cleaning.', max_turns: 1 + int(3) };
    else drawn.turns = Array.from({ length: 1 + int(3) }, (_, turn) => ({ ...(turn > 0 || next() < 0.3 ? { user: pick(['Hello', 'When are you open?', 'Book me in']) } : {}), expect: Array.from({ length: 1 + int(3) }, replyCheck) }));
    if (simulated || next() < 0.5) drawn.expect = Array.from({ length: 1 + int(2) }, callCheck);
    if (next() < 0.4) drawn.repeat = 1 + int(3);
    if (drawn.repeat && next() < 0.5) drawn.pass_rate = pick([0.5, 1]);
    return drawn;
  };
  return () => ({ agent: pick(['front-desk', 'booking']), ...(next() < 0.3 ? { metadata: { tier: 'gold' } } : {}), tests: Array.from({ length: 1 + int(3) }, (_, index) => test(index)) });
}

/** The JSON result without its timings: what must be byte-identical between runs of one recording. */
const withoutTimings = (json: string): string => json.replace(/"duration_ms": \d+/g, '"duration_ms": 0');

interface Result {
  tests: Array<{ name: string; verdicts: Record<string, { status: string; results: Array<{ status: string; checks: Array<{ status: string }> }> }> }>;
}
/** Each test's verdicts, run by run and check by check; of scripted tests only, with `scriptedOnly`. */
function verdicts(stdout: string, scriptedOnly = false): unknown {
  return (JSON.parse(stdout) as Result).tests
    .filter((test) => !scriptedOnly || !test.name.includes('(simulated)'))
    .map((test) => [test.name, Object.entries(test.verdicts).map(([target, verdict]) => [target, verdict.status, verdict.results.map((run) => run.checks.map((check) => check.status))])]);
}

let project: ExampleProject;
let model: FakeModel;
beforeAll(async () => {
  // The judge and the caller answer from their own seeded stream: the same question gets another answer each time.
  const next = seededRandom(SEED);
  model = await startFakeModel((request) => {
    const caller = request.messages[0]?.content?.includes('You play a caller');
    return { content: JSON.stringify(caller ? { message: `Tuesday at ${Math.floor(next() * 12)}, please`, goal_reached: next() < 0.3 } : { verdict: next() < 0.6 ? 'pass' : 'fail', reason: `reason ${Math.floor(next() * 1e6)}` }) };
  });
  project = await startExampleProject();
  await mkdir(path.join(project.dir, 'fuzz'));
  expect((await project.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
}, 120_000);
afterAll(async () => {
  await project?.close();
  await model?.close();
});

describe(`conversation tests give the same verdict twice (seed ${SEED})`, () => {
  const draw = testFileGenerator(SEED);
  const files = Array.from({ length: CASES }, draw);
  it.each(files.map((file, index) => [index, file] as const))('case %i', { timeout: 120_000 }, async (index, file) => {
    const name = `fuzz/case-${index}.test.yaml`;
    await writeFile(path.join(project.dir, name), stringify(file));
    const judge = { VOXFORM_JUDGE_URL: model.url, VOXFORM_JUDGE_MODEL: 'fuzz-judge' };
    const against = ['desired', 'live', 'both'][index % 3] as string;
    const args = ['test', name, '--format', 'json', '--against', against];
    const failing = (run: { code: number; stdout: string; stderr: string }) => `${stringify(file)}\n${run.stdout.slice(0, 3000)}${run.stderr}`;

    const recorded = await project.cliInProcess([...args, '--mode', 'record'], judge);
    expect([0, 1], failing(recorded)).toContain(recorded.code);
    expect(JSON.stringify(verdicts(recorded.stdout)), failing(recorded)).not.toContain('"error"');
    const asked = model.requests.length;
    const replayed = await project.cliInProcess([...args, '--mode', 'replay'], judge);
    expect(withoutTimings(replayed.stdout), failing(replayed)).toBe(withoutTimings(recorded.stdout));
    const again = await project.cliInProcess([...args, '--mode', 'replay'], judge);
    expect(withoutTimings(again.stdout)).toBe(withoutTimings(replayed.stdout));
    const auto = await project.cliInProcess([...args, '--mode', 'auto'], judge);
    expect(verdicts(auto.stdout), failing(auto)).toEqual(verdicts(recorded.stdout));
    expect(model.requests.length, 'replay and auto ask the model nothing').toBe(asked);

    const live = await project.cliInProcess(args, judge);
    const liveAgain = await project.cliInProcess(args, judge);
    expect(verdicts(liveAgain.stdout, true), failing(liveAgain)).toEqual(verdicts(live.stdout, true));
  });
});
