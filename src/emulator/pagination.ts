import type { CallRecord } from './types.js';

export interface Page {
  records: CallRecord[];
  /** Whether matching records remain after this page. */
  more: boolean;
}

/**
 * One newest-first page of `records` (already ordered newest first and starting after the cursor).
 *
 * The cursor is a bare ts, and the next page takes records strictly older than it. Records that
 * share a ts would be skipped if a page ended between them, so a page never splits a group of equal
 * ts: it ends before the group instead (a shorter page), and when the group alone fills the page,
 * the page grows to hold the whole group (a longer page). Sessions the emulator starts always get
 * distinct ts; only a seed can hold ties.
 */
export function takePage(records: Iterator<CallRecord>, matches: (record: CallRecord) => boolean, limit: number): Page {
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
