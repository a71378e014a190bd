/**
 * API keys: who may call what. The spec shows the `authorization` header on some operations and is
 * silent on the others; the emulator authenticates every spec operation (docs/emulator.md, "Auth").
 */
import { sha256Hex } from '../util/hash.js';
import type { EmulatorStore } from './store.js';
import type { StoredKey } from './types.js';

/**
 * How an operation declares the header, which decides what a missing header gets:
 * - `required`: the spec shows the header (as required, or without saying): a 422 "missing header";
 * - `optional`: the spec shows it as optional (`string or null`): a 401, as the handler finds no key;
 * - `unshown`: the spec does not show it: a 401 too.
 */
export type HeaderDeclaration = 'required' | 'optional' | 'unshown';

type AuthOutcome = { ok: true; key: StoredKey } | { ok: false; status: 401 | 403; detail: string };

/** Checks the raw key of the `authorization` header. Public keys pass only where `allowPublic`. */
export function authenticate(store: EmulatorStore, header: string | undefined, allowPublic: boolean): AuthOutcome {
  if (header === undefined || header === '') return { ok: false, status: 401, detail: 'Not authenticated' };
  const key = store.keys.get(sha256Hex(header));
  if (!key || key.revoked_at !== null) {
    // The service wants the raw key; say so when a client sends the common Bearer form.
    const hint = /^bearer\s/i.test(header) ? ' (send the raw key, without "Bearer ")' : '';
    return { ok: false, status: 401, detail: `Invalid API key${hint}` };
  }
  if (key.type === 'public' && !allowPublic) {
    return { ok: false, status: 403, detail: 'A public key cannot be used for this operation; use a private key' };
  }
  return { ok: true, key };
}
