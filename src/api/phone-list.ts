/**
 * The phones of a `GET /phones` answer, checked in the client for what voxform reads of a phone: its
 * `id` (a string) and the agent that answers it (`agent_id`: a string, or null or absent for none).
 * Every reader of the list (plan, apply's import check, export, get, status) then meets phones of
 * that shape, or one error naming the first that is not, instead of a crash wherever a reader meets
 * a null. A phone voxform cannot read is never passed over: it may be the number a manifest names,
 * and a plan that missed it would import it again. The rest of a phone is passed on unread, so a
 * field the service adds or spells otherwise stops nothing.
 */
import { foundInsteadOf, quote } from '../util/describe-value.js';
import { formatIndexed, type PathSegment } from '../util/field-path.js';
import { isPlainObject } from '../util/json-object.js';

/** Where an answer keeps its phones: the documented bare list, or one of the wrappings tolerated. */
export function phoneListAt(answer: unknown): PathSegment[] | undefined {
  if (Array.isArray(answer)) return [];
  if (!isPlainObject(answer)) return undefined;
  const key = ['phones', 'items', 'data'].find((name) => Array.isArray(answer[name]));
  return key === undefined ? undefined : [key];
}

/**
 * The first phone of `phones` (found at `at` in the answer) that voxform cannot read, as a phrase
 * naming it and what is wrong; undefined when every one can be read. Of its strings only its id is
 * shown (shortened): phone ids are no secret, and the others may hold anything.
 */
export function malformedPhone(phones: readonly unknown[], at: readonly PathSegment[]): string | undefined {
  for (const [index, phone] of phones.entries()) {
    // A bare list's phones are named by their index alone: `phone [3]`.
    const place = at.length === 0 ? `phone ${formatIndexed([index])}` : formatIndexed([...at, index]);
    if (!isPlainObject(phone)) return `${place} ${foundInsteadOf(phone, 'a phone (an object)')}`;
    if (typeof phone.id !== 'string') return `${place}: id ${foundInsteadOf(phone.id, 'a string (the number)')}`;
    const agentId = phone.agent_id;
    if (agentId !== undefined && agentId !== null && typeof agentId !== 'string') {
      return `${place} (id ${quote(phone.id)}): agent_id ${foundInsteadOf(agentId, 'a string or null')}`;
    }
  }
  return undefined;
}
