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

/**
 * How far ahead of this machine's clock a ledger id may be and still order the next one: clocks of a
 * team's machines are minutes apart, not days. An id further ahead is a planted or broken file, and
 * following it would put every later record at its time, told apart by chance alone.
 */
export const MOST_CLOCK_AHEAD_HOURS = 24;
const MOST_CLOCK_AHEAD_MS = MOST_CLOCK_AHEAD_HOURS * 60 * 60 * 1000;

/**
 * The greatest id a new record made at `at` may follow (`newHistoryId`): ids up to it, compared as
 * the ledger compares them. A store hands `newHistoryId` the greatest id it holds up to this one.
 */
export function idCeiling(at: Date): string {
  return `${stampOf(at.getTime() + MOST_CLOCK_AHEAD_MS)}-ffffff`;
}

/**
 * Whether a record's id is past `idCeiling(now)`: dated further ahead of this machine's clock than
 * any clock of a team's is, so planted (a committed file) or written on a broken clock. It orders no
 * new record, so every apply since sorts below it, and no reader may take it for what runs now.
 */
export function aheadOfClock(id: string, now: Date = new Date()): boolean {
  return id > idCeiling(now);
}

/**
 * A new record id, greater than `newest` (the greatest id the ledger holds up to `idCeiling(at)`):
 * the time `at` to the millisecond — or, when the ledger holds an id of that time or later (written
 * on a clock ahead of this one), one millisecond past it — then randomness, so two appends in one
 * millisecond differ. An id past the ceiling, or whose time is no date, orders nothing.
 */
export function newHistoryId(at: Date = new Date(), newest?: string): string {
  const after = newest === undefined || newest > idCeiling(at) ? undefined : idTime(newest);
  const time = after === undefined ? at.getTime() : Math.max(at.getTime(), after + 1);
  return `${stampOf(time)}-${randomBytes(3).toString('hex')}`;
}

function stampOf(time: number): string {
  return new Date(time).toISOString().replace(/[-:]/g, '').replace('.', '');
}

/**
 * Milliseconds of an id's time; an id without milliseconds stands for the last of its second, so a
 * new id sorts after it. Undefined when its parts are no time (a month 00 or 13, a 25th hour).
 */
function idTime(id: string): number | undefined {
  const match = ID_TIME.exec(id);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second, millis] = match.slice(1).map((part) => (part === undefined ? 999 : Number(part))) as [number, number, number, number, number, number, number];
  const time = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const date = new Date(time);
  const exact = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day && date.getUTCHours() === hour && date.getUTCMinutes() === minute && date.getUTCSeconds() === second;
  return exact ? time : undefined;
}

/** Ledger order for sorting, oldest first: by id, compared as the file listing and the database index compare them. */
export function ledgerOrder(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * When each record took effect on a timeline that keeps the ledger's order, by id: its `at`, or,
 * when its machine's clock put it before a record appended earlier, that record's `at` (it cannot
 * have ended before a record it was appended after). Never after its id's time: an id is made when
 * the apply ended or later, so an `at` past it was planted or broken, and taken as it stands it would
 * put every record appended after it at its time (`2099-01-01`).
 */
export function ledgerTimes(records: readonly { id: string; at: string }[]): Map<string, string> {
  const times = new Map<string, string>();
  let latest: string | undefined;
  for (const record of [...records].sort(ledgerOrder)) {
    const idAt = idTime(record.id);
    const own = idAt !== undefined && !(Date.parse(record.at) <= idAt) ? new Date(idAt).toISOString() : record.at;
    if (latest === undefined || Date.parse(own) >= Date.parse(latest)) latest = own;
    times.set(record.id, latest);
  }
  return times;
}
