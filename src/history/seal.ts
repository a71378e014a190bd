/**
 * The seal of a ledger record: an HMAC of everything the record holds, under a key derived from the
 * run's fingerprint key (the API key in use), which no file holds. A record's fields can all be
 * computed by anyone who reads the ledger — and the file state's ledger is committed to git, where a
 * pull request can edit it — so only the seal tells a record voxform wrote under this API key from
 * one made or changed by hand. Promotion takes its evidence from sealed records only (docs/promotion.md).
 */
import { derivedKey, keyedHash } from '../util/hash.js';

/** Who may have written a record or test run that is not sealed under this API key. */
export const NOT_SEALED_BY = 'written by a voxform that does not seal records, under another API key, or by hand';

/** The key records are sealed under; made only by `ledgerSealKey`, so a fingerprint key is never passed for it. */
export type LedgerSealKey = string & { readonly __ledgerSealKey: unique symbol };

/**
 * The seal key of a fingerprint key (src/util/hash.ts `fingerprintKey`), under its own label: a seal
 * is never a fingerprint of a value, nor one a seal.
 */
export function ledgerSealKey(fingerprintKey: string): LedgerSealKey {
  return derivedKey(fingerprintKey, 'voxform ledger seal key v1') as LedgerSealKey;
}

/** `hmac-sha256:<hex>` of the record's canonical JSON, every field but `seal` (its id and time included). */
function sealOf(key: LedgerSealKey, record: object): string {
  const { seal: _seal, ...sealed } = record as { seal?: unknown };
  return keyedHash(key, sealed);
}

/** The record with its seal: what a store writes once it has given the record its id. */
export function sealRecord<T extends object>(key: LedgerSealKey, record: T): T & { seal: string } {
  return { ...record, seal: sealOf(key, record) };
}

/** Whether the record carries a seal made under `key` of exactly what it holds now. */
export function sealVerifies(key: LedgerSealKey, record: object): boolean {
  const seal = (record as { seal?: unknown }).seal;
  return typeof seal === 'string' && seal === sealOf(key, record);
}
