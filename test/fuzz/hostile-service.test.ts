/**
 * A service whose answers are of another shape than documented: the emulator behind a proxy that
 * changes seeded parts of its JSON answers and stream events (a field dropped, null, another type,
 * a list item repeated, text with controls or workflow commands appended, nesting thousands deep).
 * Every command that reads the service (apply and drift --heal too) must end with a result or a clear error (exit 0, 1 or 2),
 * never an internal error or a stack trace, and print no raw control character. What broke once: a
 * null phone, an agent name that was no text, knowledge files that were no list, a null stream
 * chunk, a deeply nested answer. The seed is in the test name; VOXFORM_FUZZ_SEED repeats a run.
 */
import { describe, it } from 'vitest';
import { seededRandom } from '../../src/util/seeded-random.js';
import { runCliInProcess } from '../helpers/cli.js';
import { changedAnswer, expectClearOutcome, mutator } from '../helpers/mutate-json.js';
import { useRewritingService } from '../helpers/rewriting-proxy.js';

const SEED = Number(process.env.VOXFORM_FUZZ_SEED ?? 20_261_205);
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
