/**
 * Test files → checked `TestFile`s, or every problem with file:line:col. The same machinery as
 * manifests: the YAML reader with positions, the diagnostics list with code frames, the schema
 * (schemas/tests.schema.json) compiled ahead of time. Test files are untrusted input: they are
 * inside the project, size-capped, name nothing on disk, and their regular expressions are compiled here (syntax) and
 * run later under a time budget (safe-regex.ts).
 */
import { VoxformError } from '../errors.js';
import { decodeUtf8 } from '../project-files/decode.js';
import { DiagnosticList } from '../manifest/diagnostics.js';
import { CheckoutFiles, readProjectFile, UNCOMMITTED_HINT } from '../project-files/checkout-files.js';
import { describeProjectRoot } from '../project-files/guarded-read.js';
import { manifestProjectRoot } from '../project-files/manifest-files.js';
import { formatSize } from '../util/size.js';
import { sha256 } from '../util/hash.js';
import { parseYaml } from '../manifest/parse-yaml.js';
import { spanAt } from '../manifest/positions.js';
import { isPlainObject } from '../util/json-object.js';
import { locationOf, SourceRegistry, type Span } from '../manifest/source.js';
import type { Diagnostic } from '../manifest/types.js';
import type { ConversationTest as WrittenTest, TestFile as WrittenFile } from '../schema/types.gen.js';
import type { SchemaIssue } from '../schema/issues.js';
import { validateAgainstTestsDef } from '../schema/validate-tests.js';
import { didYouMean } from '../util/did-you-mean.js';
import { judgeQuestions, MAX_TEST_BYTES_PER_RUN } from './budgets.js';
import { compileRegex } from '../util/safe-regex.js';
import { describeTestPlace, reportTestSchemaIssue } from './schema-issues.js';
import type { AgentToolNames } from './agent-config.js';
import type { ArgExpectation, CallCheck, ConversationTest, ReplyCheck, ScriptedTurn, TestFile } from './types.js';
import { requireOptions } from '../util/required-options.js';

/** Largest test file read: a bigger one is refused before it is read into memory. */
export const MAX_TEST_FILE_BYTES = 1024 * 1024;
/** Caller messages a simulated conversation has when `max_turns` is not given. */
const DEFAULT_MAX_TURNS = 10;

export interface LoadTestsOptions {
  files: readonly string[];
  cwd: string;
  /**
   * The operator's environment (default: `process.env`): in a CI job (`CI` set) only test files the
   * commit under review holds are read (docs/security.md §3).
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The manifests the tests are for, as findTestFiles takes them (the files read, or the files and
   * folders named with -f): the test files must lie inside their project root (manifestProjectRoot).
   * Default: the default manifest in `cwd`.
   */
  manifests?: readonly string[];
  /** Local names of the manifest's agents: a test file must name one of them. */
  agents: ReadonlySet<string>;
  /** The tool names each agent's tests may give, where the manifests fix them (`toolNamesOf`). */
  toolsOf?: (agent: string) => AgentToolNames | undefined;
}

export interface LoadTestsResult {
  /** Present only when there are no errors. */
  files: TestFile[] | undefined;
  diagnostics: Diagnostic[];
}

