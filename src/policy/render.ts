/**
 * Policy findings as people read them: terminal text (validate, plan) and the Markdown section of a
 * plan comment; and as JSON (the `policy` block of `validate --format json` and of the plan).
 * Every text passes through the CLI's printer or the Markdown escaper: rule messages quote
 * what a manifest says.
 */
import { terminalColors } from '../util/terminal-colors.js';
import { markdownCode, markdownText } from '../util/markdown-escape.js';
import { formatCount, plural } from '../util/plural.js';
import { printable } from '../util/printable.js';
import { codeLead, formatSourceLocation } from '../errors.js';
import { describeTokenChange, type PlanPolicy, type Relaxation } from './plan-policy.js';
import { SECTION_RULE_IDS } from './section.js';
import type { Finding, PolicyReport, WaiverStatus } from './types.js';
import type { CommentBlock } from '../util/comment-blocks.js';
import { MAX_DIAGNOSTICS_SHOWN, MAX_FINDINGS_KEPT } from '../project-files/limits.js';
import { findingsOmitted } from './kept-findings.js';
import { inEnvironmentsNote } from '../manifest/describe.js';

/** Most entries a plan comment lists of each policy list (relaxations, findings, waivers, token counts); the rest are counted. */
const COMMENT_LIST_SHOWN = 50;

/** Most findings validate and the text plan print; the rest are counted in one line, as diagnostics are. */
const FINDINGS_SHOWN = MAX_DIAGNOSTICS_SHOWN;

/** The report with its mandatory findings only (what refuses a deploy), counted as before. */
export function mandatoryOnly(report: PolicyReport): PolicyReport {
  return { ...report, findings: report.findings.filter((finding) => finding.level === 'mandatory'), summary: { ...report.summary, advisory: 0 } };
}

/** "policy: 1 mandatory violation, 2 advisory findings, 1 waived". */
export function policySummaryLine(report: PolicyReport): string {
  const { mandatory, advisory, waived } = report.summary;
  if (mandatory + advisory + waived === 0) return 'policy: no findings';
  const parts = [plural(mandatory, 'mandatory violation'), plural(advisory, 'advisory finding')];
  if (waived > 0) parts.push(`${formatCount(waived)} waived`);
  return `policy: ${parts.join(', ')}`;
}

/** " (environment staging)" for a finding only environment overlays bring; else nothing. */
export function inEnvironments(finding: Finding): string {
  return inEnvironmentsNote(finding.environments ?? []);
}

/**
 * A finding's message led by the resource it is about (`agent.front-desk: prompt holds a phone
 * number`): its place alone may not say which (a prompt file two agents read, a resource's key), and
 * a waiver names the resource. The policy section's own findings are about the section, and say so.
 */
function findingMessage(finding: Finding): string {
  return SECTION_RULE_IDS.includes(finding.rule) ? finding.message : `${finding.resource}: ${finding.message}`;
}

/**
 * Each finding as `file:line:col  level[rule-id]: resource: message` (as a diagnostic leads with
 * `error[code]:`), its hint under it: the first FINDINGS_SHOWN, then a line counting the rest (those
 * the run only counted too).
 */
export function renderFindingsText(report: PolicyReport, options: { color: boolean }): string {
  const c = terminalColors(options.color);
  const lines: string[] = [];
  for (const finding of report.findings.slice(0, FINDINGS_SHOWN)) {
    const accent = finding.level === 'mandatory' ? c.red : c.yellow;
    lines.push(`${c.bold(printable(formatSourceLocation(finding.location)))}  ${accent(`${codeLead(finding.level, finding.rule)}:`)} ${printable(findingMessage(finding))}${printable(inEnvironments(finding))}`, `  hint: ${printable(finding.hint)}`, '');
  }
  const hidden = Math.max(0, report.findings.length - FINDINGS_SHOWN) + findingsOmitted(report);
  if (hidden > 0) lines.push(`…and ${formatCount(hidden)} more (only the first ${FINDINGS_SHOWN} are shown; fix these and run again)`, '');
  for (const waiver of report.waivers.filter((w) => w.state === 'in-force')) {
    lines.push(`${c.dim(`waived until ${waiver.expires}:`)} ${waiver.rule} for ${printable(waiver.resource)} (${printable(waiver.reason)})`);
  }
  return lines.length === 0 ? '' : `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

export function renderRelaxationsText(relaxations: readonly Relaxation[], options: { color: boolean }): string {
  if (relaxations.length === 0) return '';
  const c = terminalColors(options.color);
  const lines = [c.bold(c.yellow(`⚠ policy relaxed: this change weakens review (${plural(relaxations.length, 'relaxation')})`))];
  for (const r of relaxations) lines.push(`  - ${r.file ? `${printable(formatSourceLocation({ file: r.file, line: r.line ?? 1, col: r.column ?? 1 }))}  ` : ''}${printable(r.message)}`);
  return `${lines.join('\n')}\n\n`;
}

/** The plan's policy lines for the terminal: token changes, findings, summary. */
export function renderPlanPolicyText(policy: PlanPolicy, options: { color: boolean }): string {
  const out: string[] = [];
  if (policy.promptTokens.length > 0) {
    out.push(`Prompt tokens (${policy.report.tokenizer}):`);
    for (const change of policy.promptTokens) out.push(`  ${change.address}: ${describeTokenChange(change)}`);
    out.push('');
  }
  const findings = renderFindingsText(policy.report, options);
  if (findings) out.push(findings);
  out.push(policySummaryLine(policy.report), '');
  return out.join('\n');
}

/** The "policy relaxed" list that opens a plan comment; none when nothing was relaxed. */
export function relaxationsMarkdown(relaxations: readonly Relaxation[]): CommentBlock[] {
  if (relaxations.length === 0) return [];
  return [
    {
      head: [`> [!WARNING]`, `> **Policy relaxed:** this pull request weakens review (${plural(relaxations.length, 'relaxation')}).`],
      items: relaxations.map((r) => `> - ${r.file ? `${markdownCode(`${r.file}:${r.line ?? 1}`)} ` : ''}${markdownText(r.message)}`),
      foot: [''],
      most: COMMENT_LIST_SHOWN,
      more: (omitted) => `> - …and ${formatCount(omitted)} more (\`voxform plan\` lists every one)`,
    },
  ];
}

