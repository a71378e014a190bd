/**
 * A field's line diff is made within a budget of work (`LINE_DIFF_WORK`, src/project-files/limits.ts):
 * the diff's time grows with the texts' lines times the lines changed, and a prompt rewritten whole
 * held a plan for minutes. Within the budget the field gets its line diff; past it, one line saying
 * it is replaced whole, how large each side is, and where to see both.
 */
import * as jsdiff from 'diff';
import { describe, expect, it, vi } from 'vitest';
import { fieldViews, LineDiffBudget, maxEditLines } from '../../src/plan/field-lines.js';
import { LINE_DIFF_SHOWN_PER_OUTPUT, LINE_DIFF_WORK, LINE_DIFF_WORK_PER_OUTPUT, LINE_SHOWN_COST } from '../../src/project-files/limits.js';
import { renderPlanMarkdown } from '../../src/plan/render-markdown.js';
import { renderPlanText } from '../../src/plan/render-text.js';
import type { ResourceChange } from '../../src/plan/types.js';
import { planOf } from '../helpers/plan.js';

// Counts the line diffs' searches, each one as it is.
vi.mock('diff', async (original) => {
  const actual = await original<typeof import('diff')>();
  return { ...actual, structuredPatch: vi.fn(actual.structuredPatch) };
});

const lines = (count: number, line: (index: number) => string) => Array.from({ length: count }, (_, index) => `${line(index)}\n`).join('');

function promptChange(before: string | undefined, after: string): ResourceChange {
  return {
    address: 'agent.desk',
    kind: 'agent',
    action: 'update',
    id: 'a1',
    before: { 'config.prompt': before },
    after: { 'config.prompt': after },
    fieldChanges: [{ path: 'config.prompt', before, after, sensitive: false, drift: false }],
    sensitivePaths: [],
    reason: undefined,
    dependsOn: [],
    requests: [],
    liveFingerprint: 'live',
  };
}

/**
 * 20,000 lines, then the same with its first `replaced` lines rewritten and one more line at the end:
 * `2 × replaced + 1` lines changed in texts of 40,001 lines in all, whose budget is 99 (`maxEditLines`).
 * Many lines and few changed: the diff's search, whose time grows with the lines changed squared,
 * is short, and the budget is the same product of lines and lines changed.
 */
function edited(replaced: number): { before: string; after: string } {
  const before = lines(20_000, (index) => `line ${index}`);
  const after = `${lines(replaced, (index) => `rewritten ${index}`)}${lines(20_000 - replaced, (index) => `line ${index + replaced}`)}added\n`;
  return { before, after };
}

describe('the line diff budget', () => {
  it('allows 999 lines changed in texts of 4,001 lines in all', () => {
    expect(maxEditLines(4001)).toBe(999);
  });

  it('shows the line diff just within the budget', () => {
    expect(maxEditLines(40_001)).toBe(99);
    const { before, after } = edited(49);
    const [view] = fieldViews(promptChange(before, after), new LineDiffBudget());
    expect(view?.summary).toBeUndefined();
    expect(view?.diff?.filter((line) => line.kind === '-')).toHaveLength(49);
    expect(view?.diff?.filter((line) => line.kind === '+')).toHaveLength(50);
  });

  it('shows the field replaced whole just past it, with both sizes and where to see them', () => {
    const { before, after } = edited(50);
    const [view] = fieldViews(promptChange(before, after), new LineDiffBudget());
    expect(view?.diff).toBeUndefined();
    expect(view?.summary).toBe(
      `(replaced whole: the texts differ too much to show line by line, 20,000 lines, ${before.length.toLocaleString('en-US')} characters → 20,001 lines, ${after.length.toLocaleString('en-US')} characters; --format json holds both, to compare with a diff tool)`,
    );
  });

  it('counts a text without a last line break as it is', () => {
    const before = lines(3000, (index) => `a${index}`);
    const after = lines(3000, (index) => `b${index}`).slice(0, -1);
    const [view] = fieldViews(promptChange(before, after), new LineDiffBudget());
    expect(view?.summary).toContain(`3,000 lines, ${before.length.toLocaleString('en-US')} characters → 3,000 lines, ${after.length.toLocaleString('en-US')} characters;`);
  });

  it.each([
    ['newly set', undefined],
    ['set from an empty text', ''],
    ['set from one line', 'line 0'],
  ])('always shows a text %s line by line, however long: against one line at most the diff needs no search', (_name, before) => {
    const after = lines(5000, (index) => `line ${index}`);
    const [view] = fieldViews(promptChange(before, after), new LineDiffBudget());
    expect(view?.summary).toBeUndefined();
    expect(view?.diff?.filter((line) => line.kind === '+').length).toBeGreaterThanOrEqual(4999);
  });

  it('always shows texts of 2,000 lines in all line by line, however much they differ', () => {
    const [view] = fieldViews(promptChange(lines(1000, (index) => `a${index}`), lines(1000, (index) => `b${index}`)), new LineDiffBudget());
    expect(view?.diff?.filter((line) => line.kind !== '@' && line.kind !== ' ')).toHaveLength(2000);
  });
});

/**
 * `count` agents whose prompts of 10,000 lines have their first 100 rewritten: each diff a field's
 * whole budget (20,000 lines × 200 changed, `LINE_DIFF_WORK`). Many lines and few changed, as in
 * `edited`: the budget is spent by a short search.
 */
