import { VoxformError } from '../errors.js';

/** How long a request may take when neither `--timeout` nor `VOXFORM_TIMEOUT` says otherwise. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The longest time accepted: a day (timers cannot count much further, and no request or wait needs it). */
const MAX_TIME_MS = 24 * 60 * 60 * 1000;

/** The times an option accepts, as its error says them: the bounds in words, and examples in range. */
export interface TimeRange {
  minMs: number;
  maxMs: number;
  /** `from 1 ms to 24 h` */
  words: string;
  /** What the hint offers, each in range: `30s, 2m or 500ms`. */
  examples: string;
}

/** A request's time-out: `--timeout`, `VOXFORM_TIMEOUT`. */
export const TIMEOUT_RANGE: TimeRange = { minMs: 1, maxMs: MAX_TIME_MS, words: 'from 1 ms to 24 h', examples: '30s, 2m or 500ms' };

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The ms one request may take: `--timeout`, else `VOXFORM_TIMEOUT`, else 30 s (`45` is seconds; `500ms`, `2m`). */
export function resolveTimeoutMs(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): number {
  if (flag !== undefined) return parseTimeout(flag, '--timeout');
  const fromEnv = env.VOXFORM_TIMEOUT?.trim();
  if (fromEnv) return parseTimeout(fromEnv, 'VOXFORM_TIMEOUT');
  return DEFAULT_TIMEOUT_MS;
}

/**
 * The argument parser's reader of `--timeout`: a malformed value is a command-line mistake, refused
 * before the command checks the key or reads anything, as every option's value is. The text is kept
 * as typed; resolveTimeoutMs turns it into ms where the client is made.
 */
export function timeoutOption(value: string): string {
  parseTimeout(value, '--timeout');
  return value;
}

/**
 * A time in ms within `range` (`45` is seconds; `500ms`, `2m`, `1h`); `source` names the option or
 * variable in the error, which never repeats the text (docs/security.md §5).
 */
export function parseTimeout(text: string, source: string, range: TimeRange = TIMEOUT_RANGE): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(text.trim());
  const ms = match ? Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? 's'] as number)) : Number.NaN;
  if (!(ms >= range.minMs && ms <= range.maxMs)) {
    throw new VoxformError('invalid_option', `The value ${source.startsWith('-') ? 'given to' : 'of'} ${source} is not a time ${range.words}.`, { hint: `Write it as ${range.examples} (a bare number is seconds).` });
  }
  return ms;
}
