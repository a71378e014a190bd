import { terminalColors, type Colors } from '../util/terminal-colors.js';
import { describeAction, DRIFT_NOTE, fieldViews, LineDiffBudget, movedKeyLines, MOVED_NOTE, MOVES_ONLY, summaryLine, SWAPPED_NOTE, type DiffLine, type FieldView } from './field-lines.js';
import type { EnvironmentVariables, Plan, ResourceChange } from './types.js';
import { lineAsShown } from '../util/printable.js';
import { missingStateWarning, PLAN_WITHOUT_STATE } from '../state/missing-state.js';
import { workspaceKey } from '../state/types.js';
import { noLongerManagedLine, noLongerManagedTitle } from './no-longer-managed.js';
import { renderPlanPolicyText, renderRelaxationsText } from '../policy/render.js';
import { requireOptions } from '../util/required-options.js';


const MARKER = { create: '+', update: '~', 'no-op': ' ' } as const;

function paintMarker(c: Colors, marker: string): string {
  return marker === '+' ? c.green(marker) : marker === '-' ? c.red(marker) : c.yellow(marker);
}

function paintDiffLine(c: Colors, line: DiffLine): string {
  if (line.kind === '@') return c.cyan(line.text);
  if (line.kind === '+') return c.green(`+${lineAsShown(line.text)}`);
  if (line.kind === '-') return c.red(`-${lineAsShown(line.text)}`);
  return c.dim(`${line.kind}${lineAsShown(line.text)}`);
}

function renderField(c: Colors, view: FieldView, lines: string[]): void {
  const drift = view.drift ? c.magenta(`  # drift: ${DRIFT_NOTE}`) : '';
  const head = `      ${paintMarker(c, view.marker)} ${lineAsShown(view.path)}`;
  if (view.summary !== undefined) {
    lines.push(`${head}: ${view.summary}${drift}`);
    return;
  }
  lines.push(`${head}:${drift}`);
  for (const line of view.diff ?? []) lines.push(`          ${paintDiffLine(c, line)}`);
}

/** Blocks made ahead (`prepareChangeText`), by change: a block depends on the change and the colors only. */
const blocks = new WeakMap<ResourceChange, { color: boolean; text: string }>();

/** Makes the text block of a changed resource now, while the other reads are still on the wire; `lineDiffs`: the plan's, given again to `renderPlanText`. */
export function prepareChangeText(change: ResourceChange, options: { color: boolean; lineDiffs: LineDiffBudget }): void {
  if (change.action !== 'no-op') changeText(terminalColors(options.color), change, options);
}

function changeText(c: Colors, change: ResourceChange, options: { color: boolean; lineDiffs: LineDiffBudget }): string {
  const known = blocks.get(change);
  if (known?.color === options.color) return known.text;
  const text = renderChange(c, change, options.lineDiffs).join('\n');
  blocks.set(change, { color: options.color, text });
  return text;
}

function renderChange(c: Colors, change: ResourceChange, lineDiffs: LineDiffBudget): string[] {
  const marker = MARKER[change.action];
  const id = change.id && !change.address.endsWith(change.id) ? c.dim(` (${change.id})`) : '';
  const drift = change.reason === 'drift' ? c.magenta(' [drifted: changed on the service since the last apply]') : '';
  const lines = [`  ${paintMarker(c, marker)} ${c.bold(change.address)}${id} ${lineAsShown(describeAction(change))}${drift}`];
  for (const view of fieldViews(change, lineDiffs)) renderField(c, view, lines);
  return lines;
}

/** The variables the manifests read, by name; new ones (not read at the last apply) marked `+`. */
function renderEnvironmentVariables(c: Colors, variables: EnvironmentVariables | undefined): string[] {
  if (!variables || variables.names.length === 0) return [];
  const fresh = new Set(variables.new);
  const legend = variables.recorded ? '+ not read at the last apply' : 'no apply has recorded the variables it read, so each counts as new';
  return [
    `Environment variables the manifests read (names only; ${legend}):`,
    ...variables.names.map((name) => (fresh.has(name) ? `  ${c.green('+')} ${c.bold(name)}` : `    ${name}`)),
    '',
  ];
}

