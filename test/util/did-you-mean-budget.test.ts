import { describe, expect, it } from 'vitest';
import { didYouMean, MOST_SUGGESTION_CELLS, SuggestionBudget } from '../../src/util/did-you-mean.js';
import { loadTree, summarize } from '../manifest/helpers.js';

describe('the suggestion budget', () => {
  it('bounds the characters a run of suggestions compares: 10,000 missing names among 10,000 (a planted manifest) do not cost their product', () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `agent-number-${String(i).padStart(5, '0')}`);
    let drawn = 0;
    const counted = function* () {
      for (const name of names) {
        drawn++;
        yield name;
      }
    };
    const budget = new SuggestionBudget();
    // Each a typo of a name: every one would have its suggestion, but the budget runs out on the way.
    const suggested = names.map((name) => didYouMean(name.replace('number', 'numbr'), counted(), budget));
    expect(suggested[0]).toBe('agent-number-00000');
    expect(suggested.at(-1)).toBeUndefined();
    // Each candidate drawn is charged its length at least, and once the budget is spent a call
    // draws one: every name against every other would be 100,000,000.
    expect(drawn).toBeLessThan(MOST_SUGGESTION_CELLS / 18 + 10_000);
  });

  it('is one for a whole load of the manifests: past it, references come without a suggestion', async () => {
    const agents = Array.from({ length: 3_000 }, (_, i) => `  agent-number-${String(i).padStart(5, '0')}:\n    id: ag_${i}\n    knowledge: [doc-number-${String(i).padStart(5, '0')}x]`);
    const knowledge = Array.from({ length: 3_000 }, (_, i) => `  doc-number-${String(i).padStart(5, '0')}: { file: k.txt }`);
    const result = await loadTree({ 'voxform.yaml': `agents:\n${agents.join('\n')}\nknowledge:\n${knowledge.join('\n')}\n`, 'k.txt': 'facts\n' });
    const missing = summarize(result).filter((line) => line.includes('reference_missing'));
    expect(missing[0]).toContain('did you mean "doc-number-00000"?');
    expect(missing.at(-1)).not.toContain('did you mean');
  });
});
