/**
 * What a plan carries of policy: the findings, each changed prompt's token count before and after,
 * and the relaxations against the base revision (a lowered level, a new waiver), which a reviewer
 * sees first.
 */
import type { SourceLocation } from '../errors.js';
import type { DesiredState } from '../manifest/types.js';
import type { SecretRegistry } from '../secrets/redact.js';
import { withheldLiveText } from '../secrets/withhold.js';
import { withheldAgents } from './withheld-state.js';
import type { PolicyReport, TokenCounter } from './types.js';
import { formatCount } from '../util/plural.js';
import { byCodeUnits } from '../util/compare.js';

/** A way the pull request weakens a rule of review: a lowered level, a new waiver, a weakened promotion gate. */
export interface Relaxation {
  /** What was relaxed: `level-lowered`, `waiver-added`, `waiver-extended`, `team-rule-removed`, `gate`, … */
  kind: string;
  /** One sentence for the reviewer: `production: min_calls lowered from 50 to 10`. */
  message: string;
  /** Where in the pull request's manifests, when the setting is still written there. */
  file?: string;
  line?: number;
  column?: number;
}

/** Where a relaxation is written, from a manifest location; nothing when it has none (or names no file). */
export function relaxationPlace(location: SourceLocation | undefined): Pick<Relaxation, 'file' | 'line' | 'column'> {
  return location && location.file !== '' ? { file: location.file, line: location.line, column: location.col } : {};
}

interface PromptTokens {
  address: string;
  /** Tokens of the live prompt, its secrets withheld; undefined when the agent had none. */
  before: number | undefined;
  after: number;
}

export interface PlanPolicy {
  report: PolicyReport;
  /** Each changed prompt's token count, in address order. */
  promptTokens: PromptTokens[];
  /** The base revision relaxations were looked for against; undefined when none was given. */
  base: string | undefined;
  relaxations: Relaxation[];
}

/**
 * Token counts of the prompts a plan changes (the tokenizer is loaded only when one changes). Neither
 * side counts a secret, since a count would print its length on the pull request: the count after is
 * of the prompt as every policy rule reads it, values from `${env:…}` withheld (withheld-state.ts);
 * the count before is of the live prompt with every secret the run knows withheld the same way
 * (`withheldLiveText`: an earlier apply may have put a value from the environment into it).
 */
export async function promptTokenChanges(
  changes: ReadonlyArray<{ address: string; fieldChanges: ReadonlyArray<{ path: string; before: unknown }> }>,
  desired: DesiredState,
  counting: { tokens: TokenCounter; secrets: Pick<SecretRegistry, 'replaced'> },
): Promise<PromptTokens[]> {
  const agents = new Map([...desired.agents.values()].map((agent) => [agent.address, agent]));
  const withheld = withheldAgents();
  const count = (text: string) => counting.tokens.count(text);
  const out: PromptTokens[] = [];
  for (const change of changes) {
    const field = change.fieldChanges.find((f) => f.path === 'config.prompt');
    const agent = agents.get(change.address);
    const after = agent && withheld(agent).config.prompt;
    if (!field || typeof after !== 'string') continue;
    const before = typeof field.before === 'string' ? await count(withheldLiveText(field.before, counting.secrets)) : undefined;
    out.push({ address: change.address, before, after: await count(after) });
  }
  return out.sort((a, b) => byCodeUnits(a.address, b.address));
}

/** "1,204 → 1,391 tokens, +15.5%"; "20 → 2,910 tokens, +14,450%"; "1,391 tokens (new)". */
export function describeTokenChange(change: PromptTokens): string {
  if (change.before === undefined) return `${formatCount(change.after)} tokens (new)`;
  if (change.before === 0) return `0 → ${formatCount(change.after)} tokens`;
  const percent = ((change.after - change.before) / change.before) * 100;
  const sign = percent > 0 ? '+' : percent < 0 ? '−' : '±';
  // A tenth of a percent tells a small edit from none; past a doubling, whole percents read better.
  const size = Math.abs(percent) < 100 ? Math.abs(percent).toFixed(1) : formatCount(Math.round(Math.abs(percent)));
  return `${formatCount(change.before)} → ${formatCount(change.after)} tokens, ${sign}${size}%`;
}