export async function loadTestFiles(options: LoadTestsOptions): Promise<LoadTestsResult> {
  requireOptions('loadTestFiles', options, { files: 'list', cwd: 'text', agents: 'object' });
  const diagnostics = new DiagnosticList();
  const sources = new SourceRegistry(options.cwd);
  const loaded: TestFile[] = [];
  // Test files are the pull request author's, like manifests: inside the project, regular files, capped.
  const root = await manifestProjectRoot(options.manifests ?? [], options.cwd);
  const checkout = CheckoutFiles.forRun(options.env ?? process.env);
  let bytes = 0;
  for (const file of options.files) {
    const outcome = await readProjectFile(file, { root, maxBytes: MAX_TEST_FILE_BYTES }, checkout);
    if (!outcome.ok && outcome.reason === 'too_large') {
      throw new VoxformError('test_file_too_large', `${sources.display(file)} ${outcome.message}.`, {
        hint: 'Split it into several *.test.yaml files.',
      });
    }
    if (!outcome.ok && outcome.reason === 'outside') {
      throw new VoxformError('tests_unreadable', `${sources.display(file)} is outside the project, whose root is ${await describeProjectRoot(root, options.cwd)}.`, {
        hint: 'Test files are read only inside the project of the manifest (the first -f, when several are named): move it into that project, or run its own project\'s tests apart, naming that project\'s manifest first with -f.',
      });
    }
    if (!outcome.ok) {
      const hint = outcome.reason === 'uncommitted' ? UNCOMMITTED_HINT : 'Check its path and permissions; keep test files inside the project.';
      throw new VoxformError('tests_unreadable', `${sources.display(file)} ${outcome.message}.`, { hint });
    }
    bytes += outcome.bytes.length;
    if (bytes > MAX_TEST_BYTES_PER_RUN) {
      throw new VoxformError('test_run_too_large', `${sources.display(file)} takes the test files of this run past ${formatSize(MAX_TEST_BYTES_PER_RUN)} together (the cap per run). No test was run.`, {
        hint: 'Run the tests in several runs, each naming its files or folders (voxform test PATH…); docs/testing.md, Budgets.',
      });
    }
    const { text, problem } = decodeUtf8(outcome.bytes);
    if (problem !== undefined) {
      const source = sources.forText(file, text);
      diagnostics.error('file_not_utf8', `${source.display} ${problem.message}`, { source, start: problem.at, end: problem.at + 1 });
      continue;
    }
    const source = sources.forYaml(file, text);
    const fileStart: Span = { source, start: 0, end: 0 };
    const parsed = await parseYaml(source, diagnostics);
    const documents = parsed.documents.filter((doc) => doc.value !== null);
    if (parsed.syntaxErrors) continue;
    if (documents.length !== 1) {
      diagnostics.error(documents.length === 0 ? 'empty_file' : 'invalid_value', `${source.display} must hold exactly one YAML document (agent, tests)`, documents[1]?.span ?? fileStart);
      continue;
    }
    const value = (documents[0] as { value: unknown }).value;
    const checked = checkTestFile(value, documents[0]?.span ?? fileStart, options, diagnostics);
    if (checked) loaded.push({ ...checked, path: file, display: source.display, contentHash: sha256(outcome.bytes) });
  }
  return { files: diagnostics.hasErrors ? undefined : loaded, diagnostics: diagnostics.toList() };
}

function checkTestFile(value: unknown, span: Span, options: Pick<LoadTestsOptions, 'agents' | 'toolsOf'>, diagnostics: DiagnosticList): Omit<TestFile, 'path' | 'display' | 'contentHash'> | undefined {
  const { agents } = options;
  if (!isPlainObject(value)) {
    diagnostics.error('not_a_mapping', 'a test file is a mapping with agent and tests', span);
    return undefined;
  }
  const before = diagnostics.errors;
  if (typeof value.agent === 'string' && !agents.has(value.agent)) {
    const suggestion = didYouMean(value.agent, agents, diagnostics.suggestions);
    const known = [...agents].join(', ') || 'none';
    diagnostics.error('reference_missing', `agent "${value.agent}" is not an agent of the manifest${suggestion ? `; did you mean "${suggestion}"?` : ` (agents: ${known})`}`, spanAt(value, ['agent']) ?? span);
  }
  const issues = validateAgainstTestsDef('TestFile', value);
  for (const issue of issues) reportTestSchemaIssue(issue, value, span, diagnostics);
  // The rules the schema cannot express run past schema errors too, on every test that is a mapping
  // and every check the schema found nothing wrong with: one run names every mistake. What they
  // build is used only when the file has no error at all (then it has the schema's shape).
  checkAcrossTests(value, span, diagnostics);
  const tools = typeof value.agent === 'string' && agents.has(value.agent) ? options.toolsOf?.(value.agent) : undefined;
  if (tools) checkToolNames(value, value.agent as string, tools, diagnostics);
  const tests: ConversationTest[] = [];
  (Array.isArray(value.tests) ? value.tests : []).forEach((test: unknown, index) => {
    if (isPlainObject(test)) tests.push(checkTest(test, { root: value, at: ['tests', index], fallback: span, diagnostics, issues }));
  });
  if (diagnostics.errors > before) return undefined;
  const written = value as unknown as WrittenFile;
  return { agent: written.agent, metadata: written.metadata, includeMetadataInPrompt: written.include_metadata_in_prompt, tests };
}

