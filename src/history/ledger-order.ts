/**
 * The ledger's order: the order records were appended in, never any machine's clock. Applies of a
 * workspace append one at a time (under the state lock), but each on the clock of the machine that
 * ran it, and two machines' clocks can be minutes apart: a record's `at` is what its machine said,
 * and its id is what orders it. Every reader that asks for the newest, the previous or a sorted list
 * of records or test runs goes by id.
 */
import { randomBytes } from 'node:crypto';

/** An id's time: `20261123T120501123Z` (or, written by early versions, without milliseconds). */
const ID_TIME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})?Z-/;
/** The last time an id can hold (its year has four digits): past a ledger's id of then, the random part alone tells ids apart. */
const LATEST_ID_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * A new record id, greater than `newest` (the greatest id the ledger holds): the time `at` to the
 * millisecond — or, when the ledger holds an id of that time or later (written on a clock ahead of
 * this one), one millisecond past it — then randomness, so two appends in one millisecond differ.
 */
export function newHistoryId(at: Date = new Date(), newest?: string): string {
  const after = newest === undefined ? undefined : idTime(newest);
  const time = after === undefined ? at.getTime() : Math.min(Math.max(at.getTime(), after + 1), LATEST_ID_TIME);
  const stamp = new Date(time).toISOString().replace(/[-:]/g, '').replace('.', '');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

/** Milliseconds of an id's time; an id without milliseconds stands for the last of its second, so a new id sorts after it. */
function idTime(id: string): number | undefined {
  const match = ID_TIME.exec(id);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second, millis] = match.slice(1).map((part) => (part === undefined ? 999 : Number(part))) as number[];
  return Date.UTC(year as number, (month as number) - 1, day, hour, minute, second, millis);
}

/** Ledger order for sorting, oldest first: by id, compared as the file listing and the database index compare them. */
export function ledgerOrder(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * When each record took effect on a timeline that keeps the ledger's order, by id: its `at`, or,
 * when its machine's clock put it before a record appended earlier, that record's `at` (it cannot
 * have ended before a record it was appended after).
 */
export function ledgerTimes(records: readonly { id: string; at: string }[]): Map<string, string> {
  const times = new Map<string, string>();
  let latest: string | undefined;
  for (const record of [...records].sort(ledgerOrder)) {
    if (latest === undefined || Date.parse(record.at) >= Date.parse(latest)) latest = record.at;
    times.set(record.id, latest);
  }
  return times;
}
