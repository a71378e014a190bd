/**
 * One run of one test: the conversation with the agent (scripted turns, or a simulated caller),
 * the checks on each reply, then — once the session has ended — the checks on its call record.
 *
 * Requests: a scripted test of N turns sends N chat requests, the last one with
 * `end_of_session: true` (its reply still comes back); a simulated one ends with its own request.
 * Each request carries the whole conversation so far, as the chat interface intends.
 *
 * What checks see: the conversation as a report may show it (`shownText`), never as the agent said it.
 */
import { isVoxformError } from '../errors.js';
import type { AgentConfigUpdate, ChatCompletionRequest } from '../schema/types.gen.js';
import type { AgentChannel } from './agent-channel.js';
import { checkCall, checkReply, flagCallerWords, type ToolCall } from './checks.js';
import { withToolMocks } from './mock-tools.js';
import { nextCallerMove } from './judge.js';
import type { CompletionModel } from '../model/chat-model.js';
import type { RequestBudget } from './budgets.js';
import { keepText, redactStrings, type Redact } from '../secrets/redact.js';
import type { RegexTimeBudget } from '../util/safe-regex.js';
import { oneVerdictPerQuestion, type RunJudgeCache } from './judge-cache.js';
import type { CheckResult, CheckStatus, ConversationTest, RunResult, TestFile, TranscriptMessage } from './types.js';
import { labelAsTestTraffic } from '../api/test-traffic.js';

/** Finish reasons of an ordinary reply; any other means the agent ended the session. */
const ORDINARY_FINISH = new Set(['stop', 'length', 'tool_calls']);

interface ConversationInput {
  /** The agent: the service, or a recording of it (src/conversations/recordings/). */
  channel: AgentChannel;
  file: TestFile;
  test: ConversationTest;
  agentId: string;
  /** The config to send (`--against desired`); undefined talks to the live agent as it is. */
  agentConfig: AgentConfigUpdate | undefined;
  /** Undefined with `--skip-judge`. Its requests are spent from `requests` (budgets.ts `budgetedModel`). */
  model: CompletionModel | undefined;
  /** The requests the run has left: each chat request spends one before it is sent. */
  requests: RequestBudget;
  /**
   * Hides the run's secrets: every check, the judge and the simulated caller see the conversation
   * with it applied (`shownText`); undefined hides nothing.
   */
  redact?: Redact | undefined;
  /** The time the run's regex checks share (safe-regex.ts). */
  regexTime: RegexTimeBudget;
  /** The judge's cached verdicts, for a live run (judge-cache.ts). */
  judgeCache?: RunJudgeCache | undefined;
}

interface Exchange {
  /** The conversation as the agent is told it: its replies as they came. */
  transcript: TranscriptMessage[];
  sessionId: string | undefined;
  checks: CheckResult[];
}

export async function runConversation(input: ConversationInput): Promise<RunResult> {
  const started = performance.now();
  const exchange: Exchange = { transcript: [], sessionId: undefined, checks: [] };
  const finish = (status: CheckStatus, extra: Partial<RunResult> = {}): RunResult => ({
    status,
    transcript: shownTranscript(input, exchange.transcript),
    checks: exchange.checks,
    toolCalls: undefined,
    error: undefined,
    durationMs: Math.round(performance.now() - started),
    ...extra,
  });
  const skipped = (check: string, detail: string) => finish('skipped', { checks: [{ check, turn: undefined, status: 'skipped', detail }] });
  if (input.test.mockTools && !input.agentConfig) return skipped('mock_tools', "the live agent's tools cannot be mocked (only the configuration voxform sends, --against desired)");
  if (input.test.simulate && !input.model) return skipped('simulate', 'a simulated caller needs the judge model (--skip-judge)');
  input = { ...input, judgeCache: oneVerdictPerQuestion(input.judgeCache) };
  try {
    if (input.test.mockTools && input.agentConfig) input = { ...input, agentConfig: withToolMocks(input.agentConfig, input.test.mockTools) };
    if (input.test.turns) await runScripted(input, exchange);
    else await runSimulated(input, exchange);
    const toolCalls = input.test.expect.length > 0 ? await checkRecord(input, exchange) : undefined;
    return finish(overallStatus(exchange.checks), { toolCalls });
  } catch (error) {
    if (!isVoxformError(error)) throw error;
    return finish('error', { error: error.message, ...(error.code === 'not_recorded' ? { notRecorded: true } : {}) });
  }
}

/** Failed or errored beats skipped, skipped beats passed: a skipped check never makes a pass. */
export function overallStatus(checks: readonly CheckResult[]): CheckStatus {
  if (checks.some((check) => check.status === 'error')) return 'error';
  if (checks.some((check) => check.status === 'failed')) return 'failed';
  if (checks.some((check) => check.status === 'skipped')) return 'skipped';
  return 'passed';
}

