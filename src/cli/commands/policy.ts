/** `voxform policy list`: every rule validate and plan check, its level, and where that level was set. */
import { terminalColors } from '../../util/terminal-colors.js';
import { resolveRules, SECTION_RULES } from '../../policy/evaluate.js';
import { loadOperatorPacks } from '../../policy/operator-packs.js';
import type { LevelSource, RuleStatus } from '../../policy/types.js';
import { printable, toJsonText } from '../../util/printable.js';
import type { CommandContext } from '../context.js';
import { loadManifestsIfAny } from '../load-manifests.js';
import { formatSourceLocation } from '../../errors.js';
import { greatest } from '../../util/extremes.js';

interface PolicyListOptions {
  file?: string[];
  env?: string;
  format?: 'text' | 'json';
}

function describeSource(source: LevelSource): string {
  if (source.kind === 'default') return 'default';
  if (source.kind === 'fixed') return 'always on';
  if (source.kind === 'operator') return `operator pack ${source.pack}`;
  return formatSourceLocation(source.location);
}

export async function run(options: PolicyListOptions, ctx: CommandContext): Promise<number> {
  // Without manifests, or with broken ones, the rules at their own levels; with ids only in the environments, the manifests' policy all the same.
  const loaded = await loadManifestsIfAny(options, ctx, 'levels are shown as the rules set them');
  const { files } = loaded;
  const policy = loaded.state ? loaded.state.policy : loaded.policy;
  const packs = await loadOperatorPacks(ctx.env, ctx.cwd, files);
  const { rules } = await resolveRules({ policy, files }, { packs, fallback: { file: files[0] ?? 'voxform.yaml', line: 1, col: 1 } });
  const statuses = [...rules.map(({ status }) => status), ...SECTION_RULES];
  if (options.format === 'json') {
    const json = statuses.map((rule) => ({ id: rule.id, area: rule.area, level: rule.level, default_level: rule.defaultLevel, set_by: describeSource(rule.source), summary: rule.summary, hint: rule.hint }));
    ctx.stdout.write(`${toJsonText({ rules: json }, 2)}\n`);
    return 0;
  }
  ctx.stdout.write(renderList(statuses, ctx.color));
  return 0;
}

function renderList(rules: readonly RuleStatus[], color: boolean): string {
  const c = terminalColors(color);
  const width = greatest(rules.map((rule) => rule.id.length));
  const lines: string[] = [];
  let area = '';
  for (const rule of rules) {
    if (rule.area !== area) {
      area = rule.area;
      lines.push(c.bold(area));
    }
    const level = rule.level === 'mandatory' ? c.red('mandatory') : rule.level === 'advisory' ? c.yellow('advisory ') : c.dim('off      ');
    const source = rule.source.kind === 'default' || rule.source.kind === 'fixed' ? c.dim(describeSource(rule.source)) : printable(describeSource(rule.source));
    lines.push(`  ${rule.id.padEnd(width)}  ${level}  ${source}`, `  ${' '.repeat(width)}  ${c.dim(printable(rule.summary))}`);
  }
  lines.push('', 'Set levels in the manifest: policy: { rules: { RULE_ID: mandatory|advisory|off } } (docs/policy.md).');
  return `${lines.join('\n')}\n`;
}
