import { describe, expect, it } from 'vitest';
import { takePage } from '../../src/emulator/pagination.js';
import type { CallRecord } from '../../src/emulator/types.js';

const records = (tsList: number[]): CallRecord[] => tsList.map((ts, i) => ({ call_id: `c${i}`, agent_id: 'a', ts }));
const page = (tsList: number[], limit: number) => {
  const result = takePage(records(tsList)[Symbol.iterator](), () => true, limit);
  return { ts: result.records.map((r) => r.ts), more: result.more };
};

describe('takePage', () => {
  it.each([
    { name: 'a full page with more after it', ts: [9, 8, 7, 6], limit: 2, want: { ts: [9, 8], more: true } },
    { name: 'the last page, exactly full', ts: [9, 8], limit: 2, want: { ts: [9, 8], more: false } },
    { name: 'a short last page', ts: [9], limit: 2, want: { ts: [9], more: false } },
    { name: 'nothing', ts: [], limit: 2, want: { ts: [], more: false } },
    { name: 'a tie across the boundary ends the page before the group', ts: [9, 8, 8, 7], limit: 2, want: { ts: [9], more: true } },
    { name: 'a group filling the page grows the page', ts: [8, 8, 8, 7], limit: 2, want: { ts: [8, 8, 8], more: true } },
    { name: 'a group that is everything', ts: [8, 8, 8], limit: 1, want: { ts: [8, 8, 8], more: false } },
    { name: 'a tie inside the page is fine', ts: [9, 9, 8, 7], limit: 3, want: { ts: [9, 9, 8], more: true } },
  ])('$name', ({ ts, limit, want }) => {
    expect(page(ts, limit)).toEqual(want);
  });

  it('applies the filter while walking', () => {
    const result = takePage(records([9, 8, 7, 6, 5])[Symbol.iterator](), (r) => r.ts % 2 === 1, 2);
    expect(result.records.map((r) => r.ts)).toEqual([9, 7]);
    expect(result.more).toBe(true);
  });
});
