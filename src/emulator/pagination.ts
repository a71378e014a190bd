import type { CallRecord } from './types.js';

/**
 * One page of `records` (newest first, after the cursor). The cursor is a bare ts, so a page never
 * splits records of equal ts (only a seed has ties): it ends before them, or grows to hold them all.
 */
export function takePage(records: Iterator<CallRecord>, matches: (record: CallRecord) => boolean, limit: number): { records: CallRecord[]; more: boolean } {
  const nextMatch = (): CallRecord | undefined => {
    for (let step = records.next(); !step.done; step = records.next()) if (matches(step.value)) return step.value;
    return undefined;
  };
  const page: CallRecord[] = [];
  while (page.length < limit) {
    const record = nextMatch();
    if (!record) return { records: page, more: false };
    page.push(record);
  }
  const following = nextMatch();
  if (!following) return { records: page, more: false };
  const lastTs = (page[page.length - 1] as CallRecord).ts;
  if (following.ts !== lastTs) return { records: page, more: true };

  let cut = page.length;
  while (cut > 0 && (page[cut - 1] as CallRecord).ts === lastTs) cut--;
  if (cut > 0) return { records: page.slice(0, cut), more: true };

  page.push(following);
  for (let record = nextMatch(); record; record = nextMatch()) {
    if (record.ts !== lastTs) return { records: page, more: true };
    page.push(record);
  }
  return { records: page, more: false };
}
