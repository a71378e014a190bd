/**
 * A service whose answers are of another shape than documented: the emulator behind a proxy that
 * changes seeded parts of its JSON answers and stream events (a field dropped, null, another type,
 * a list item repeated, text with controls or workflow commands appended, nesting thousands deep).
 * Every command that reads the service (apply, drift --heal and promote too) must end with a result or a clear error (exit 0, 1 or 2),
 * never an internal error or a stack trace, and print no raw control character. What broke once: a
 * null phone, an agent name that was no text, knowledge files that were no list, a null stream
 * chunk, a deeply nested answer; and an update refused for a field of the service's own was said to
 * be voxform's bug. An answer of an unexpected status (a redirect, 204 or 206, a 4xx or 5xx the
 * service does not document) is held to the same. The seed is in the test name; VOXFORM_FUZZ_SEED
 * repeats a run.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/util/seeded-random.js';
import { runCliInProcess } from '../helpers/cli.js';
import { fuzzSeed } from '../helpers/fuzz-seed.js';
import { initRepository } from '../helpers/git.js';
import { changedAnswer, expectClearOutcome, mutator } from '../helpers/mutate-json.js';
import { useRewritingService } from '../helpers/rewriting-proxy.js';

const SEED = fuzzSeed(20_261_205);
const CASES = 24;

/** The commands that read the service, one drawn per case. */
const COMMANDS = [
  ['plan'],
  ['plan', '--format', 'json'],
  ['drift'],
  ['get', 'agents'],
  ['get', 'phones', '--format', 'json'],
  ['export', '--from-phones', '--out', 'exported'],
  ['logs', '--stats'],
  ['report', '--format', 'json'],
  ['status'],
  ['test', '--against', 'live', '--skip-judge', 'example/tests'],
  ['apply', '--auto-approve'],
  ['drift', '--heal', '--auto-approve'],
];

describe(`a service answering in other shapes than documented (seed ${SEED})`, () => {
  const service = useRewritingService();

  it.each(Array.from({ length: CASES }, (_, index) => index))('case %i: a result or a clear error, never an internal one', async (index) => {
    const draw = seededRandom(SEED + index);
    const mutate = mutator(SEED * 31 + index);
    const rate = [0.3, 0.6, 1][Math.floor(draw() * 3)] as number;
    const args = COMMANDS[Math.floor(draw() * COMMANDS.length)] as string[];
    const { dir, env } = await service.example();
    service.proxy.rewrite = ({ method }, text) => (text !== '' && (method === 'GET' || draw() < 0.3) && draw() < rate ? changedAnswer(text, mutate, draw) : text);
    expectClearOutcome(await runCliInProcess(args, { cwd: dir, env }), args.join(' '));
  });
});

describe(`promote, its gates reading a service that answers in other shapes (seed ${SEED})`, () => {
  const service = useRewritingService();

  /** The example with a production promoted from staging (its gates drawn), committed, and staging applied through an honest proxy. */
  async function stagedExample(draw: () => number): Promise<{ dir: string; env: Record<string, string> }> {
    const { dir, env } = await service.example();
    const gates = draw() < 0.5 ? '' : '    gates: { min_calls: 1, no_regression: [error_rate, transfer_rate] }\n';
    await writeFile(path.join(dir, 'voxform.yaml'), `${await readFile(path.join(dir, 'voxform.yaml'), 'utf8')}  production:\n    promote_from: staging\n${gates}`);
    await writeFile(path.join(dir, '.gitignore'), '.voxform/\n');
    initRepository(dir, 'staging and production');
    service.proxy.rewrite = (_request, text) => text;
    const staged = await runCliInProcess(['apply', '--env', 'staging', '--auto-approve'], { cwd: dir, env });
    expect(staged.code, staged.stderr).toBe(0);
    return { dir, env };
  }

  it.each(Array.from({ length: 8 }, (_, index) => index))('case %i: a result or a clear error, never an internal one', async (index) => {
    const draw = seededRandom(SEED * 7 + index);
    const mutate = mutator(SEED * 37 + index);
    const { dir, env } = await stagedExample(draw);
    const args = ['promote', '--to', 'production', draw() < 0.5 ? '--dry-run' : '--auto-approve'];
    service.proxy.rewrite = ({ method }, text) => (text !== '' && (method === 'GET' || draw() < 0.3) && draw() < 0.6 ? changedAnswer(text, mutate, draw) : text);
    expectClearOutcome(await runCliInProcess(args, { cwd: dir, env }), args.join(' '));
  });
});

/** Statuses the service does not document for any operation, and those it does, in unexpected places. */
const STATUSES = [201, 204, 206, 301, 302, 304, 307, 400, 401, 403, 404, 409, 410, 418, 422, 429, 499, 500, 502, 503, 599];

describe(`a service answering one request with a status it was not expected to (seed ${SEED})`, () => {
  const service = useRewritingService();

  it.each(Array.from({ length: 12 }, (_, index) => index))('case %i: a result or a clear error, never an internal one', async (index) => {
    const draw = seededRandom(SEED * 11 + index);
    const args = COMMANDS[Math.floor(draw() * COMMANDS.length)] as string[];
    const status = STATUSES[Math.floor(draw() * STATUSES.length)] as number;
    // The n-th request of the command, among its first few: a read, or a write once the reads are done.
    const nth = Math.floor(draw() * 6);
    const { dir, env } = await service.example();
    let seen = 0;
    service.proxy.rewrite = (_request, text) => (seen++ === nth ? { status, text: draw() < 0.5 ? '' : text } : text);
    expectClearOutcome(await runCliInProcess(args, { cwd: dir, env }), `${args.join(' ')} (request ${nth + 1} answered ${status})`);
  });
});
