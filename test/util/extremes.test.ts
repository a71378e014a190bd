import { describe, expect, it } from 'vitest';
import { greatest, least } from '../../src/util/extremes.js';
import { markdownCode } from '../../src/util/markdown-escape.js';
import { renderTable } from '../../src/util/table.js';

describe('greatest and least', () => {
  it('give what Math.max and Math.min give, NaN and the empty list included', () => {
    for (const values of [[], [3, -1, 7], [2, Number.NaN, 5], [-0, 0], [Infinity, -Infinity]]) {
      expect(greatest(values)).toBe(Math.max(...values));
      expect(least(values)).toBe(Math.min(...values));
      expect(greatest(values, 4)).toBe(Math.max(4, ...values));
      expect(least(values, 4)).toBe(Math.min(4, ...values));
    }
  });

  it('take more numbers than a call takes arguments: a text of 200,000 backtick runs, a table of 200,000 rows', () => {
    const runs = 200_000;
    expect(() => Math.max(...Array.from({ length: runs }, () => 1))).toThrow(RangeError);
    expect(markdownCode(`${'`a'.repeat(runs)}\`\``)).toMatch(/^``` `a/);
    const table = renderTable([{ title: 'agent' }], Array.from({ length: runs }, (_, i) => [`agent-${i}`]), { gap: 2 });
    expect(table.split('\n')).toHaveLength(runs + 2);
  });
});
