/**
 * The recording of a test file: every exchange its tests made — the agent's turns, the judge's and
 * the simulated caller's model calls, the call records read back — in one JSON file beside it
 * (`front-desk.test.yaml` → `front-desk.recording.json`), for `voxform test --mode replay`.
 *
 * Reviewable: one exchange per entry, in a stable order (test name, target, run, then as they
 * happened), laid out as `JSON.stringify(…, null, 2)`, with what was said and what came back in
 * words. Each entry's `key` is the hash of everything that determines the answer (see
 * exchange-key.ts); the texts are written redacted, and the key never holds a text at all.
 *
 * A recording is a repository file, so it is read like every kept file (readKeptJson: size and JSON
 * budgets before parsing, and no key twice in one object: the copy a reviewer reads is the one used)
 * and checked entry by entry; one that fails is refused whole (`recording_invalid`), never half used.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { VoxformError } from '../../errors.js';
import { readKeptJson, writeKeptFile } from '../../project-files/kept-files.js';
import { MAX_KEPT_JSON_DEPTH } from '../../project-files/limits.js';
import { RECORDING_SUFFIX, TEST_FILE } from '../../project-files/manifest-files.js';

import { formatSize } from '../../util/size.js';
import { shorten } from '../../util/shorten.js';
import { isContentHash, isKeyedHash } from '../../util/hash.js';
import { isPlainObject } from '../../util/json-object.js';
import { isText, isWhole } from '../../util/json-shape.js';
import type { Target } from '../types.js';
import type { SentConfig } from './sent-config.js';

const RECORDING_FORMAT_VERSION = 1;

/** One recording file, bytes: a few thousand exchanges with their texts. */
const MAX_RECORDING_BYTES = 16 * 1024 * 1024;

/** The recordings one run reads together, bytes (as the test files have their own cap per run). */
export const MAX_RECORDING_BYTES_PER_RUN = 64 * 1024 * 1024;

/** JSON values in one recording: an exchange holds about a dozen, a tool call's arguments more. */
const MAX_RECORDING_JSON_VALUES = 2_000_000;

export type ExchangeKind = 'agent' | 'model' | 'call_record';

export interface AgentAnswer {
  reply: string;
  finish_reason: string | null;
}

export interface ModelAnswer {
  content: string | null;
}

export interface CallRecordAnswer {
  call_status: string | null;
  tool_calls: Array<{ name: string; params: unknown }>;
}

export interface RecordedExchange {
  test: string;
  target: Target;
  /** 1-based: the run of a repeated test. */
  run: number;
  /** The agent turns made when it happened (a judge's question on turn 2's reply is turn 2). */
  turn: number;
  kind: ExchangeKind;
  /** `sha256:` of what determines the answer (exchange-key.ts). */
  key: string;
  /** For the reviewer: the caller's message (agent), the last message asked (model); null when none. */
  asked: string | null;
  answer: AgentAnswer | ModelAnswer | CallRecordAnswer;
}

/** The configuration the tests named sent against desired when recorded (sent-config.ts); absent from older recordings. */
export interface RecordedSentConfig extends SentConfig {
  tests: string[];
}

/** `tests/front-desk.test.yaml` → `tests/front-desk.recording.json`. */
export function recordingPathOf(testFile: string): string {
  const base = path.basename(testFile).replace(TEST_FILE, '');
  return path.join(path.dirname(testFile), `${base}${RECORDING_SUFFIX}`);
}

/**
 * Refuses test files that would share one recording (`x.test.yaml` and `x.test.yml`, or names that
 * differ only in letter case, one file on a file system that ignores case): each run would overwrite
 * the other's, and replay would meet answers it never recorded.
 */
export function refuseSharedRecordings(testFiles: ReadonlyArray<{ path: string; display: string }>): void {
  const byRecording = new Map<string, string>();
  for (const { path: file, display } of testFiles) {
    const recording = recordingPathOf(file).toLowerCase();
    const other = byRecording.get(recording);
    if (other !== undefined && other !== display) {
      throw new VoxformError('recording_shared', `The test files ${other} and ${display} would share one recording, ${recordingPathOf(display)}; nothing was run.`, {
        hint: 'Rename one of them: a recording is named after its test file without `.test.yaml` or `.test.yml`, in any letter case.',
      });
    }
    byRecording.set(recording, display);
  }
}

const TARGETS = new Set<Target>(['desired', 'live']);
const KINDS = new Set<ExchangeKind>(['agent', 'model', 'call_record']);

const isTextOrNull = (value: unknown): value is string | null => value === null || isText(value);

