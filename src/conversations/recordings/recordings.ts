/**
 * `voxform test --mode record|replay|auto`: each run of a test talks to the agent and the model
 * through these wrappers. Recording, every exchange goes on to the service or model and its answer
 * is noted (redacted) for the test file's recording; replaying, every answer comes from the
 * recording, and nothing is sent anywhere — a request it does not hold is `not_recorded`, the run's
 * error (never a pass); auto replays and, for a run the recording does not cover or whose
 * configuration sent changed since (sent-config.ts), runs it live.
 */
import { stat } from 'node:fs/promises';
import { isVoxformError, VoxformError } from '../../errors.js';
import { describeWriteFailure, findWriteObstacle } from '../../util/atomic-write.js';
import type { AgentChannel } from '../agent-channel.js';
import type { TestFile, TestRun } from '../types.js';
import type { CompletionModel, ModelAnswer as ChatAnswer } from '../../model/chat-model.js';
import { redactStrings, type Redact } from '../../secrets/redact.js';
import { exchangeKey, type RunIdentity } from './exchange-key.js';
import {
  MAX_RECORDING_BYTES_PER_RUN,
  readRecording,
  recordingInvalid,
  recordingPathOf,
  refuseSharedRecordings,
  writeRecording,
  type AgentAnswer,
  type CallRecordAnswer,
  type ExchangeKind,
  type ModelAnswer,
  type RecordedExchange,
  type RecordedSentConfig,
} from './recording-file.js';
import { changedFields, sentConfigOf, type SentConfig } from './sent-config.js';
import { canonicalJson } from '../../util/hash.js';
import { printable } from '../../util/printable.js';
import { plural } from '../../util/plural.js';
import { isJudgeRequest } from '../judge.js';
import { requireOptions } from '../../util/required-options.js';
import { addToList } from '../../util/map-lists.js';

export const TEST_MODES = ['live', 'record', 'replay', 'auto'] as const;
export type TestMode = (typeof TEST_MODES)[number];

/** What one run talks to: the agent, and the judge and caller model (undefined with --skip-judge). */
export interface ConversationIO {
  channel: AgentChannel;
  model: CompletionModel | undefined;
}

export interface RecordingsOptions {
  mode: Exclude<TestMode, 'live'>;
  /** The run's secrets hidden (the CLI's registry): every text recorded, and every key, passes it. */
  redact: Redact;
  /** The judge model's name (VOXFORM_JUDGE_MODEL): part of every model exchange's key. */
  modelName: string;
  /** Replaying: whether judge checks and simulated callers are answered from the recording (not with --skip-judge). */
  judge: boolean;
  /**
   * Recording: every test each file has (by the file's path), `--grep` and `--agent` aside, so the
   * exchanges of a test removed from its file are dropped from the recording.
   */
  testNames?: ReadonlyMap<string, ReadonlySet<string>> | undefined;
}

/** A recording's answers by key. */
type Answers = Map<string, RecordedExchange>;

interface FileRecording {
  testFile: TestFile;
  /** Whether the recording file exists: a replay of a file never recorded says so, not what the recording lacks. */
  found: boolean;
  /** As read (replay, auto; record keeps those of the tests it does not run again). */
  previous: RecordedExchange[];
  /** Made from `previous` at the first miss: what a `not_recorded` error says the recording lacks. */
  held?: RecordedRuns;
  /** The configurations sent against desired as read, and (record) those this run sent, by test. */
  previousSent: RecordedSentConfig[];
  sent: Map<string, SentConfig>;
  answers: Answers;
  /** Recorded in this run, by run (`test\0target\0run`), each run's in the order they happened. */
  made: Map<string, RecordedExchange[]>;
}

export class Recordings {
  readonly mode: RecordingsOptions['mode'];
  readonly #options: RecordingsOptions;
  readonly #files = new Map<string, FileRecording>();
  /** auto: by test file, why its runs against desired ran live (the fields whose configuration changed) or could not tell. */
  readonly #changed = new Map<string, Set<string>>();
  readonly #untold = new Map<string, string>();

  private constructor(options: RecordingsOptions) {
    this.mode = options.mode;
    this.#options = options;
  }

