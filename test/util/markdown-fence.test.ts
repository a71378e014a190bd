import { describe, expect, it } from 'vitest';
import { markdownFence } from '../../src/util/markdown-escape.js';

describe('markdownFence', () => {
  it('is longer than any backtick run inside, and at least three', () => {
    expect(markdownFence(['plain'], 'text')).toEqual(['```text', 'plain', '```']);
    expect(markdownFence(['a ```` b', '`c`'], 'diff')).toEqual(['`````diff', 'a ```` b', '`c`', '`````']);
  });

  it('sized for other lines (the whole of a block cut to a budget), keeps their fence', () => {
    expect(markdownFence(['kept'], 'diff', { sizedFor: ['kept', 'cut ``````` away'] })).toEqual(['````````diff', 'kept', '````````']);
  });

  it('shows each line printable', () => {
    expect(markdownFence(['bell\u0007'])).toEqual(['```', 'bell\\u0007', '```']);
  });
});
