/**
 * Knowledge file ids a request names: in `set_agent_files`, and in an agent config a body carries
 * (`PUT /agents/{id}`, a session's `agent_config`). An id the account does not hold is a 422
 * `value_error` at its place, so the answer says which id is wrong (docs/service-api.md, Errors).
 */
import type { EmulatorStore } from './store.js';
import { ValidationFailure, type ValidationDetail } from './validation.js';
import { isPlainObject } from '../util/json-object.js';

/** Throws a 422 naming every id of `files` (at `loc`) that is not a knowledge file of the account. */
export function checkFileIds(store: EmulatorStore, files: readonly string[], loc: Array<string | number>): void {
  const unknown: ValidationDetail[] = files.flatMap((id, index) => (store.files.has(id) ? [] : [{ type: 'value_error', loc: ['body', ...loc, index], msg: 'Value error, no knowledge file with this id' }]));
  if (unknown.length > 0) throw new ValidationFailure(unknown);
}

/** The same for the `knowledge_base.files` of an agent config found at `loc` of the body (validated already). */
export function checkConfigFileIds(store: EmulatorStore, config: unknown, loc: Array<string | number>): void {
  if (!isPlainObject(config) || !isPlainObject(config.knowledge_base)) return;
  const files = config.knowledge_base.files;
  if (Array.isArray(files)) checkFileIds(store, files as string[], [...loc, 'knowledge_base', 'files']);
}