  /** Reads the recordings of `files` (those there are), within the run's budget of recording bytes. */
  static async open(files: readonly TestFile[], options: RecordingsOptions): Promise<Recordings> {
    requireOptions('Recordings.open', options, { mode: 'text', redact: 'function', modelName: 'text', judge: 'boolean' });
    refuseSharedRecordings(files);
    if (options.mode === 'record' && !options.judge) refuseRecordingWithoutJudge(files);
    if (options.mode === 'record') await refuseUnwritableRecordings(files);
    const recordings = new Recordings(options);
    let bytesLeft = MAX_RECORDING_BYTES_PER_RUN;
    for (const testFile of files) {
      const read = await readRecording(testFile, bytesLeft).catch((error: unknown) => {
        // Recording replaces a recording voxform cannot use; replaying refuses it.
        if (options.mode === 'record' && isVoxformError(error) && error.code === 'recording_invalid') return undefined;
        throw error;
      });
      bytesLeft -= read?.bytes ?? 0;
      const previous = read?.exchanges ?? [];
      const answers = new Map(previous.map((exchange) => [exchange.key, exchange]));
      recordings.#files.set(testFile.path, { testFile, found: read !== undefined, previous, answers, made: new Map(), previousSent: read?.sentConfigs ?? [], sent: new Map() });
    }
    return recordings;
  }