/** The fields voxform writes in each object of a recording: any other was not written by voxform. */
const RECORDING_FIELDS = ['format_version', 'test_file', 'sent_configs', 'exchanges'];
const EXCHANGE_FIELDS = ['test', 'target', 'run', 'turn', 'kind', 'key', 'asked', 'answer'];
const ANSWER_FIELDS: Record<ExchangeKind, string[]> = { agent: ['reply', 'finish_reason'], model: ['content'], call_record: ['call_status', 'tool_calls'] };
const TOOL_CALL_FIELDS = ['name', 'params'];
const SENT_CONFIG_FIELDS = ['tests', 'key_id', 'fields'];

/** `an unknown field "…"` for the first field of `object` not among `fields`; undefined when none. */
function unknownFieldOf(object: Record<string, unknown>, fields: readonly string[]): string | undefined {
  const unknown = Object.keys(object).find((field) => !fields.includes(field));
  // Quoted as JSON: a hand-written name may hold anything, a control character included.
  return unknown === undefined ? undefined : `an unknown field ${JSON.stringify(shorten(unknown, 60))} (voxform writes ${fields.join(', ')})`;
}

function validAnswer(kind: ExchangeKind, answer: unknown): answer is Record<string, unknown> {
  if (!isPlainObject(answer)) return false;
  if (kind === 'agent') return isText(answer.reply) && isTextOrNull(answer.finish_reason);
  if (kind === 'model') return isTextOrNull(answer.content);
  return isTextOrNull(answer.call_status) && Array.isArray(answer.tool_calls) && answer.tool_calls.every((call) => isPlainObject(call) && isText(call.name));
}

function answerProblem(kind: ExchangeKind, answer: unknown): string | undefined {
  if (!validAnswer(kind, answer)) return `has an answer that is not a recorded ${kind} answer`;
  const unknownField = unknownFieldOf(answer, ANSWER_FIELDS[kind]);
  if (unknownField) return `has an answer with ${unknownField}`;
  if (kind !== 'call_record') return undefined;
  for (const [index, call] of (answer.tool_calls as Array<Record<string, unknown>>).entries()) {
    const unknownCallField = unknownFieldOf(call, TOOL_CALL_FIELDS);
    if (unknownCallField) return `has an answer whose tool_calls[${index}] has ${unknownCallField}`;
  }
  return undefined;
}

/** Why an entry is not an exchange; undefined when it is one. */
function problemOf(entry: unknown): string | undefined {
  if (!isPlainObject(entry)) return 'is not an object';
  const unknownField = unknownFieldOf(entry, EXCHANGE_FIELDS);
  if (unknownField) return `has ${unknownField}`;
  if (!isText(entry.test)) return 'has no test name';
  if (!TARGETS.has(entry.target as Target)) return 'has no target (desired or live)';
  if (!isWhole(entry.run) || entry.run < 1) return 'has no run number';
  if (!isWhole(entry.turn)) return 'has no turn number';
  if (!KINDS.has(entry.kind as ExchangeKind)) return 'has no kind (agent, model or call_record)';
  if (!isContentHash(entry.key)) return 'has no key';
  if (!isTextOrNull(entry.asked)) return 'has an "asked" that is not text';
  return answerProblem(entry.kind as ExchangeKind, entry.answer);
}

function sentConfigProblem(entry: unknown): string | undefined {
  if (!isPlainObject(entry)) return 'is not an object';
  const unknownField = unknownFieldOf(entry, SENT_CONFIG_FIELDS);
  if (unknownField) return `has ${unknownField}`;
  if (!Array.isArray(entry.tests) || !entry.tests.every(isText)) return 'has no list of tests';
  if (!isKeyedHash(entry.key_id)) return 'has no key_id';
  if (!isPlainObject(entry.fields) || !Object.values(entry.fields).every(isKeyedHash)) return 'has fields that are not fingerprints';
  return undefined;
}

/** A recording voxform did not write as it is (`recording_invalid`): `why` follows its name. */
export function recordingInvalid(display: string, why: string): VoxformError {
  return new VoxformError('recording_invalid', `The recording ${display} ${why}.`, {
    hint: 'Record it again with `voxform test --mode record` (or delete it); recordings are written by voxform, not by hand (docs/testing.md, Record and replay).',
  });
}

/**
 * The recorded exchanges of a test file (its recording beside it, recordingPathOf), or undefined when
 * it has no recording. `bytesLeft` is what the run's recordings may still read together; the bytes
 * read are returned to count against it.
 */