function promptsAtTheirBudget(count: number): ResourceChange[] {
  return Array.from({ length: count }, (_, agent) => ({
    ...promptChange(
      lines(10_000, (index) => `agent ${agent} line ${index}`),
      `${lines(100, (index) => `agent ${agent} new ${index}`)}${lines(9_900, (index) => `agent ${agent} line ${index + 100}`)}`,
    ),
    address: `agent.desk-${agent}`,
    id: `a${agent}`,
  }));
}

const SPENT = "(replaced whole: this output has shown as many line diffs as it may";

describe("the line diffs of one output", () => {
  it('share one budget: ten fields at their own budget get their line diffs, the eleventh reads as replaced whole', () => {
    expect(LINE_DIFF_WORK_PER_OUTPUT).toBe(10 * LINE_DIFF_WORK);
    expect(maxEditLines(20_000)).toBe(200);
    const budget = new LineDiffBudget();
    const views = promptsAtTheirBudget(11).flatMap((change) => fieldViews(change, budget));
    expect(views.slice(0, 10).every((view) => view.diff?.filter((line) => line.kind === '-').length === 100)).toBe(true);
    expect(views[10]?.diff).toBeUndefined();
    expect(views[10]?.summary).toContain(SPENT);
  });

  it('charge a field for the lines it found changed, not the most it could have looked for', () => {
    // Texts of 1,000 lines, one of them rewritten: 2,000 lines in all, 2 changed (one removed, one added), charged 4,000.
    const budget = new LineDiffBudget({ work: 2 * 2000 * 2 });
    const before = lines(1000, (index) => `line ${index}`);
    const after = before.replace('line 500\n', 'line five hundred\n');
    const changes = [0, 1, 2].map((agent) => ({ ...promptChange(before, after), address: `agent.desk-${agent}` }));
    const views = changes.flatMap((change) => fieldViews(change, budget));
    expect(views.map((view) => view.diff?.filter((line) => line.kind === '+').length)).toEqual([1, 1, undefined]);
  });

  it('give a field made again the view it had, charged once', () => {
    const budget = new LineDiffBudget({ work: LINE_DIFF_WORK });
    const [change] = promptsAtTheirBudget(1);
    const first = fieldViews(change!, budget);
    expect(first[0]?.diff).toBeDefined();
    expect(fieldViews(change!, budget)).toEqual(first);
  });

  it.each([
    ['the texts differ too much', new LineDiffBudget()],
    ['this output has shown as many', new LineDiffBudget({ work: 40_001 * 10 })],
  ])('do not search again for a field made again whose search gave up (%s)', (why, budget) => {
    const { before, after } = edited(50);
    const change = promptChange(before, after);
    const searches = vi.mocked(jsdiff.structuredPatch);
    searches.mockClear();
    const first = fieldViews(change, budget);
    expect(first[0]?.summary).toContain(`(replaced whole: ${why}`);
    expect(fieldViews(change, budget)).toEqual(first);
    expect(searches).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['text', (changes: ResourceChange[]) => renderPlanText(planOf(changes), { color: false })],
    ['markdown', (changes: ResourceChange[]) => renderPlanMarkdown(planOf(changes), { limit: Number.MAX_SAFE_INTEGER })],
  ])('of a plan in %s share its budget', (_format, render) => {
    const shown = render(promptsAtTheirBudget(11));
    expect(shown.split(SPENT)).toHaveLength(2);
    expect(shown).toContain('agent 9 new 99');
    expect(shown).not.toContain('agent 10 new 0');
  });

  it('show at most so much: a text set from one line, which needs no search, counts every line it shows', () => {
    expect(LINE_DIFF_SHOWN_PER_OUTPUT).toBe(64_000_000);
    const long = lines(3000, (index) => `line ${index}`);
    // What each field shows: "-one line" and 3,000 lines of "+", each line counting 64 more than its characters.
    const shown = 'one line\n'.length + long.length + 64 * 3001;
    const budget = new LineDiffBudget({ shown: 3 * shown - 1 });
    const views = [0, 1, 2].flatMap((agent) => fieldViews({ ...promptChange('one line', long), address: `agent.desk-${agent}` }, budget));
    expect(views.map((view) => view.diff?.filter((line) => line.kind === '+').length)).toEqual([3000, 3000, undefined]);
    expect(views[2]?.summary).toBe(`${SPENT}, 1 line, 8 characters → 3,000 lines, ${long.length.toLocaleString('en-US')} characters; --format json holds both, to compare with a diff tool)`);
  });

  it('count the characters of the lines they show: a live prompt of one long line', () => {
    const budget = new LineDiffBudget({ shown: 250_000 });
    const views = [0, 1, 2].flatMap((agent) => fieldViews({ ...promptChange('word '.repeat(20_000), 'y'), address: `agent.desk-${agent}` }, budget));
    expect(views.map((view) => view.diff?.filter((line) => line.kind === '+').length)).toEqual([1, 1, undefined]);
    expect(views[2]?.summary).toContain(SPENT);
  });

  it('of a plan show at most LINE_DIFF_SHOWN_PER_OUTPUT: prompts of 400,000 empty lines set from one line', () => {
    // Each update sends 800 KB (a line break is two bytes of JSON), within what one request and a plan may send.
    const changes = [0, 1, 2].map((agent) => ({ ...promptChange('one line', '\n'.repeat(400_000)), address: `agent.desk-${agent}` }));
    const shown = renderPlanText(planOf(changes), { color: false });
    expect(shown.split(SPENT)).toHaveLength(2);
    expect(shown.split('\n').length).toBeLessThan(LINE_DIFF_SHOWN_PER_OUTPUT / LINE_SHOWN_COST);
  });
});
