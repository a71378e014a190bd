/**
 * The files a pull request can commit beside its manifests, changed in seeded places: the file
 * state, the deploy history, the embedded emulator's data, a test file's recording and a baseline
 * result (docs/security.md: everything in the checkout is untrusted). Each case changes one of them
 * (a field dropped, null, another type, a list item repeated, controls or workflow commands
 * appended, nesting 3,000 deep) and runs a command that reads it. The command must end with its
 * result or a clear error, never an internal one, and print nothing the file carried as a control
 * character or workflow command. The seed is in the test name; VOXFORM_FUZZ_SEED repeats a run.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/util/seeded-random.js';
import { repoRoot, runCliInProcess } from '../helpers/cli.js';
import { fuzzSeed } from '../helpers/fuzz-seed.js';
import { changedAnswer, expectClearOutcome, mutator } from '../helpers/mutate-json.js';

const SEED = fuzzSeed(20_261_203);
const CASES = 16;
const MANIFEST = ['-f', 'agents.example.yaml', '--local'];

/** The commands drawn from, each with the files it reads of those changed. */
const COMMANDS: Array<{ args: string[]; reads: RegExp }> = [
  { args: ['plan', ...MANIFEST], reads: /state|local|history/ },
  { args: ['plan', ...MANIFEST, '--format', 'json'], reads: /state|local/ },
  { args: ['apply', ...MANIFEST, '--auto-approve'], reads: /state|local|history/ },
  { args: ['drift', ...MANIFEST], reads: /state|local/ },
  { args: ['history', ...MANIFEST, '--format', 'json'], reads: /history|state/ },
  { args: ['report', ...MANIFEST, '--since-deploy', '--agent', 'front-desk'], reads: /history|local|state/ },
  { args: ['rollback', 'previous', ...MANIFEST, '--auto-approve'], reads: /history|state|local/ },
  { args: ['get', 'phones', ...MANIFEST], reads: /state|local/ },
  { args: ['test', 'example/tests', ...MANIFEST, '--mode', 'replay'], reads: /recording/ },
  { args: ['test', 'example/tests', ...MANIFEST, '--mode', 'replay', '--baseline', 'baseline.json'], reads: /baseline/ },
];

let base: string;
const cases: string[] = [];

/** Runs a command in `dir` that must succeed: the project's files as the commands leave them. */
async function made(args: string[], dir: string): Promise<string> {
  const result = await runCliInProcess(args, { cwd: dir, env: { HOOK_TOKEN: 'planted-hook-token-5d1e' } });
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'voxform-checkout-fuzz-'));
  await cp(path.join(repoRoot, 'agents.example.yaml'), path.join(base, 'agents.example.yaml'));
  await cp(path.join(repoRoot, 'example'), path.join(base, 'example'), { recursive: true });
  // Two deploys with calls between, recordings and a baseline: every file the commands read.
  await made(['apply', ...MANIFEST, '--auto-approve'], base);
  await made(['emulator', 'traffic', ...MANIFEST, '--profile', 'volatile', '--agent', 'front-desk', '--seed', '1'], base);
  await writeFile(path.join(base, 'example', 'prompts', 'front-desk.md'), `${await readFile(path.join(base, 'example', 'prompts', 'front-desk.md'), 'utf8')}\nAlways say goodbye.\n`);
  await made(['apply', ...MANIFEST, '--auto-approve'], base);
  await made(['test', 'example/tests', ...MANIFEST, '--mode', 'record'], base);
  await writeFile(path.join(base, 'baseline.json'), await made(['test', 'example/tests', ...MANIFEST, '--mode', 'replay', '--format', 'json'], base));
}, 120_000);

afterAll(async () => {
  await Promise.all([base, ...cases].map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The checkout's files a pull request can change, relative to the project. */
async function changeableFiles(dir: string): Promise<string[]> {
  const history = (await readdir(path.join(dir, '.voxform', 'history'))).map((name) => path.join('.voxform', 'history', name));
  const recordings = (await readdir(path.join(dir, 'example', 'tests'))).filter((name) => name.endsWith('.recording.json')).map((name) => path.join('example', 'tests', name));
  return [path.join('.voxform', 'state.json'), path.join('.voxform', 'local.json'), 'baseline.json', ...history, ...recordings];
}

describe(`files of the checkout in other shapes than voxform writes (seed ${SEED})`, () => {
  it.each(Array.from({ length: CASES }, (_, index) => index))('case %i: a result or a clear error, never an internal one', async (index) => {
    const draw = seededRandom(SEED + index);
    const mutate = mutator(SEED * 31 + index);
    const { args, reads } = COMMANDS[Math.floor(draw() * COMMANDS.length)]!;
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-checkout-case-'));
    cases.push(dir);
    await cp(base, dir, { recursive: true });
    const files = (await changeableFiles(dir)).filter((file) => reads.test(file));
    const file = files[Math.floor(draw() * files.length)]!;
    await writeFile(path.join(dir, file), changedAnswer(await readFile(path.join(dir, file), 'utf8'), mutate, draw));
    const result = await runCliInProcess(args, { cwd: dir, env: { HOOK_TOKEN: 'planted-hook-token-5d1e' } });
    expectClearOutcome(result, `${args.join(' ')} with ${file} changed`);
    expect(result.stdout + result.stderr).not.toContain('planted-hook-token-5d1e');
  }, 60_000);
});
