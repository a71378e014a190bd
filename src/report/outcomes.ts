/**
 * What a call record says about how the call went (docs/report.md, "Metrics"). Records are untrusted
 * input: every field is checked before use, and an odd value counts as absent.
 */
import type { GlobalCallHistoryRecord } from '../schema/types.gen.js';
import { isPlainObject } from '../util/json-object.js';

/** The outcome groups the charts draw (each call status falls in one). */
const OUTCOME_GROUPS = ['completed', 'voicemail', 'timeout', 'error', 'other'] as const;
export type OutcomeGroup = (typeof OUTCOME_GROUPS)[number];

const GROUP_OF_STATUS: Record<string, OutcomeGroup> = {
  'user-ended': 'completed',
  'agent-ended': 'completed',
  'api-ended': 'completed',
  chat_completion: 'completed',
  completed: 'completed',
  'voicemail-message': 'voicemail',
  'voicemail-hangup': 'voicemail',
  timeout: 'timeout',
  error: 'error',
  failed: 'error',
};

/** The call's status as recorded, `(none)` when missing; at most 64 characters. */
export function statusOf(record: GlobalCallHistoryRecord): string {
  return typeof record.call_status === 'string' && record.call_status !== '' ? record.call_status.slice(0, 64) : '(none)';
}

export function outcomeGroupOf(status: string): OutcomeGroup {
  return GROUP_OF_STATUS[status.toLowerCase()] ?? 'other';
}

interface FunctionCall {
  name: string;
  failed: boolean;
}

/** The record's function calls (tools, app functions, transfers), each with its name and whether it failed. */
export function functionCallsOf(record: GlobalCallHistoryRecord): FunctionCall[] {
  const calls = Array.isArray(record.function_calls) ? record.function_calls : [];
  return calls.filter(isPlainObject).map((call) => ({ name: typeof call.name === 'string' ? call.name : '', failed: functionCallFailed(call) }));
}

/**
 * A function call failed when it says so: a non-empty `error`, `success: false`, a `status` of
 * `error`/`failed`, or an HTTP status (`status`, `status_code`) of 400 or more.
 */
export function functionCallFailed(call: Record<string, unknown>): boolean {
  const error = call.error;
  if (error !== undefined && error !== null && error !== false && error !== '') return true;
  if (call.success === false) return true;
  for (const key of ['status', 'status_code']) {
    const value = call[key];
    if (typeof value === 'number' && value >= 400) return true;
    if (typeof value === 'string' && ['error', 'failed', 'failure'].includes(value.toLowerCase())) return true;
  }
  return false;
}

/** A transfer is the platform function `transfer_call`; an account's own `transfer_lookup` is a tool call. */
export const TRANSFER_FUNCTION = 'transfer_call';

export function isTransferCall(name: string): boolean {
  return name === TRANSFER_FUNCTION;
}

/** The call's credits: the sum of its `cost_breakdown` items' finite `credit`s. */
export function creditsOf(record: GlobalCallHistoryRecord): number {
  let total = 0;
  for (const item of Array.isArray(record.cost_breakdown) ? record.cost_breakdown : []) {
    if (isPlainObject(item) && typeof item.credit === 'number' && Number.isFinite(item.credit)) total += item.credit;
  }
  return total;
}

/** The call's duration in seconds, when it has a positive finite one (a call that never connected has none). */
export function durationOf(record: GlobalCallHistoryRecord): number | undefined {
  return typeof record.duration === 'number' && Number.isFinite(record.duration) && record.duration > 0 ? record.duration : undefined;
}