export async function readRecording(testFile: { path: string; display: string }, bytesLeft: number): Promise<{ exchanges: RecordedExchange[]; sentConfigs: RecordedSentConfig[]; bytes: number } | undefined> {
  const file = recordingPathOf(testFile.path);
  const display = recordingPathOf(testFile.display);
  const maxBytes = Math.min(MAX_RECORDING_BYTES, bytesLeft);
  const kept = await readKeptJson(file, { maxBytes, maxValues: MAX_RECORDING_JSON_VALUES, maxDepth: MAX_KEPT_JSON_DEPTH, uniqueKeys: true });
  if (!kept.found) return undefined;
  if (!kept.ok) {
    if (maxBytes < MAX_RECORDING_BYTES && kept.problem.includes('the limit is')) {
      throw new VoxformError('test_run_too_large', `${display} takes the recordings of this run past ${formatSize(MAX_RECORDING_BYTES_PER_RUN)} together (the cap per run). No test was run.`, {
        hint: 'Run fewer test files at once (--agent, or name the files).',
      });
    }
    throw recordingInvalid(display, kept.problem);
  }
  const value = kept.value;
  if (!isPlainObject(value) || value.format_version !== RECORDING_FORMAT_VERSION || !Array.isArray(value.exchanges)) {
    throw recordingInvalid(display, `is not a recording of format_version ${RECORDING_FORMAT_VERSION} (an object with "exchanges")`);
  }
  const unknownField = unknownFieldOf(value, RECORDING_FIELDS);
  if (unknownField) throw recordingInvalid(display, `is not valid: it has ${unknownField}`);
  // As writeRecording writes it: a recording moved beside another test file answers another file's tests.
  const testFileName = path.basename(testFile.path);
  if (value.test_file !== testFileName) throw recordingInvalid(display, `is not valid: its test_file is not ${JSON.stringify(testFileName)}, the test file it is beside`);
  for (const [index, entry] of value.exchanges.entries()) {
    const problem = problemOf(entry);
    if (problem) throw recordingInvalid(display, `is not valid: exchanges[${index}] ${problem}`);
  }
  const sentConfigs = value.sent_configs ?? [];
  if (!Array.isArray(sentConfigs)) throw recordingInvalid(display, 'is not valid: sent_configs is not a list');
  for (const [index, entry] of sentConfigs.entries()) {
    const problem = sentConfigProblem(entry);
    if (problem) throw recordingInvalid(display, `is not valid: sent_configs[${index}] ${problem}`);
  }
  // Counted as the file's size: what was read (a file swapped since is no larger than its own cap).
  const bytes = await stat(file).then((info) => info.size, () => maxBytes);
  return { exchanges: value.exchanges as RecordedExchange[], sentConfigs: sentConfigs as RecordedSentConfig[], bytes };
}

const TARGET_ORDER: Record<Target, number> = { live: 0, desired: 1 };

/** The stable order of a recording: test name, target, run, then as they happened (the array's order within a run). */
export function sortExchanges(exchanges: readonly RecordedExchange[]): RecordedExchange[] {
  return exchanges
    .map((exchange, index) => ({ exchange, index }))
    .sort((a, b) => {
      const x = a.exchange;
      const y = b.exchange;
      if (x.test !== y.test) return x.test < y.test ? -1 : 1;
      if (x.target !== y.target) return TARGET_ORDER[x.target] - TARGET_ORDER[y.target];
      if (x.run !== y.run) return x.run - y.run;
      return a.index - b.index;
    })
    .map(({ exchange }) => exchange);
}

/** Writes the recording whole or not at all; `redact` scrubs it once more as a whole (a text may hold a secret in any part). */
export async function writeRecording(
  file: string,
  testFile: string,
  recorded: { exchanges: readonly RecordedExchange[]; sentConfigs: readonly RecordedSentConfig[] },
  redact: (text: string) => string,
): Promise<void> {
  const sentConfigs = recorded.sentConfigs.map((sent) => ({ tests: [...sent.tests].sort(), key_id: sent.key_id, fields: sent.fields })).sort((a, b) => ((a.tests[0] ?? '') < (b.tests[0] ?? '') ? -1 : 1));
  const document = {
    format_version: RECORDING_FORMAT_VERSION,
    test_file: path.basename(testFile),
    // Left out when none (a run against live only): such a recording reads as it did before.
    ...(sentConfigs.length > 0 ? { sent_configs: sentConfigs } : {}),
    exchanges: sortExchanges(recorded.exchanges),
  };
  await writeKeptFile(file, redact(`${JSON.stringify(document, null, 2)}\n`));
}