/**
 * Terraform-like text: one block per changed resource, full dotted paths, line diffs for prompts.
 * `desired`: what the plan applies, as the line saying the service already holds it names it (a
 * rollback's is a recorded configuration): `the manifests` when not given. `lineDiffs`: the budget the
 * blocks made ahead (`prepareChangeText`) were made in (default a budget of this output's own).
 */
export function renderPlanText(plan: Plan, options: { color: boolean; verbose?: boolean; desired?: string | undefined; lineDiffs?: LineDiffBudget | undefined }): string {
  requireOptions('renderPlanText', options, { color: 'boolean' });
  const c = terminalColors(options.color);
  const out: string[] = [];
  // A state that lost the workspace comes first: every change below is counted without it. The ledger's id and time are shown, never run on the terminal.
  if (plan.missingState) out.push(c.yellow(missingStateWarning(plan.missingState, workspaceKey(plan.environment, plan.baseUrl), PLAN_WITHOUT_STATE, lineAsShown)), '');
  // What the change relaxes comes next: a reviewer reads it before the diff.
  const relaxed = plan.policy ? renderRelaxationsText(plan.policy.relaxations, options) : '';
  if (relaxed) out.push(relaxed.trimEnd(), '');
  const changed = plan.changes.filter((ch) => ch.action !== 'no-op');
  const where = `${plan.baseUrl}${plan.environment ? `, environment ${plan.environment}` : ''}`;
  const { renamed, swapped } = movedKeyLines(plan);
  const moved = [...renamed, ...swapped];
  if (changed.length === 0 && moved.length === 0) {
    out.push(`No changes. The service (${where}) matches ${options.desired ?? 'the manifests'}.`);
  } else if (changed.length === 0) {
    out.push(`Nothing to send to the service (${where}): it matches ${options.desired ?? 'the manifests'}. ${MOVES_ONLY}`);
  } else {
    out.push(`voxform will make these changes on ${where}:`, '');
    const made = { color: options.color, lineDiffs: options.lineDiffs ?? new LineDiffBudget() };
    for (const change of changed) out.push(changeText(c, change, made), '');
  }
  if (moved.length > 0 && changed.length === 0) out.push('');
  if (renamed.length > 0) out.push(`Renamed (${MOVED_NOTE}):`, ...renamed.map((line) => `    ${lineAsShown(line)}`), '');
  if (swapped.length > 0) out.push(`Keys swapped (${SWAPPED_NOTE}):`, ...swapped.map((line) => `    ${lineAsShown(line)}`), '');
  const removed = plan.noLongerManaged ?? [];
  if (removed.length > 0) {
    if (changed.length === 0 && moved.length === 0) out.push('');
    const { title, read } = noLongerManagedTitle(plan.files.map(lineAsShown));
    out.push(`${title}${read}:`, ...removed.map((resource) => `    ${noLongerManagedLine(resource, lineAsShown, options.desired)}`), '');
  }
  if (options.verbose) {
    for (const change of plan.changes.filter((ch) => ch.action === 'no-op')) out.push(`    ${change.address} ${c.dim('unchanged')}`);
  }
  const variables = renderEnvironmentVariables(c, plan.environmentVariables);
  // Changed resources, renamed resources and removed ones end with a blank line already; the one-line "No changes" does not.
  if (variables.length > 0 && changed.length === 0 && moved.length === 0 && removed.length === 0) out.push('');
  out.push(...variables);
  if (plan.policy) out.push(renderPlanPolicyText(plan.policy, options).trimEnd(), '');
  // The closing line break joined in: adding it after would make the printer's scrub copy a large plan again.
  out.push(c.bold(summaryLine(plan)), '');
  return out.join('\n');
}
