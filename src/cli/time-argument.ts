/** A point in time on the command line, read strictly: a date that does not exist (February 30th) is refused. */
import { VoxformError } from '../errors.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import { durationSeconds } from '../util/duration.js';
import { LATEST_UNIX_SECONDS } from '../util/unix-time.js';

const FORMS = 'Use ISO 8601 (2025-01-31 or 2025-01-31T09:00:00Z), Unix seconds (1738314000), or a duration back from now (30m, 24h, 7d).';

/** ISO 8601 as the flags document it: a date, or a date and a time of day (`T` or a space between) with its zone. */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Why a value is not a time: the sentence's end after `is not a time: `. */
class NotATime extends Error {}

/**
 * Unix seconds from ISO 8601, Unix seconds (13 digits are milliseconds), or a duration back from `now`
 * (ms) (`90s`, `24h`, `2w`); anything else is `invalid_argument`, naming the flag and what is wrong.
 */
export function parseTimeArgument(flag: string, raw: string, now: number): number {
  let seconds: number | undefined;
  let reason = 'it is none of the forms voxform reads';
  try {
    seconds = readTime(raw.trim(), now);
  } catch (error) {
    if (!(error instanceof NotATime)) throw error;
    reason = error.message;
  }
  if (seconds !== undefined) {
    if (seconds >= 0 && seconds <= LATEST_UNIX_SECONDS) return seconds;
    reason = outOfRange(raw.trim(), seconds);
  }
  throw new VoxformError('invalid_argument', `The value given to ${flag} is not a time: ${reason}.`, { hint: FORMS });
}

/** Why a value of a form voxform reads is no time it takes: before Unix time 0, or past the year 9999. */
function outOfRange(text: string, seconds: number): string {
  const range = 'voxform reads times from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z';
  if (seconds < 0) return `${durationSeconds(text) === undefined ? 'it' : `${text} back from now`} is before 1970-01-01T00:00:00Z, and ${range}`;
  if (!/^\d+(\.\d+)?$/.test(text)) return `it is after 9999-12-31T23:59:59Z, and ${range}`;
  return `read as Unix seconds it is after 9999-12-31T23:59:59Z, and ${range} (Unix seconds up to ${LATEST_UNIX_SECONDS}; 13 digits are read as milliseconds)`;
}

/**
 * `--since` and `--until` as Unix seconds, each read as `parseTimeArgument` reads it. A window that
 * starts after it ends is `invalid_argument`: after `--until`, or, without one, after `now` (ms),
 * where the window ends then; it could hold no call.
 */
export function parseTimeWindow(flags: { since?: string | undefined; until?: string | undefined }, now: number): { since?: number; until?: number } {
  const since = flags.since === undefined ? undefined : parseTimeArgument('--since', flags.since, now);
  const until = flags.until === undefined ? undefined : parseTimeArgument('--until', flags.until, now);
  if (since !== undefined && since > (until ?? now / 1000)) {
    const end = until === undefined ? 'now' : `--until (${controlsAsQuestionMarks(flags.until ?? '')})`;
    throw new VoxformError('invalid_argument', `--since (${controlsAsQuestionMarks(flags.since ?? '')}) is later than ${end}.`, {
      hint: until === undefined ? 'Give a time in the past: --since is the start of the window, which ends now unless --until says otherwise.' : 'Swap them: --since is the start of the window, --until its end.',
    });
  }
  return { ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }) };
}

function readTime(text: string, now: number): number | undefined {
  const back = durationSeconds(text);
  if (back !== undefined) return (now - back * 1000) / 1000;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const value = Number(text);
    if (/^\d{1,9}(\.|$)/.test(text)) throw new NotATime(shortUnixSeconds(text, value));
    return /^\d{13}$/.test(text) ? value / 1000 : value;
  }
  const iso = ISO_8601.exec(text);
  return iso ? isoSeconds(text, iso) : undefined;
}

/**
 * Why a bare number of fewer than 10 digits is refused: read as Unix seconds it is before 2001, a
 * time no call log holds, so `--since 5` meant a duration and lost its unit (it would read every call).
 */
function shortUnixSeconds(text: string, value: number): string {
  const time = new Date(value * 1000).toISOString().replace('.000Z', 'Z');
  return `read as Unix seconds it is ${time}, and Unix seconds voxform reads have 10 digits or more; a duration back from now needs its unit (${text}m, ${text}h, ${text}d)`;
}

/** The Unix seconds of an ISO 8601 value, each field checked against the calendar and the clock. */
function isoSeconds(text: string, [, year, month, day, hour, minute, second, fraction, zone]: RegExpExecArray): number {
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  if (m < 1 || m > 12) throw new NotATime(`there is no month ${month}`);
  if (d < 1) throw new NotATime(`there is no day ${day}`);
  const days = m === 2 && isLeapYear(y) ? 29 : (DAYS_IN_MONTH[m - 1] as number);
  if (d > days) throw new NotATime(`${MONTHS[m - 1]} ${year} has ${days} days`);
  if (hour === undefined) return utcSeconds(y, m, d, 0, 0, 0);
  if (zone === undefined) throw new NotATime(`a time of day needs its time zone: add Z for UTC (${text}Z) or an offset (${text}+01:00)`);
  const [h, min, s] = [Number(hour), Number(minute), Number(second ?? 0)];
  if (h > 23) throw new NotATime('hours go from 00 to 23');
  if (min > 59) throw new NotATime('minutes go from 00 to 59');
  if (s > 59) throw new NotATime('seconds go from 00 to 59');
  return utcSeconds(y, m, d, h, min, s) + Number(fraction ?? 0) - offsetSeconds(zone);
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Date.UTC would read years 0–99 as 1900–1999: the year is set on its own. */
function utcSeconds(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime() / 1000;
}

/** `Z` → 0; `+02:00`, `+0200`, `+02` → 7200; `-05:30` → -19800. */
function offsetSeconds(zone: string): number {
  if (zone === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || '0');
  if (hours > 23 || minutes > 59) throw new NotATime('a time zone offset is at most 23:59');
  return (zone.startsWith('-') ? -1 : 1) * (hours * 3600 + minutes * 60);
}