interface Place {
  root: unknown;
  at: Array<string | number>;
  fallback: Span;
  diagnostics: DiagnosticList;
  /** What the schema found wrong in the file: a check it reported is not checked again. */
  issues: readonly SchemaIssue[];
}

const spanOf = (place: Place, path: Array<string | number> = []): Span => spanAt(place.root, [...place.at, ...path]) ?? place.fallback;

/** The schema issues at the place or inside it. */
function issuesWithin(place: Place): SchemaIssue[] {
  return place.issues.filter((issue) => place.at.every((part, i) => issue.path[i] === part));
}

const listAt = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * What the schema cannot say of a file's tests: names unique within the file, and each test either
 * scripted (`turns`) or simulated (`simulate`).
 */
function checkAcrossTests(file: Record<string, unknown>, span: Span, diagnostics: DiagnosticList): void {
  if (!Array.isArray(file.tests)) return;
  const names = new Set<string>();
  file.tests.forEach((test: unknown, index) => {
    if (!isPlainObject(test)) return;
    const at = (key: string) => spanAt(file, ['tests', index, key]) ?? span;
    const name = typeof test.name === 'string' ? test.name : undefined;
    if (name !== undefined && names.has(name)) diagnostics.error('duplicate_item', `two tests are named "${name}"; names must be unique within a file`, at('name'));
    if (name !== undefined) names.add(name);
    if ((test.turns === undefined) === (test.simulate === undefined)) {
      diagnostics.error('invalid_value', `test ${name === undefined ? index + 1 : `"${name}"`} needs exactly one of turns (a scripted conversation) and simulate (a simulated caller)`, at('name'));
    }
  });
}

/**
 * The tool names of a file's checks and `mock_tools:` against the tools the manifests fix for its
 * agent. A name in no check can match: a misspelt `tool_not_called` would pass every run, so a check
 * naming no tool of the agent is a warning (a platform function the manifests leave to the service
 * may still be called by it). `mock_tools:` can only replace the agent's own tools: another name
 * is an error, found here with its place rather than when the run sends the config.
 */
function checkToolNames(file: Record<string, unknown>, agent: string, tools: AgentToolNames, diagnostics: DiagnosticList): void {
  const unknownName = (name: unknown, known: ReadonlySet<string>): name is string => typeof name === 'string' && !known.has(name);
  const problem = (kind: string, name: string, known: ReadonlySet<string>, what: string, outcome: string): string => {
    const suggestion = didYouMean(name, known, diagnostics.suggestions);
    const instead = suggestion ? `did you mean "${suggestion}"?` : `it has ${[...known].join(', ') || 'none'}`;
    return `${kind}: agent "${agent}" has no ${what} "${name}" in the manifests, ${outcome}; ${instead}`;
  };
  const callable = (kind: string, name: string, outcome: string) => problem(kind, name, tools.callable, 'tool or platform function', outcome);
  listAt(file.tests).forEach((test, t) => {
    if (!isPlainObject(test)) return;
    const at = (...path: Array<string | number>) => spanAt(file, ['tests', t, ...path]);
    listAt(test.expect).forEach((check, c) => {
      if (!isPlainObject(check)) return;
      for (const kind of ['tool_called', 'tool_not_called'] as const) {
        const span = at('expect', c, kind);
        if (unknownName(check[kind], tools.callable) && span) diagnostics.warning('reference_missing', callable(kind, check[kind], 'so the check never sees it called'), span);
      }
      listAt(check.tool_calls).forEach((call, i) => {
        const span = at('expect', c, 'tool_calls', i, 'name');
        if (isPlainObject(call) && unknownName(call.name, tools.callable) && span) diagnostics.warning('reference_missing', callable('tool_calls', call.name, 'so the check can never pass'), span);
      });
    });
    for (const name of Object.keys(isPlainObject(test.mock_tools) ? test.mock_tools : {})) {
      const span = spanAt(file, ['tests', t, 'mock_tools', name], 'key');
      if (unknownName(name, tools.tools) && span) diagnostics.error('reference_missing', problem('mock_tools', name, tools.tools, 'tool', 'and only its own tools can be mocked'), span);
    }
  });
}

