import { VoxformError } from '../errors.js';

/** How long a request may take when neither `--timeout` nor `VOXFORM_TIMEOUT` says otherwise. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The longest time-out accepted: a day (timers cannot count much further, and no request needs it). */
const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The ms one request may take: `--timeout`, else `VOXFORM_TIMEOUT`, else 30 s (`45` is seconds; `500ms`, `2m`). */
export function resolveTimeoutMs(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): number {
  if (flag !== undefined) return parseTimeout(flag, '--timeout');
  const fromEnv = env.VOXFORM_TIMEOUT?.trim();
  if (fromEnv) return parseTimeout(fromEnv, 'VOXFORM_TIMEOUT');
  return DEFAULT_TIMEOUT_MS;
}

export function parseTimeout(text: string, source: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(text.trim());
  const ms = match ? Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? 's'] as number)) : Number.NaN;
  if (!(ms >= 1 && ms <= MAX_TIMEOUT_MS)) {
    throw new VoxformError('invalid_option', `${source} "${text}" is not a time from 1 ms to 24 h.`, { hint: 'Write it as 30s, 2m or 500ms (a bare number is seconds).' });
  }
  return ms;
}
