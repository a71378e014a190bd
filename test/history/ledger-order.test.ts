import { describe, expect, it } from 'vitest';
import { idCeiling, ledgerOrder, ledgerTimes, newHistoryId } from '../../src/history/ledger-order.js';

describe('the ledger order', () => {
  it('makes a new id after the newest one, from a clock behind it too', () => {
    const newest = '20261123T121000000Z-aaaaaa';
    expect(newHistoryId(new Date('2026-11-23T12:01:00.000Z'), newest)).toMatch(/^20261123T121000001Z-[0-9a-f]{6}$/);
    // A clock ahead of the newest id: the id is its time.
    expect(newHistoryId(new Date('2026-11-23T12:20:00.000Z'), newest)).toMatch(/^20261123T122000000Z-[0-9a-f]{6}$/);
    // An id of early versions, without milliseconds, stands for the whole second.
    const early = '20261123T121000Z-bbbbbb';
    const after = newHistoryId(new Date('2026-11-23T12:10:00.000Z'), early);
    expect(after).toMatch(/^20261123T121001000Z-[0-9a-f]{6}$/);
    expect(after > early).toBe(true);
  });

  it('follows an id up to a day ahead of the clock, and no id further ahead or of no date (a planted file)', () => {
    const now = new Date('2026-11-23T12:10:00.000Z');
    expect(newHistoryId(now, '20261124T120959000Z-aaaaaa')).toMatch(/^20261124T120959001Z-[0-9a-f]{6}$/);
    expect(idCeiling(now) > '20261124T120959000Z-aaaaaa').toBe(true);
    for (const planted of ['99991231T235959999Z-ffffff', '20261124T121001000Z-aaaaaa', '20261123T250000000Z-aaaaaa', '20261100T120000000Z-aaaaaa']) {
      expect(newHistoryId(now, planted), planted).toMatch(/^20261123T121000000Z-[0-9a-f]{6}$/);
    }
    expect(idCeiling(now) < '99991231T235959999Z-ffffff').toBe(true);
  });

  it('sorts by id, and puts each record on a timeline no earlier than a record appended before it', () => {
    const records = [
      { id: '20261123T121000001Z-cccccc', at: '2026-11-23T12:01:00.000Z' },
      { id: '20261123T120000000Z-aaaaaa', at: '2026-11-23T12:00:00.000Z' },
      { id: '20261123T121000000Z-bbbbbb', at: '2026-11-23T12:10:00.000Z' },
      { id: '20261123T123000000Z-dddddd', at: '2026-11-23T12:30:00.000Z' },
    ];
    expect([...records].sort(ledgerOrder).map((record) => record.id.slice(-1))).toEqual(['a', 'b', 'c', 'd']);
    expect([...ledgerTimes(records)]).toEqual([
      ['20261123T120000000Z-aaaaaa', '2026-11-23T12:00:00.000Z'],
      ['20261123T121000000Z-bbbbbb', '2026-11-23T12:10:00.000Z'],
      ['20261123T121000001Z-cccccc', '2026-11-23T12:10:00.000Z'],
      ['20261123T123000000Z-dddddd', '2026-11-23T12:30:00.000Z'],
    ]);
  });

  it("takes no record later than its id's time: an `at` past it (planted, 2099) moves neither it nor the records after it", () => {
    const records = [
      { id: '20261123T120000000Z-aaaaaa', at: '2099-01-01T00:00:00.000Z' },
      { id: '20261123T121000000Z-bbbbbb', at: '2026-11-23T12:10:00.000Z' },
      { id: '20261123T122000000Z-cccccc', at: 'not a time' },
    ];
    expect([...ledgerTimes(records)]).toEqual([
      ['20261123T120000000Z-aaaaaa', '2026-11-23T12:00:00.000Z'],
      ['20261123T121000000Z-bbbbbb', '2026-11-23T12:10:00.000Z'],
      ['20261123T122000000Z-cccccc', '2026-11-23T12:20:00.000Z'],
    ]);
  });
});
