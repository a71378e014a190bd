/**
 * The judge and the simulated caller: two roles an OpenAI-compatible model plays for conversation
 * tests. Both answer in JSON, validated here: the judge `{verdict: "pass"|"fail", reason}`, the
 * caller `{message, goal_reached}`. A malformed answer is asked for once more, then reported as an
 * error of the check (never as a pass).
 */
import { VoxformError } from '../errors.js';
import { clip, parseJsonObject, type ChatModel, type ChatTurn } from '../model/chat-model.js';
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

/** Asks the judge whether `subject` meets `rubric`. `what` names the subject ("reply", "transcript", "value of date"). */
export async function judge(model: ChatModel, rubric: string, subject: string, what: string): Promise<Verdict> {
  const messages: ChatTurn[] = [
    { role: 'system', content: JUDGE_INSTRUCTIONS },
    { role: 'user', content: `Rubric:\n${rubric}\n\nThe ${what}:\n${subject}` },
  ];
  return askValid(model, messages, parseVerdict, 'a verdict ({"verdict": "pass"|"fail", "reason": "…"})');
}

function parseVerdict(text: string | null | undefined): Verdict | undefined {
  const answer = parseJsonObject(text);
  const verdict = typeof answer?.verdict === 'string' ? answer.verdict.trim().toLowerCase() : undefined;
  if (verdict !== 'pass' && verdict !== 'fail') return undefined;
  const reason = typeof answer?.reason === 'string' && answer.reason.trim() !== '' ? clip(answer.reason.trim(), 1000) : '(no reason given)';
  return { pass: verdict === 'pass', reason };
}

export interface CallerMove {
  /** What the caller says next; undefined when the goal is reached and nothing more needs saying. */
  message: string | undefined;
  goalReached: boolean;
}

/**
 * The simulated caller's next move. The model sees the conversation from the caller's side (the
 * agent's lines as `user`, its own as `assistant`).
 */
export async function nextCallerMove(model: ChatModel, caller: SimulatedCaller, transcript: readonly TranscriptMessage[]): Promise<CallerMove> {
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
  return askValid(model, messages, parseCallerMove, 'a caller move ({"message": "…", "goal_reached": false})');
}

function parseCallerMove(text: string | null | undefined): CallerMove | undefined {
  const answer = parseJsonObject(text);
  if (!answer || typeof answer.goal_reached !== 'boolean') return undefined;
  const message = typeof answer.message === 'string' && answer.message.trim() !== '' ? clip(answer.message.trim()) : undefined;
  if (!answer.goal_reached && message === undefined) return undefined;
  return { message, goalReached: answer.goal_reached };
}

async function askValid<T>(model: ChatModel, messages: ChatTurn[], parse: (text: string | null | undefined) => T | undefined, expected: string): Promise<T> {
  const first = await model.complete(messages, { json: true });
  const parsed = parse(first.content);
  if (parsed !== undefined) return parsed;
  const retry = await model.complete([...messages, { role: 'assistant', content: first.content ?? '' }, { role: 'user', content: `That was not valid. Answer with ${expected} and nothing else.` }], { json: true });
  const second = parse(retry.content);
  if (second !== undefined) return second;
  throw new VoxformError('model_answer_invalid', `The model did not answer with ${expected}, twice; its answer began: ${JSON.stringify(clip(retry.content ?? '', 120))}.`);
}
