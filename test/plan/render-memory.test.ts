/**
 * What a plan keeps of its output while the other reads are on the wire: a changed resource's
 * output is made as its read arrives, and a plan of thousands of changed prompts holds all of it
 * until it prints. Measured as the live heap after a full collection, against the text printed.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { diffStates } from '../../src/plan/diff.js';
import { prepareMarkdownSection, renderPlanMarkdown } from '../../src/plan/render-markdown.js';
import { prepareChangeText, renderPlanText } from '../../src/plan/render-text.js';
import { LineDiffBudget } from '../../src/plan/field-lines.js';
import type { ResourceChange } from '../../src/plan/types.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { desiredAgent, desiredState } from '../helpers/desired.js';
import { planOf } from '../helpers/plan.js';

v8.setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

function liveHeap(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}

/** `count` agents whose prompt of `lines` lines changes on every line. */
function changedPrompts(count: number, lines: number): ResourceChange[] {
  const prompt = (i: number, tag: string) => Array.from({ length: lines }, (_, k) => `- Rule ${k}: confirm the caller's name for booking ${i}-${k} ${tag}.`).join('\n');
  const agents = Array.from({ length: count }, (_, i) => desiredAgent(`agent-${i}`, { id: `a${i}`, config: { prompt: prompt(i, 'NEW') } }));
  const live = new Map(agents.map((agent, i) => [agent.id, { id: agent.id, name: `Agent ${i}`, config: { prompt: prompt(i, 'OLD') } }]));
  const { changes } = diffStates({ desired: desiredState({ agents }), live: { agents: live, phones: [] }, state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] });
  return changes;
}

describe('output made ahead of printing', () => {
  it('text: each change keeps its printed block, not the line diffs it was made from', () => {
    const changes = changedPrompts(60, 200);
    const before = liveHeap();
    const lineDiffs = new LineDiffBudget();
    for (const change of changes) prepareChangeText(change, { color: false, lineDiffs });
    const kept = liveHeap() - before;
    const printed = renderPlanText(planOf(changes), { color: false, lineDiffs }).length;
    // The blocks are the printed text (one byte a character here); the line diffs were twice as much again.
    expect(kept).toBeLessThan(1.5 * printed);
  });

  it('markdown: each change keeps the size of its section, not its diff, which a cut comment mostly does not show', () => {
    const changes = changedPrompts(60, 200);
    const before = liveHeap();
    const [secrets, lineDiffs] = [{ redact: (text: string) => text, size: 0 }, new LineDiffBudget()];
    for (const change of changes) prepareMarkdownSection(change, secrets, lineDiffs);
    const kept = liveHeap() - before;
    const shown = renderPlanMarkdown(planOf(changes), { secrets, lineDiffs });
    expect(shown).toContain('more changed resources, not shown here');
    // Their line diffs are about 1.5 MB. What the first section sets up for good (compiled patterns,
    // caches) and the collector's spread come to a few hundred KB when this file runs alone.
    expect(kept).toBeLessThan(512 * 1024);
  });
});