function waiverRow(waiver: WaiverStatus): string {
  // markdownText escapes `|`, so a reason cannot end its cell.
  return `| ${markdownCode(waiver.rule, { inTable: true })} | ${markdownCode(waiver.resource, { inTable: true })} | ${waiver.expires} | ${markdownText(waiver.reason)} |`;
}

/** A finding as a list item of the comment, its hint under it as in the text. */
function findingItem(finding: Finding): string {
  const icon = finding.level === 'mandatory' ? '⛔' : '⚠️';
  return `- ${icon} ${markdownCode(codeLead(finding.level, finding.rule))} ${markdownCode(formatSourceLocation(finding.location))}: ${markdownText(findingMessage(finding))}\n  hint: ${markdownText(finding.hint)}`;
}

/** Whether the policy has findings or waivers to show (else a plan comment shows only its token counts). */
export function policyHasFindings(policy: PlanPolicy): boolean {
  return policy.report.findings.length > 0 || policy.report.waivers.some((w) => w.state === 'in-force');
}

/**
 * "**Prompt tokens** (o200k_base):" and a line per prompt, `agent.a` 1,204 → 1,391 tokens, +15.5%: a
 * list `fitBlocks` cuts like the others, to its equal part of the room so that the lists after it
 * (the findings) keep room to show something. None when no prompt changed.
 */
export function promptTokensMarkdown(policy: PlanPolicy): CommentBlock[] {
  if (policy.promptTokens.length === 0) return [];
  return [
    {
      head: [`**Prompt tokens** (${markdownCode(policy.report.tokenizer)}):`, ''],
      items: policy.promptTokens.map((t) => `- ${markdownCode(t.address)} ${describeTokenChange(t)}`),
      foot: [''],
      most: COMMENT_LIST_SHOWN,
      more: (omitted) => `- …and ${formatCount(omitted)} more (\`voxform plan\` lists every one)`,
    },
  ];
}

/** The policy section of a plan comment: token changes, findings, every waiver in force (each list cut by `fitBlocks`). */
export function planPolicyMarkdown(policy: PlanPolicy): CommentBlock[] {
  const { report } = policy;
  const blocks: CommentBlock[] = [[`### Policy: ${markdownText(policySummaryLine(report).replace(/^policy: /, ''))}`, ''], ...promptTokensMarkdown(policy)];
  if (report.findings.length > 0) {
    blocks.push({ head: [], items: report.findings.map(findingItem), foot: [''], most: COMMENT_LIST_SHOWN, more: (omitted) => `- …and ${formatCount(omitted + findingsOmitted(report))} more (\`voxform validate --format json\` lists up to ${formatCount(MAX_FINDINGS_KEPT)})` });
  }
  const inForce = report.waivers.filter((w) => w.state === 'in-force');
  if (inForce.length > 0) {
    blocks.push({
      head: ['**Waivers in force**', '', '| Rule | Resource | Until | Reason |', '|---|---|---|---|'],
      items: inForce.map(waiverRow),
      foot: [''],
      most: COMMENT_LIST_SHOWN,
      more: (omitted) => `| …and ${formatCount(omitted)} more (\`voxform validate\` lists every one) | | | |`,
    });
  }
  return blocks;
}

function findingJson(finding: Finding) {
  const json = { rule: finding.rule, level: finding.level, resource: finding.resource, message: finding.message, hint: finding.hint, file: finding.location.file, line: finding.location.line, col: finding.location.col };
  return finding.environments ? { ...json, environments: finding.environments } : json;
}

/** The `policy` block of validate's and plan's JSON. */
export function policyReportJson(report: PolicyReport) {
  return {
    tokenizer: report.tokenizer,
    summary: report.summary,
    findings: report.findings.map(findingJson),
    waived: report.waived.map(findingJson),
    waivers: report.waivers.map((w) => ({ rule: w.rule, resource: w.resource, reason: w.reason, expires: w.expires, state: w.state, file: w.location.file, line: w.location.line, col: w.location.col })),
  };
}

export function planPolicyJson(policy: PlanPolicy) {
  return {
    ...policyReportJson(policy.report),
    prompt_tokens: policy.promptTokens.map((t) => ({ address: t.address, before: t.before ?? null, after: t.after })),
    base: policy.base ?? null,
    relaxations: policy.relaxations.map((r) => ({ kind: r.kind, message: r.message, file: r.file ?? null, line: r.line ?? null, column: r.column ?? null })),
  };
}