  /** What a run talks to in this mode; `live` is the service and model themselves. */
  forRun(file: TestFile, run: RunIdentity, live: ConversationIO): ConversationIO {
    const recording = this.#files.get(file.path);
    if (!recording) throw new Error(`Recordings.forRun(): ${file.display} was not opened`); // open() had every file
    const turns = { made: 0 };
    if (this.mode === 'record') {
      const made: RecordedExchange[] = [];
      recording.made.set(`${run.test}\0${run.target}\0${run.run}`, made);
      return recordingIO(live, { run, turns, made, options: this.#options });
    }
    const held = () => (recording.held ??= new RecordedRuns(recording.previous));
    return replayIO(run, { turns, answers: recording.answers, held, options: this.#options, recordingName: recordingPathOf(file.display), found: recording.found });
  }

  /**
   * Before a run against desired: recording, notes the configuration it sends (by its fields'
   * keyed hashes, sent-config.ts); auto, whether it differs from the one the recording was made
   * with — true: the run goes live (noted for `notes()`). Without a fingerprint key (a library
   * run), or replaying, nothing is noted and nothing differs.
   */
  sendsChangedConfig(file: TestFile, test: string, config: unknown, fingerprintKey: string | undefined): boolean {
    const recording = this.#files.get(file.path);
    if (!recording || fingerprintKey === undefined || this.mode === 'replay') return false;
    const now = sentConfigOf(config, fingerprintKey);
    if (this.mode === 'record') {
      recording.sent.set(test, now);
      return false;
    }
    if (!recording.previous.some((exchange) => exchange.test === test && exchange.target === 'desired')) return false; // not recorded: runs live anyway
    const recorded = recording.previousSent.find((sent) => sent.tests.includes(test));
    const changed = changedFields(recorded, now);
    if (changed === undefined) {
      this.#untold.set(file.display, recorded ? 'with another API key' : 'before recordings kept it');
      return false;
    }
    if (changed.length === 0) return false;
    const fields = this.#changed.get(file.display) ?? new Set<string>();
    for (const field of changed) fields.add(field);
    this.#changed.set(file.display, fields);
    return true;
  }

  /** auto: what the report says of the runs against desired that went live for a changed configuration, and of recordings that cannot tell. */
  notes(): string[] {
    const changed = [...this.#changed].map(([file, fields]) =>
      `note: --mode auto ran the tests of ${printable(file)} against desired live: the configuration sent to its agent changed since ${printable(recordingPathOf(file))} was recorded (the live agent's or the manifests'), at ${[...fields].map(printable).join(', ')}; record again to replay them.`);
    const untold = [...this.#untold].map(([file, why]) =>
      `note: --mode auto cannot tell whether the live agent changed since ${printable(recordingPathOf(file))} was recorded (it was recorded ${why}): what it covers is replayed as recorded; record again to let auto tell.`);
    return [...changed, ...untold];
  }

  /**
   * Recording: writes each test file's recording (its other tests' exchanges kept), each whole or
   * not at all, once `run` has ended; the lines that say what was written. A test whose runs against
   * a target ended in error (the service or the judge failed) keeps its earlier recording against it:
   * its exchanges stop where the error cut the run short, and would replace a whole recording with a
   * part of one. A file none of whose tests recorded anything anew is not written.
   */
  async save(run: Pick<TestRun, 'reports'>): Promise<string[]> {
    if (this.mode !== 'record') return [];
    const lines: string[] = [];
    const written: string[] = [];
    for (const recording of this.#files.values()) {
      if (recording.made.size === 0) continue;
      const errored = new Set(
        run.reports
          .filter((report) => report.file === recording.testFile.display)
          .flatMap((report) => Object.entries(report.verdicts).flatMap(([target, verdict]) => (verdict?.status === 'error' ? [`${report.name}\0${target}`] : []))),
      );
      const testTarget = (key: string) => key.split('\0').slice(0, 2).join('\0');
      const rerun = new Set([...recording.made.keys()].map(testTarget).filter((key) => !errored.has(key)));
      const names = this.#options.testNames?.get(recording.testFile.path);
      const kept = recording.previous.filter((exchange) => !rerun.has(`${exchange.test}\0${exchange.target}`) && (names === undefined || names.has(exchange.test)));
      const made = [...recording.made].filter(([key]) => rerun.has(testTarget(key))).flatMap(([, exchanges]) => exchanges);
      for (const test of recording.sent.keys()) if (!rerun.has(`${test}\0desired`)) recording.sent.delete(test);
      const keptErrors = new Set([...errored].map((key) => key.split('\0')[0])).size;
      const display = recordingPathOf(recording.testFile.display);
      const keptNote = keptErrors > 0 ? `kept the earlier recording of ${plural(keptErrors, 'test')} that ended in error` : '';
      if (rerun.size === 0 && kept.length === recording.previous.length) {
        lines.push(`Left ${display} as it was: ${keptNote}.`);
        continue;
      }
      const exchanges = [...kept, ...made];
      const sentConfigs = keptSentConfigs(recording, (test) => !rerun.has(`${test}\0desired`) && (names === undefined || names.has(test)));
      try {
        await writeRecording(recordingPathOf(recording.testFile.path), recording.testFile.path, { exchanges, sentConfigs }, this.#options.redact);
      } catch (error) {
        throw new VoxformError('report_write_failed', `Cannot write the recording ${display}: ${describeWriteFailure(error)}; the tests ran, and no report was written${written.length > 0 ? ` (written before it: ${written.join(', ')})` : ''}.`, {
          hint: 'Make the test files\' folder writable, and record again.',
        });
      }
      written.push(display);
      lines.push(`Recorded ${display}${keptNote ? ` (${keptNote})` : ''}.`);
    }
    return lines;
  }
}

/**
 * Recording without the judge (`--skip-judge`): refused before anything runs when a test asks the
 * judge or a simulated caller, whose exchanges the run would not make: a recording holds every
 * exchange its tests make, and the tests' earlier answers would be dropped for none.
 */
function refuseRecordingWithoutJudge(files: readonly TestFile[]): void {
  const needing = files.flatMap((file) => file.tests.filter((test) => test.needsModel).map((test) => printable(`${file.display} › ${test.name}`)));
  if (needing.length === 0) return;
  throw new VoxformError('invalid_argument', `--mode record cannot skip the judge (--skip-judge): ${plural(needing.length, 'test')} ${needing.length === 1 ? 'asks' : 'ask'} it or a simulated caller, and a recording holds every exchange its tests make; first: ${needing[0]}. No test was run.`, {
    hint: 'Record with the judge configured (VOXFORM_JUDGE_URL), or leave those tests out with --grep or --agent.',
  });
}

/**
 * Recording: refuses, before any conversation starts (as `--out` is checked), a recording that could
 * not be written at the end — a folder at its path, a folder that takes no file — so a run is not
 * paid for only to be thrown away.
 */
async function refuseUnwritableRecordings(files: readonly TestFile[]): Promise<void> {
  for (const testFile of files) {
    const file = recordingPathOf(testFile.path);
    const obstacle = await findWriteObstacle(file);
    if (obstacle === undefined) continue;
    const display = recordingPathOf(testFile.display);
    const isFolder = (await stat(file).catch(() => undefined))?.isDirectory() === true;
    throw new VoxformError('report_write_failed', `Cannot write the recording ${display}: ${obstacle}; no test was run.`, {
      hint: isFolder ? `Remove or rename the folder ${display}, where voxform writes the recording of ${testFile.display}, and record again.` : 'Make the test files\' folder writable, and record again.',
    });
  }
}

/** The configurations sent to keep in a recording: those read, for the tests `keep` keeps, and those this run sent. */
function keptSentConfigs(recording: FileRecording, keep: (test: string) => boolean): RecordedSentConfig[] {
  const kept = recording.previousSent.map((sent) => ({ ...sent, tests: sent.tests.filter(keep) })).filter((sent) => sent.tests.length > 0);
  for (const [test, sent] of recording.sent) {
    const same = kept.find((other) => other.key_id === sent.key_id && canonicalJson(other.fields) === canonicalJson(sent.fields));
    if (same) same.tests.push(test);
    else kept.push({ ...sent, tests: [test] });
  }
  return kept;
}

interface Turns {
  /** Agent turns made so far in the run: where a model question belongs. */
  made: number;
}

const lastUserText = (messages: ReadonlyArray<{ role: string; content?: unknown }>): string | null => {
  const last = messages.at(-1);
  return last?.role === 'user' && typeof last.content === 'string' ? last.content : null;
};

/** The agent turn's request as keyed: everything but the config, which the run's agent hash stands for. */
function agentRequestKey(request: Parameters<AgentChannel['send']>[0]): unknown {
  const { agent_config: _config, ...agent } = request.agent;
  return { agent, messages: request.messages, end_of_session: request.end_of_session ?? false };
}

function recordingIO(live: ConversationIO, context: { run: RunIdentity; turns: Turns; made: RecordedExchange[]; options: RecordingsOptions }): ConversationIO {
  const { run, turns, made, options } = context;
  const redact = options.redact;
  const note = (kind: ExchangeKind, request: unknown, asked: string | null, answer: RecordedExchange['answer']): void => {
    made.push({ test: run.test, target: run.target, run: run.run, turn: turns.made, kind, key: exchangeKey(run, kind, request, redact), asked: asked === null ? null : redact(asked), answer });
  };
  const channel: AgentChannel = {
    async send(request) {
      const answer = await live.channel.send(request);
      turns.made++;
      const recorded: AgentAnswer = { reply: redact(answer.reply), finish_reason: answer.finishReason ?? null };
      note('agent', agentRequestKey(request), lastUserText(request.messages), recorded);
      return answer;
    },
    async callRecord(query) {
      const record = await live.channel.callRecord(query);
      // A record not found is not recorded: the replay says "not recorded", as the live run's error is the service's.
      if (!record) return record;
      const toolCalls = record.toolCalls.map((call) => ({ name: redact(call.name), params: redactStrings(call.params ?? null, redact) }));
      note('call_record', { transcript: query.transcript }, null, { call_status: record.callStatus ?? null, tool_calls: toolCalls } satisfies CallRecordAnswer);
      return record;
    },
  };
  const model: CompletionModel | undefined = live.model && {
    async complete(messages, modelOptions) {
      const answer = await (live.model as CompletionModel).complete(messages, modelOptions);
      note('model', { model: options.modelName, messages, json: modelOptions?.json ?? false }, lastUserText(messages), { content: answer.content === null || answer.content === undefined ? null : redact(answer.content) } satisfies ModelAnswer);
      return answer;
    },
  };
  return { channel, model };
}

/**
 * What a recording holds of each test's runs, to say why a request missed: the runs recorded, and
 * what was asked at each turn of each run, by kind.
 */
class RecordedRuns {
  readonly #runs = new Map<string, number>();
  readonly #asked = new Map<string, Array<string | null>>();

  constructor(exchanges: readonly RecordedExchange[]) {
    for (const exchange of exchanges) {
      const test = `${exchange.test}\0${exchange.target}`;
      this.#runs.set(test, Math.max(this.#runs.get(test) ?? 0, exchange.run));
      const at = `${test}\0${exchange.run}\0${exchange.turn}\0${exchange.kind}`;
      addToList(this.#asked, at, exchange.asked);
    }
  }

  runs(run: RunIdentity): number {
    return this.#runs.get(`${run.test}\0${run.target}`) ?? 0;
  }

  /** What was asked at `turn` of the run, of `kind`; undefined when nothing was. */
  asked(run: RunIdentity, turn: number, kind: ExchangeKind): ReadonlyArray<string | null> | undefined {
    return this.#asked.get(`${run.test}\0${run.target}\0${run.run}\0${turn}\0${kind}`);
  }
}

/** A request the replay does not find: what it asked, and whether it is the judge's. */
interface Missed {
  kind: ExchangeKind;
  turn: number;
  asked: string | null;
  judge?: boolean;
}

/** Why the recording has no answer for `missed`, as far as the recording tells. */
function whyNotRecorded(run: RunIdentity, missed: Missed, held: RecordedRuns, modelName: string): string {
  const runs = held.runs(run);
  if (runs === 0) return `the recording has no run of this test against ${run.target}`;
  if (run.run > runs) return `run ${run.run} was not recorded: the recording has ${plural(runs, 'run')} of this test against ${run.target}`;
  const asked = held.asked(run, missed.turn, missed.kind);
  const sameAsked = asked?.includes(missed.asked) === true;
  if (missed.kind === 'agent') {
    if (!asked) return `the recorded run has no turn ${missed.turn}: the test's turns changed since it was recorded`;
    if (sameAsked) return "the request to the agent changed since it was recorded, its message aside: the agent's configuration, the test's mock_tools or the file's metadata";
    return `the message of turn ${missed.turn} changed since it was recorded`;
  }
  if (missed.kind === 'call_record') return "the conversation or the test's checks on its call record changed since it was recorded";
  if (sameAsked) return `the same question was recorded, asked of another ${missed.judge ? 'judge ' : ''}model than "${modelName}" (VOXFORM_JUDGE_MODEL)`;
  return missed.judge ? 'the rubric or the text judged changed since it was recorded' : "the caller's persona, goal or the conversation changed since it was recorded";
}

const WHAT: Record<ExchangeKind, string> = { agent: "agent's reply", model: "judge's or caller's answer", call_record: 'call record' };

function notRecorded(run: RunIdentity, missed: Missed, recordingName: string, why: string): VoxformError {
  const what = missed.kind === 'model' && missed.judge !== undefined ? (missed.judge ? "judge's answer" : "caller's answer") : WHAT[missed.kind];
  return notRecordedAt(run, missed.turn, `${recordingName} has no ${what} for this request — ${why}`, 'Record it again');
}

/** A request of a test file that has no recording at all: nothing of it was ever recorded. */
function neverRecorded(run: RunIdentity, turn: number, recordingName: string): VoxformError {
  return notRecordedAt(run, turn, `${recordingName} does not exist — record the tests of ${run.file} first (voxform test --mode record)`, 'Record them');
}

/** An exchange whose key is of another test, target or run than it says: not as voxform wrote it (`recording_invalid`). */
function relabelled(recordingName: string, found: RecordedExchange, run: RunIdentity): VoxformError {
  const says = `${JSON.stringify(found.test)} (${found.target}, run ${found.run})`;
  return recordingInvalid(recordingName, `is not valid: an exchange says it is of ${says}, but its key is of ${JSON.stringify(run.test)} (${run.target}, run ${run.run})`);
}

/** `Not recorded: FILE › "TEST", turn N (TARGET, run R): said.`, the hint naming the command that records. */
function notRecordedAt(run: RunIdentity, turn: number, said: string, record: string): VoxformError {
  return new VoxformError('not_recorded', `Not recorded: ${run.file} › "${run.test}", turn ${turn} (${run.target}, run ${run.run}): ${said}.`, {
    hint: `${record}: voxform test --mode record (with --agent or --grep for just these tests).`,
  });
}

function replayIO(run: RunIdentity, context: { turns: Turns; answers: Answers; held: () => RecordedRuns; options: RecordingsOptions; recordingName: string; found: boolean }): ConversationIO {
  const { turns, answers, held, options, recordingName } = context;
  const find = (request: unknown, missed: Missed): RecordedExchange['answer'] => {
    if (!context.found) throw neverRecorded(run, missed.turn, recordingName);
    const found = answers.get(exchangeKey(run, missed.kind, request, options.redact));
    // The key stands for the test, target and run; an exchange that says another was edited, and is
    // not what its reviewer reads: the recording is not voxform's.
    if (found && (found.test !== run.test || found.target !== run.target || found.run !== run.run)) throw relabelled(recordingName, found, run);
    if (found && found.kind === missed.kind) return found.answer;
    const asked = missed.asked === null ? null : options.redact(missed.asked);
    throw notRecorded(run, missed, recordingName, whyNotRecorded(run, { ...missed, asked }, held(), options.modelName));
  };
  const channel: AgentChannel = {
    async send(request) {
      const turn = turns.made + 1;
      const answer = find(agentRequestKey(request), { kind: 'agent', turn, asked: lastUserText(request.messages) }) as AgentAnswer;
      turns.made = turn;
      return { reply: answer.reply, sessionId: undefined, finishReason: answer.finish_reason };
    },
    async callRecord(query) {
      const answer = find({ transcript: query.transcript }, { kind: 'call_record', turn: turns.made, asked: null }) as CallRecordAnswer;
      return { callStatus: answer.call_status ?? undefined, toolCalls: answer.tool_calls };
    },
  };
  const model: CompletionModel | undefined = !options.judge ? undefined : {
    async complete(messages, modelOptions) {
      const missed: Missed = { kind: 'model', turn: turns.made, asked: lastUserText(messages), judge: isJudgeRequest(messages) };
      const answer = find({ model: options.modelName, messages, json: modelOptions?.json ?? false }, missed) as ModelAnswer;
      return { role: 'assistant', content: answer.content, refusal: null } as ChatAnswer;
    },
  };
  return { channel, model };
}
