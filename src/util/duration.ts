/** Durations as people write and read them: `90s`, `30m`, `24h`, `7d`, `2w`; `35 min`, `1d 3h`. */

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** Seconds of a duration: a number (fractions allowed), optional spaces, then a unit of s, m, h, d or w in either case; undefined for other text. */
export function durationSeconds(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(text);
  return match ? Number(match[1]) * (UNIT_SECONDS[(match[2] as string).toLowerCase()] as number) : undefined;
}

/** An age, rounded down to what people say: `35 min`, `2h`, `2h 5 min`, `1d 3h`. */
export function formatAge(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours}h` : `${hours}h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days}d` : `${days}d ${hours % 24}h`;
}