/**
 * A test's own rules (its regular expressions compile; a call check has one kind, and args only
 * with tool_called) and its normalized form. Defensive about shape: it also runs on tests the schema
 * found wrong, whose normalized form is then thrown away.
 */
function checkTest(written: Record<string, unknown>, place: Place): ConversationTest {
  const test = written as unknown as WrittenTest;
  const turns = Array.isArray(written.turns) ? written.turns.map((turn: unknown, t) => scriptedTurn(turn, { ...place, at: [...place.at, 'turns', t] })) : undefined;
  const expect = listAt(written.expect).flatMap((check, c) => (isPlainObject(check) ? (callCheck(check, { ...place, at: [...place.at, 'expect', c] }) ?? []) : []));
  const needsModel = test.simulate !== undefined || judgeQuestions({ turns, expect }) > 0;
  const location = locationOf(spanOf(place, ['name']));
  refuseCheckless(written, place);
  refuseWordlessTurns(written, place);
  return {
    name: test.name,
    location,
    turns,
    simulate: test.simulate && { persona: test.simulate.persona, goal: test.simulate.goal, maxTurns: test.simulate.max_turns ?? DEFAULT_MAX_TURNS },
    expect,
    mockTools: test.mock_tools && Object.fromEntries(Object.entries(test.mock_tools).map(([tool, mock]) => [tool, mock?.returns])),
    repeat: test.repeat ?? 1,
    passRate: test.pass_rate ?? 1,
    needsModel,
  };
}

/**
 * A test with no check written (no turn's `expect:`, no `expect:` of its own) passes whatever the
 * agent says: a scripted one is refused. A simulated one may leave `expect:` out (docs/testing.md),
 * so it is warned of. Counted as written: a check the schema found wrong (a map where a list goes,
 * in `turns:` or an `expect:`) is reported there already, and is not nothing.
 */
function refuseCheckless(written: Record<string, unknown>, place: Place): void {
  if (written.turns !== undefined && !Array.isArray(written.turns)) return;
  const writesChecks = (value: unknown) => value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
  if (writesChecks(written.expect) || listAt(written.turns).some((turn) => !isPlainObject(turn) || writesChecks(turn.expect))) return;
  const message = `test ${JSON.stringify(written.name)} checks nothing: it would pass whatever the agent says; give a turn or the test an expect: check`;
  if (written.simulate !== undefined) place.diagnostics.warning('invalid_value', message, spanOf(place, ['name']));
  else place.diagnostics.error('invalid_value', message, spanOf(place, ['name']));
}

/**
 * A turn says the caller's words (`user:`), but for the first, the agent's greeting: a later turn
 * without them would ask the agent to speak again with nothing said, which checks no reply a caller
 * could get (the emulator answers it with nothing).
 */
function refuseWordlessTurns(written: Record<string, unknown>, place: Place): void {
  for (const [t, turn] of listAt(written.turns).entries()) {
    if (t === 0 || !isPlainObject(turn) || turn.user !== undefined) continue;
    const at = [...place.at, 'turns', t];
    place.diagnostics.error('invalid_value', `${describeTestPlace(at)} has no user: only the first turn, the agent's greeting, goes without one; give it the caller's words, or check that reply in the turn before`, spanOf(place, ['turns', t]));
  }
}

function regexAt(source: string, place: Place, path: Array<string | number>): RegExp | undefined {
  const compiled = compileRegex(source);
  if (typeof compiled !== 'string') return compiled;
  place.diagnostics.error('invalid_value', `not a valid regular expression: ${compiled}`, spanOf(place, path));
  return undefined;
}

