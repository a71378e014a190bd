/**
 * Conversation tests, checked: what the loader makes of a test file (`tests/**\/*.test.yaml`) and
 * what the runner reports. The file as written is the generated `TestFile` type; these are the
 * normalized forms (defaults filled in, regular expressions compiled, positions kept).
 */
import type { SourceLocation } from '../errors.js';
import type { AgentConfigUpdate } from '../schema/types.gen.js';

/** A check on one reply of the agent. `contains` and `not_contains` ignore case. */
export type ReplyCheck =
  | { kind: 'contains' | 'not_contains' | 'equals'; text: string }
  | { kind: 'regex'; pattern: RegExp }
  | { kind: 'judge'; rubric: string };

/** What one argument of a tool call must be. */
export type ArgExpectation = { kind: 'exact'; value: unknown } | { kind: 'regex'; pattern: RegExp } | { kind: 'judge'; rubric: string };

/** A check on the call record once the session ended. */
export type CallCheck =
  | { kind: 'tool_called'; tool: string; args: Record<string, ArgExpectation> | undefined }
  /** The calls made, in order, are exactly these. */
  | { kind: 'tool_calls'; calls: Array<{ tool: string; args: Record<string, ArgExpectation> | undefined }> }
  | { kind: 'tool_not_called'; tool: string }
  | { kind: 'call_status'; status: string }
  | { kind: 'judge'; rubric: string };

export interface ScriptedTurn {
  /** Undefined: no message (the agent's greeting). */
  user: string | undefined;
  checks: ReplyCheck[];
}

export interface SimulatedCaller {
  persona: string;
  goal: string;
  maxTurns: number;
}

export interface ConversationTest {
  name: string;
  /** Where the test is written (its `name:`), for reports and JUnit. */
  location: SourceLocation;
  /** Exactly one of `turns` and `simulate` is set. */
  turns: ScriptedTurn[] | undefined;
  simulate: SimulatedCaller | undefined;
  expect: CallCheck[];
  /** `mock_tools:`: each named tool's fixed answer (any JSON value), answered instead of its webhook. */
  mockTools?: Record<string, unknown> | undefined;
  repeat: number;
  passRate: number;
  /** Whether anything in the test needs the judge model (a `judge:` check or a simulated caller). */
  needsModel: boolean;
}

export interface TestFile {
  /** Absolute path. */
  path: string;
  /** As reports show it: relative to the working directory, with `/`. */
  display: string;
  /** `sha256:` of the bytes read: which version of the file a run used (the evidence of `voxform promote`). */
  contentHash: string;
  /** The agent's local name in the manifest. */
  agent: string;
  metadata: Record<string, unknown> | undefined;
  includeMetadataInPrompt: boolean | undefined;
  tests: ConversationTest[];
}

/** Which configuration a run talks to: the one under review (what apply would send) or the live one. */
export type Target = 'desired' | 'live';
/** Every target, each once: what a run's `targets` choose from. */
export const TARGETS = ['desired', 'live'] as const satisfies readonly Target[];

export type CheckStatus = 'passed' | 'failed' | 'skipped' | 'error';

/** The outcome of one check in one run. */
export interface CheckResult {
  /** `contains "9"`, `judge: Gives Saturday's hours`, `tool_called find_slots`. */
  check: string;
  /** The turn (1-based) a reply check belongs to; undefined for checks on the call record. */
  turn: number | undefined;
  status: CheckStatus;
  /** Why it failed, was skipped or errored; for a judge, its reason (also when passed). */
  detail: string | undefined;
  /**
   * `caller_words`: a passed reply check whose text the caller said earlier in the same
   * conversation — an agent (or the emulator) echoing the caller meets it, so it proves little.
   */
  flag?: 'caller_words' | undefined;
}

export interface TranscriptMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** One run of a test against one target. */
export interface RunResult {
  status: CheckStatus;
  transcript: TranscriptMessage[];
  checks: CheckResult[];
  /** Tool calls recorded on the call record, when it was read. */
  toolCalls: Array<{ name: string; params: unknown }> | undefined;
  /** What went wrong when the run could not complete (status `error`). */
  error: string | undefined;
  /** Replaying, the recording had no answer for a request of this run (status `error`, src/conversations/recordings/). */
  notRecorded?: boolean;
  durationMs: number;
}

/** A test's verdict against one target, over its runs. */
export interface TestVerdict {
  status: CheckStatus;
  passes: number;
  /** Runs that counted (skipped runs excluded). */
  runs: number;
  passRate: number;
  results: RunResult[];
}

export interface TestReport {
  file: string;
  agent: string;
  name: string;
  location: SourceLocation;
  verdicts: Partial<Record<Target, TestVerdict>>;
}

/** How a test's verdict changed from live to desired (only with `--against both`). */
export type BehaviourChange = 'newly_failing' | 'newly_passing' | 'unchanged' | 'not_compared';

export interface TestRunSummary {
  /** Per target: tests that met their pass rate, that did not, that were skipped, that errored. */
  passed: number;
  failed: number;
  skipped: number;
  errors: number;
}

/** A test's verdict in an earlier run's JSON result (`--baseline`, baseline.ts). */
export interface BaselineVerdict {
  status: CheckStatus;
  passes: number;
  runs: number;
}

/** A test that got worse than in the baseline: newly failing, or a pass rate that dropped. */
export interface Regression {
  report: TestReport;
  target: Target;
  change: 'newly_failing' | 'rate_dropped';
  before: BaselineVerdict | undefined;
}

export interface BaselineComparison {
  /** As the operator named it. */
  file: string;
  regressions: Regression[];
}

/** Everything a `voxform test` run found; renderers turn it into text, JSON, JUnit or Markdown. */
export interface TestRun {
  against: Target[];
  reports: TestReport[];
  /** With both targets: each test whose verdict changed, newly failing first. */
  changes: Array<{ report: TestReport; change: Exclude<BehaviourChange, 'unchanged' | 'not_compared'> }>;
  summary: Partial<Record<Target, TestRunSummary>>;
  /** With `--baseline`: the tests that got worse than in the earlier result (baseline.ts). */
  baseline?: BaselineComparison | undefined;
  /**
   * Against desired without `withSecrets`: each agent whose configuration under test named URLs
   * the live agent does not call, and those places (dotted); the run sent them to the sink instead.
   */
  sinked?: Array<{ agent: string; places: string[] }> | undefined;
  durationMs: number;
}

/** An agent a test file names: its id, and what `--against desired` sends (see agent-config.ts). */
export interface AgentUnderTest {
  id: string;
  desiredConfig: AgentConfigUpdate;
  /**
   * The configuration hash of what each target talks to (src/history/config-hash.ts), keying its
   * recorded exchanges (src/conversations/recordings/): desired, the manifests' config; live, the live config.
   */
  configHashes?: Partial<Record<Target, string>> | undefined;
  /** Places in `desiredConfig` whose URL the live agent does not call, sent to the sink for this run (src/secrets/sink.ts). */
  sinkedTargets?: readonly string[] | undefined;
  /**
   * `desiredConfig` with its secrets withheld, as a recording fingerprints it (`--mode auto`): sent
   * `--with-secrets`, the config holds them, and a fingerprint keyed with `--local`'s key, which the
   * checkout holds, could be tested against guesses. Unset: `desiredConfig` holds none.
   */
  fingerprintedConfig?: AgentConfigUpdate | undefined;
}
