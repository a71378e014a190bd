/**
 * Two texts that differ only in the line break at their end (a prompt edited in the dashboard, whose
 * editor kept the Enter pressed after the last line) have the same lines: their line diff is empty,
 * and the plan showed the field as changed with nothing under it. It says what differs instead; and
 * where other lines change too, the line diff alone hid it, so a line after the diff says it.
 */
import { describe, expect, it } from 'vitest';
import { diffStates, summarize } from '../../src/plan/diff.js';
import { renderPlanMarkdown } from '../../src/plan/render-markdown.js';
import { renderPlanText } from '../../src/plan/render-text.js';
import type { Plan } from '../../src/plan/types.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { desiredAgent, desiredState } from '../helpers/desired.js';
import { planOf } from '../helpers/plan.js';

function promptPlan(live: string, desired: string): Plan {
  const agent = desiredAgent('front-desk', { id: 'a1', config: { prompt: desired } });
  const { changes } = diffStates({
    desired: desiredState({ agents: [agent] }),
    live: { agents: new Map([['a1', { id: 'a1', name: 'Front desk', config: { prompt: live } }]]), phones: [] },
    state: emptyWorkspace(),
    salt: 'salt',
    baseUrl: 'local',
    files: [],
  });
  return planOf(changes, { summary: summarize(changes) });
}

describe('a text that differs only in the line break at its end', () => {
  it('reads as such in the text plan, not as a change with nothing shown', () => {
    const removed = renderPlanText(promptPlan('Line one\nLine two\n', 'Line one\nLine two'), { color: false });
    expect(removed).toContain('      ~ config.prompt: (the same lines; the line break at the end removed)\n');
    const added = renderPlanText(promptPlan('Line one\nLine two', 'Line one\nLine two\n'), { color: false });
    expect(added).toContain('      ~ config.prompt: (the same lines; a line break added at the end)\n');
  });

  it('reads as such in the pull-request comment', () => {
    expect(renderPlanMarkdown(promptPlan('Line one\nLine two\n', 'Line one\nLine two'))).toContain('! config.prompt: (the same lines; the line break at the end removed)\n');
  });

  it('is said after the line diff when other lines change too', () => {
    const added = renderPlanText(promptPlan('a\nb', 'a\nc\n'), { color: false });
    expect(added).toContain('      ~ config.prompt:\n          @@ -1,2 +1,2 @@\n           a\n          -b\n          +c\n          \\ (a line break added at the end)\n');
    const emptyLineAdded = renderPlanText(promptPlan('a\nb', 'a\nb\n\n'), { color: false });
    expect(emptyLineAdded).toContain('          @@ -1,2 +1,3 @@\n           a\n           b\n          +\n          \\ (a line break added at the end)\n');
    const removed = renderPlanMarkdown(promptPlan('a\nb\n', 'a\nc'));
    expect(removed).toContain('@@ -1,2 +1,2 @@ config.prompt\n a\n-b\n+c\n\\ (the line break at the end removed)\n');
  });

  it('is not said when both texts end alike', () => {
    expect(renderPlanText(promptPlan('a\nb\n', 'a\nc\n'), { color: false })).not.toContain('line break');
    expect(renderPlanText(promptPlan('a\nb', 'a\nc'), { color: false })).not.toContain('line break');
  });
});
