/**
 * The judge and the simulated caller: two roles an OpenAI-compatible model plays for conversation
 * tests. Both answer in JSON, validated here: the judge `{verdict: "pass"|"fail", reason}`, the
 * caller `{message, goal_reached}`. A malformed answer is asked for once more, then reported as an
 * error of the check (never as a pass).
 */
import { VoxformError } from '../errors.js';
import { MODEL_TEXT_LIMIT, parseJsonObject, type ChatTurn, type CompletionModel } from '../model/chat-model.js';
import { keepText, shortenRedacted, type Redact } from '../secrets/redact.js';
import type { SimulatedCaller, TranscriptMessage } from './types.js';

export interface Verdict {
  pass: boolean;
  reason: string;
}

const JUDGE_INSTRUCTIONS = [
  'You are a strict judge of a voice agent in an automated test.',
  'You are given a rubric and a text (a reply of the agent, a transcript, or a value).',
  'Decide whether the text satisfies the rubric. Answer with a JSON object only:',
  '{"verdict": "pass" or "fail", "reason": "one sentence"}',
].join('\n');

/** Whether a model request is the judge's (not the simulated caller's): by the instructions it opens with. */
export function isJudgeRequest(messages: readonly ChatTurn[]): boolean {
  return messages[0]?.content === JUDGE_INSTRUCTIONS;
}

/** What the judge is asked: whether `subject` meets `rubric`; `what` names the subject ("reply", "transcript", "value of date"). */
export interface JudgeQuestion {
  rubric: string;
  subject: string;
  what: string;
}

/**
 * Asks the judge. The texts the model answers (a reason, a malformed answer quoted in an error) may
 * repeat a secret of the subject; `redact` hides it before they are shortened.
 */
export async function judge(model: CompletionModel, question: JudgeQuestion, redact: Redact = keepText): Promise<Verdict> {
  const messages: ChatTurn[] = [
    { role: 'system', content: JUDGE_INSTRUCTIONS },
    { role: 'user', content: `Rubric:\n${question.rubric}\n\nThe ${question.what}:\n${question.subject}` },
  ];
  return askValid({ model, redact }, messages, parseVerdict, 'a verdict ({"verdict": "pass"|"fail", "reason": "…"})');
}

function parseVerdict(text: string | null | undefined, redact: Redact): Verdict | undefined {
  const answer = parseJsonObject(text);
  const verdict = typeof answer?.verdict === 'string' ? answer.verdict.trim().toLowerCase() : undefined;
  if (verdict !== 'pass' && verdict !== 'fail') return undefined;
  const reason = typeof answer?.reason === 'string' && answer.reason.trim() !== '' ? shortenRedacted(answer.reason.trim(), 1000, redact) : '(no reason given)';
  return { pass: verdict === 'pass', reason };
}

interface CallerMove {
  /** What the caller says next; undefined when the goal is reached and nothing more needs saying. */
  message: string | undefined;
  goalReached: boolean;
}

/**
 * The simulated caller's next move. The model sees the conversation from the caller's side (the
 * agent's lines as `user`, its own as `assistant`). Its message is redacted before it is shortened
 * (it may repeat a secret the agent said): the transcript keeps it, and reports print it.
 */
export async function nextCallerMove(model: CompletionModel, caller: SimulatedCaller, transcript: readonly TranscriptMessage[], redact: Redact = keepText): Promise<CallerMove> {
  const instructions = [
    'You play a caller talking to a voice agent, in an automated test. Stay in character; be brief, as on the phone.',
    `Who you are: ${caller.persona}`,
    `Your goal: ${caller.goal}`,
    'Answer with a JSON object only: {"message": "what you say next", "goal_reached": true or false}.',
    'Set goal_reached to true once the agent has done what your goal asks; then message may be a goodbye or empty.',
  ].join('\n');
  const messages: ChatTurn[] = [{ role: 'system', content: instructions }];
  for (const line of transcript) messages.push({ role: line.role === 'assistant' ? 'user' : 'assistant', content: line.content });
  if (transcript.length === 0) messages.push({ role: 'user', content: '(the call connects; the agent is silent: you speak first)' });
  return askValid({ model, redact }, messages, parseCallerMove, 'a caller move ({"message": "…", "goal_reached": false})');
}

function parseCallerMove(text: string | null | undefined, redact: Redact): CallerMove | undefined {
  const answer = parseJsonObject(text);
  if (!answer || typeof answer.goal_reached !== 'boolean') return undefined;
  const message = typeof answer.message === 'string' && answer.message.trim() !== '' ? shortenRedacted(answer.message.trim(), MODEL_TEXT_LIMIT, redact) : undefined;
  if (!answer.goal_reached && message === undefined) return undefined;
  return { message, goalReached: answer.goal_reached };
}

type Parse<T> = (text: string | null | undefined, redact: Redact) => T | undefined;

async function askValid<T>(asked: { model: CompletionModel; redact: Redact }, messages: ChatTurn[], parse: Parse<T>, expected: string): Promise<T> {
  const { model, redact } = asked;
  const first = await model.complete(messages, { json: true });
  const parsed = parse(first.content, redact);
  if (parsed !== undefined) return parsed;
  const retry = await model.complete([...messages, { role: 'assistant', content: first.content ?? '' }, { role: 'user', content: `That was not valid. Answer with ${expected} and nothing else.` }], { json: true });
  const second = parse(retry.content, redact);
  if (second !== undefined) return second;
  throw new VoxformError('model_answer_invalid', `The model did not answer with ${expected}, twice; its answer began: ${JSON.stringify(shortenRedacted(retry.content ?? '', 120, redact))}.`, { hint: 'Use a model that follows JSON instructions, or check the model name.' });
}
