/**
 * One policy report for manifests and every environment overlay (`validate` without `--env`): each
 * finding once, wherever it occurs. A finding of the manifests as they stand (no overlay) is theirs;
 * one that only an overlay brings names the environments it occurs in. Past MAX_FINDINGS_KEPT the
 * reports only count their findings, so a merged count is then at least what any one report left out.
 */
import { formatSourceLocation } from '../errors.js';
import { listingOrder } from './evaluate.js';
import { KeptFindings, omittedOfLevel, waivedOmitted } from './kept-findings.js';
import { WAIVER_UNUSED } from './section.js';
import type { Finding, PolicyReport, WaiverStatus } from './types.js';
import { greatest } from '../util/extremes.js';

function findingKey(finding: Finding): string {
  return [finding.rule, finding.level, finding.resource, finding.message, formatSourceLocation(finding.location)].join('\0');
}

/** Every finding once, by position: those only environments bring with the environments they occur in. */
function mergeFindings(base: readonly Finding[], environments: ReadonlyArray<[string, readonly Finding[]]>): Finding[] {
  const merged = new Map(base.map((finding) => [findingKey(finding), finding]));
  for (const [environment, findings] of environments) {
    for (const finding of findings) {
      const key = findingKey(finding);
      const known = merged.get(key);
      if (!known) merged.set(key, { ...finding, environments: [environment] });
      else if (known.environments && !known.environments.includes(environment)) known.environments.push(environment);
    }
  }
  return [...merged.values()].sort(listingOrder);
}

/** A waiver is in force when it silences a finding in any of them, else as the manifests without an overlay have it. */
function mergeWaivers(base: readonly WaiverStatus[], reports: readonly PolicyReport[]): WaiverStatus[] {
  const key = (waiver: WaiverStatus) => `${waiver.rule}\0${waiver.resource}\0${formatSourceLocation(waiver.location)}`;
  const inForce = new Set(reports.flatMap((report) => report.waivers.filter((w) => w.state === 'in-force').map(key)));
  return base.map((waiver) => (inForce.has(key(waiver)) ? { ...waiver, state: 'in-force' } : waiver));
}

/**
 * Whether a finding says a waiver silences nothing although it silences a finding of another of the
 * reports: unused is a verdict over all of them, as the waiver's merged state has it. The finding is
 * the policy section's (its resource is `policy`): it is at the waiver's own entry.
 */
function unusedButInForce(finding: Finding, waivers: readonly WaiverStatus[]): boolean {
  if (finding.rule !== WAIVER_UNUSED) return false;
  const at = formatSourceLocation(finding.location);
  return waivers.some((waiver) => waiver.state === 'in-force' && formatSourceLocation(waiver.location) === at);
}

export function mergeEnvironmentReports(base: PolicyReport, environments: ReadonlyMap<string, PolicyReport>): PolicyReport {
  const entries = [...environments];
  const waivers = mergeWaivers(base.waivers, [base, ...environments.values()]);
  const reports = [base, ...environments.values()];
  // Past the cap a report only counts its findings: those of the report that left out the most stand for all.
  const findings = new KeptFindings();
  for (const finding of mergeFindings(base.findings, entries.map(([name, report]) => [name, report.findings]))) if (!unusedButInForce(finding, waivers)) findings.add(finding);
  for (const level of ['mandatory', 'advisory'] as const) findings.countOmitted(level, greatest(reports.map((report) => omittedOfLevel(report, level))));
  const waived = new KeptFindings();
  for (const finding of mergeFindings(base.waived, entries.map(([name, report]) => [name, report.waived]))) waived.add(finding);
  const waivedCount = waived.total;
  return {
    ...base,
    findings: findings.kept().sort(listingOrder),
    waived: waived.kept().sort(listingOrder),
    waivers,
    summary: { ...findings.total, waived: waivedCount.mandatory + waivedCount.advisory + greatest(reports.map(waivedOmitted)) },
  };
}