/**
 * The one rule of what every check, the judge and the simulated caller see: the text as a report
 * may show it, each known secret replaced by its placeholder, before anything looks at it. A
 * check's outcome is reported, so a check that saw a secret would tell it a character at a time
 * (`regex: "code is .{3}X"` passing or not), and the judge and the caller are a model the test file
 * instructs. A regex can only ever see the placeholder. The agent is told the conversation as it
 * was: its own words, secrets included.
 */
function shownText(input: ConversationInput, text: string): string {
  return (input.redact ?? keepText)(text);
}

function shownTranscript(input: ConversationInput, transcript: readonly TranscriptMessage[]): TranscriptMessage[] {
  return transcript.map((line) => ({ ...line, content: shownText(input, line.content) }));
}

/** Tool calls as the checks see them: every text in them (names, arguments) as `shownText` shows it. */
function shownToolCalls(input: ConversationInput, calls: readonly ToolCall[]): ToolCall[] {
  return redactStrings(calls, input.redact ?? keepText) as ToolCall[];
}

async function send(input: ConversationInput, exchange: Exchange, user: string | undefined, endOfSession: boolean): Promise<{ reply: string; ended: boolean }> {
  const messages = [...exchange.transcript];
  if (user !== undefined) messages.push({ role: 'user', content: user });
  const agent: ChatCompletionRequest['agent'] = { agent_id: input.agentId };
  if (input.agentConfig) agent.agent_config = input.agentConfig;
  agent.metadata = labelAsTestTraffic(input.file.metadata, 'test');
  if (input.file.includeMetadataInPrompt !== undefined) agent.include_metadata_in_prompt = input.file.includeMetadataInPrompt;
  input.requests.spend();
  const answer = await input.channel.send({ agent, messages, end_of_session: endOfSession });
  const reply = answer.reply;
  // The latest answer's session: the chat interface carries no session id, so the service matches a
  // request to a session by its conversation, and identical conversations in parallel may swap sessions.
  exchange.sessionId = answer.sessionId ?? exchange.sessionId;
  exchange.transcript = [...messages, { role: 'assistant', content: reply }];
  const reason = answer.finishReason;
  return { reply, ended: endOfSession || (typeof reason === 'string' && !ORDINARY_FINISH.has(reason)) };
}

async function runScripted(input: ConversationInput, exchange: Exchange): Promise<void> {
  const turns = input.test.turns ?? [];
  for (const [index, turn] of turns.entries()) {
    const last = index === turns.length - 1;
    const { reply, ended } = await send(input, exchange, turn.user, last);
    const shown = shownText(input, reply);
    const transcript = shownTranscript(input, exchange.transcript);
    for (const check of turn.checks) exchange.checks.push(flagCallerWords(check, await checkReply(check, shown, index + 1, input), transcript));
    if (ended && !last) {
      exchange.checks.push({ check: `turn ${index + 2}`, turn: index + 2, status: 'failed', detail: 'the agent ended the session before this turn' });
      return;
    }
  }
}

async function runSimulated(input: ConversationInput, exchange: Exchange): Promise<void> {
  const caller = input.test.simulate;
  const model = input.model;
  if (!caller || !model) return;
  // The agent speaks first (its greeting), as on a call; then the caller answers.
  let { ended } = await send(input, exchange, undefined, false);
  for (let turn = 0; turn < caller.maxTurns && !ended; turn++) {
    const move = await nextCallerMove(model, caller, shownTranscript(input, exchange.transcript), input.redact);
    if (move.message !== undefined) ({ ended } = await send(input, exchange, move.message, false));
    if (move.goalReached) break;
  }
  if (!ended) await endSession(input, exchange);
}

/** Ends the session with the conversation as it stands (the reply to this request is not part of it). */
async function endSession(input: ConversationInput, exchange: Exchange): Promise<void> {
  const transcript = exchange.transcript;
  await send(input, exchange, undefined, true);
  exchange.transcript = transcript;
}

async function checkRecord(input: ConversationInput, exchange: Exchange): Promise<RunResult['toolCalls']> {
  const record = await input.channel.callRecord({ agentId: input.agentId, sessionId: exchange.sessionId, transcript: exchange.transcript });
  if (!record) {
    exchange.checks.push({ check: 'call record', turn: undefined, status: 'error', detail: 'the call record of this session was not found in the call log' });
    return undefined;
  }
  // The transcript judged is the conversation as the test held it; the record's tool calls and status are the service's.
  const view = { callStatus: record.callStatus, toolCalls: shownToolCalls(input, record.toolCalls), transcript: shownTranscript(input, exchange.transcript) };
  for (const check of input.test.expect) exchange.checks.push(await checkCall(check, view, input));
  return view.toolCalls;
}
