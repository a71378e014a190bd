/**
 * What a plan holds of its updates, against what one request and one plan may hold: the one count
 * the differ and the incremental diff share.
 */
import { MAX_REQUEST_BODY_BYTES } from '../api/http.js';
import { MAX_PLAN_UPDATE_BYTES } from '../project-files/limits.js';
import { escapeJsonText, toJsonText } from '../util/printable.js';
import type { ResourceChange } from './types.js';

/**
 * What a change's largest request sends, bytes of JSON; and what the plan prints of the change
 * (`printed`, bytes of `toJsonText`), which is what MAX_PLAN_UPDATE_BYTES counts: its requests and
 * the live values of the fields they change. A control or invisible character is two or three bytes
 * on the wire but six printed (`\u0085`), the plan prints each update's texts three times over and
 * the live ones twice, and a live value costs the update nothing: a committed `.voxform/local.json`
 * (`--local`) may hold long live prompts that manifests of one word replace. Measured once per change.
 */
export function planSizes(change: ResourceChange): { printed: number; largest: number } {
  let sizes = measuredRequests.get(change);
  if (sizes) return sizes;
  sizes = { printed: 0, largest: 0 };
  for (const request of change.requests) {
    if (request.body === undefined) continue;
    const sent = JSON.stringify(request.body);
    sizes.printed += Buffer.byteLength(escapeJsonText(sent));
    sizes.largest = Math.max(sizes.largest, Buffer.byteLength(sent));
  }
  for (const field of change.fieldChanges) if (field.before !== undefined) sizes.printed += Buffer.byteLength(toJsonText(field.before));
  measuredRequests.set(change, sizes);
  return sizes;
}

const measuredRequests = new WeakMap<ResourceChange, { printed: number; largest: number }>();

/**
 * What one plan holds of its updates and the live values they replace (`planSizes`), against
 * MAX_PLAN_UPDATE_BYTES. An update the service would refuse in one request is a problem of its own
 * and not counted: it is never sent, held or printed.
 */
export class PlanSizeCounter {
  #planned = 0;

  /** Counts one update in; what it takes the plan past, if anything. */
  add(sizes: { printed: number; largest: number }): 'request_too_large' | 'plan_too_large' | undefined {
    if (sizes.largest > MAX_REQUEST_BODY_BYTES) return 'request_too_large';
    this.#planned += sizes.printed;
    return this.full ? 'plan_too_large' : undefined;
  }

  /** The plan holds more than it may: no more updates are worth making. */
  get full(): boolean {
    return this.#planned > MAX_PLAN_UPDATE_BYTES;
  }
}
