import { describeAction, summaryLine, viewField } from './field-lines.js';
import type { EnvironmentVariables, Plan, ResourceChange } from './types.js';

const ACTION_LABEL = { create: '➕ create', update: '🔄 update', 'no-op': 'unchanged' } as const;

/** A code fence longer than any run of backticks in the content, so a prompt cannot close it early. */
function fenceFor(content: string): string {
  const longest = Math.max(2, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

function escapeCell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function diffBlock(change: ResourceChange): string {
  const lines: string[] = [];
  for (const field of change.fieldChanges) {
    const view = viewField(field, change);
    const drift = view.drift ? '   # drift: changed on the service, not in the manifest' : '';
    if (view.summary !== undefined) {
      lines.push(`${view.marker === '~' ? '!' : view.marker} ${view.path}: ${view.summary}${drift}`);
      continue;
    }
    lines.push(`@@ ${view.path} @@${drift}`);
    for (const line of view.diff ?? []) if (line.kind !== '@') lines.push(`${line.kind}${line.text}`);
  }
  const body = lines.join('\n');
  const fence = fenceFor(body);
  return `${fence}diff\n${body}\n${fence}`;
}

/**
 * The variables the manifests read, by name, new ones in bold. A plan with no changes sends nothing,
 * so there the list stays out of the one-line comment unless a variable is new since the last apply.
 */
function environmentVariablesLines(variables: EnvironmentVariables | undefined): string[] {
  if (!variables || variables.names.length === 0) return [];
  const fresh = new Set(variables.new);
  const names = variables.names.map((name) => (fresh.has(name) ? `**\`${name}\` (new)**` : `\`${name}\``)).join(', ');
  const note = variables.recorded ? '' : ' No apply has recorded the variables it read, so each counts as new.';
  return [`**Environment variables read** (names only): ${names}.${note}`, ''];
}

/**
 * A pull-request comment: a heading with the summary, a table of changed resources, and one
 * collapsible section per resource holding a ```diff block. No changes: one line.
 */
export function renderPlanMarkdown(plan: Plan): string {
  const changed = plan.changes.filter((c) => c.action !== 'no-op');
  const env = plan.environment ? ` (\`${plan.environment}\`)` : '';
  if (changed.length === 0) {
    const line = `**voxform plan${env}:** no changes — the service matches the manifests (${plan.summary.unchanged} resources checked).`;
    const fresh = plan.environmentVariables?.recorded ? plan.environmentVariables.new : [];
    return fresh.length === 0 ? `${line}\n` : `${line} New environment variables read: ${fresh.map((name) => `**\`${name}\`**`).join(', ')}.\n`;
  }
  const out: string[] = [`### voxform plan${env}: ${summaryLine(plan.summary).replace(/^Plan: /, '')}`, ''];
  out.push('| Resource | Action | Fields |', '|---|---|---|');
  for (const change of changed) {
    const fields = change.fieldChanges.map((f) => `\`${f.path}\``).join(', ');
    const drift = change.reason === 'drift' ? ' (drift)' : '';
    out.push(`| \`${escapeCell(change.address)}\` | ${ACTION_LABEL[change.action]}${drift} | ${escapeCell(fields)} |`);
  }
  out.push('');
  for (const change of changed) {
    out.push(`<details><summary><code>${change.address}</code> ${describeAction(change)}</summary>`, '', diffBlock(change), '', '</details>', '');
  }
  out.push(...environmentVariablesLines(plan.environmentVariables));
  return `${out.join('\n').trimEnd()}\n`;
}