function scriptedTurn(turn: unknown, place: Place): ScriptedTurn {
  const written = isPlainObject(turn) ? turn : {};
  const checks = listAt(written.expect).flatMap((check, c) => {
    const at = { ...place, at: [...place.at, 'expect', c] };
    // A check the schema found wrong (a misspelt kind, two kinds, a pattern too long) is reported once, by the schema.
    return isPlainObject(check) && issuesWithin(at).length === 0 ? (replyCheck(check as Record<string, string | undefined>, at) ?? []) : [];
  });
  return { user: written.user as string | undefined, checks };
}

function replyCheck(check: Record<string, string | undefined>, place: Place): ReplyCheck | undefined {
  const [kind, text] = Object.entries(check)[0] as [string, string];
  if (kind === 'regex') {
    const pattern = regexAt(text, place, ['regex']);
    return pattern && { kind, pattern };
  }
  if (kind === 'judge') return { kind, rubric: text };
  return { kind: kind as 'contains' | 'not_contains' | 'equals', text };
}

const CALL_CHECK_KINDS = ['tool_called', 'tool_calls', 'tool_not_called', 'call_status', 'judge'] as const;

function callCheck(check: Record<string, unknown>, place: Place): CallCheck | undefined {
  // A misspelt field may be the kind meant: which kinds the check has is then unknown.
  if (issuesWithin(place).some((issue) => issue.keyword === 'unknown_property' && issue.path.length === place.at.length + 1)) return undefined;
  const kinds = CALL_CHECK_KINDS.filter((kind) => check[kind] !== undefined);
  if (kinds.length !== 1) {
    place.diagnostics.error('invalid_value', `${describeTestPlace(place.at)} must have exactly one of ${CALL_CHECK_KINDS.join(', ')}${kinds.length > 1 ? ` (found ${kinds.join(' and ')})` : ''}`, spanOf(place));
    return undefined;
  }
  const kind = kinds[0] as (typeof CALL_CHECK_KINDS)[number];
  if (check.args !== undefined && kind !== 'tool_called') {
    place.diagnostics.error('invalid_value', 'args belongs with tool_called: it says which arguments the call must have', spanAt(place.root, [...place.at, 'args'], 'key') ?? spanOf(place));
    return undefined;
  }
  const value = check[kind] as string;
  if (kind === 'tool_called') return { kind, tool: value, args: argExpectations(check.args as Record<string, unknown> | undefined, place) };
  if (kind === 'tool_calls') {
    const calls = listAt(check.tool_calls).flatMap((call, index) => {
      if (!isPlainObject(call) || typeof call.name !== 'string') return [];
      return [{ tool: call.name, args: argExpectations(call.args as Record<string, unknown> | undefined, { ...place, at: [...place.at, 'tool_calls', index] }) }];
    });
    return { kind, calls };
  }
  if (kind === 'tool_not_called') return { kind, tool: value };
  if (kind === 'call_status') return { kind, status: value };
  return { kind, rubric: value };
}

/** `{regex: …}` or `{judge: …}` alone is a matcher; any other value is expected exactly. */
function argExpectations(args: Record<string, unknown> | undefined, place: Place): Record<string, ArgExpectation> | undefined {
  if (args === undefined) return undefined;
  const out: Record<string, ArgExpectation> = {};
  for (const [name, expected] of Object.entries(isPlainObject(args) ? args : {})) {
    const keys = isPlainObject(expected) ? Object.keys(expected) : [];
    const matcher = keys.length === 1 && (keys[0] === 'regex' || keys[0] === 'judge') ? (keys[0] as 'regex' | 'judge') : undefined;
    const inner = matcher ? (expected as Record<string, unknown>)[matcher] : undefined;
    if (matcher && (typeof inner !== 'string' || inner === '' || inner.length > (matcher === 'regex' ? 500 : 4000))) {
      place.diagnostics.error('invalid_value', `args.${name}.${matcher} must be a non-empty string of at most ${matcher === 'regex' ? 500 : 4000} characters`, spanOf(place, ['args', name, matcher]));
      continue;
    }
    if (matcher === 'regex') {
      const pattern = regexAt(inner as string, place, ['args', name, 'regex']);
      if (pattern) out[name] = { kind: 'regex', pattern };
    } else if (matcher === 'judge') out[name] = { kind: 'judge', rubric: inner as string };
    else out[name] = { kind: 'exact', value: expected };
  }
  return out;
}
