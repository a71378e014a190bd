/** Cost and latency: what every turn of every call sends to the model. */
import type { PolicyRule, RuleHit } from '../types.js';
import { promptPlace } from '../places.js';
import { formatCount } from '../../util/plural.js';

/** Tokens of a prompt past which every turn costs more and answers later. */
const PROMPT_TOKEN_BUDGET = 4_000;

export const COST_RULES: PolicyRule[] = [
  {
    id: 'cost-prompt-tokens',
    area: 'cost',
    level: 'advisory',
    summary: `A prompt of at most ${formatCount(PROMPT_TOKEN_BUDGET)} tokens (o200k_base).`,
    hint: 'Move reference material (prices, opening hours, policies) into a knowledge file; keep the prompt to how the agent behaves.',
    check: async ({ desired, tokens }) => {
      const hits: RuleHit[] = [];
      for (const agent of desired.agents.values()) {
        const prompt = promptPlace(desired, agent);
        const count = prompt ? await tokens.over(prompt.text, PROMPT_TOKEN_BUDGET) : undefined;
        if (!prompt || count === undefined) continue;
        hits.push({ resource: agent.address, message: `the prompt is ${formatCount(count)} tokens (${tokens.encoding}), over the budget of ${formatCount(PROMPT_TOKEN_BUDGET)}: every turn of every call sends it`, location: prompt.at(0) });
      }
      return hits;
    },
  },
];
