/**
 * The findings a run keeps: at most MAX_FINDINGS_KEPT, every one past them only counted. Team rules
 * with a wildcard path find rules × values (hundreds of thousands from a small manifest), and each
 * kept finding is held, sorted and printed. Mandatory findings are kept before advisory ones, so
 * what fails a run is what is listed; the counts, and so the verdict, include every finding.
 */
import { MAX_FINDINGS_KEPT } from '../project-files/limits.js';
import type { Finding, PolicyReport } from './types.js';

export class KeptFindings {
  private readonly mandatory: Finding[] = [];
  private readonly advisory: Finding[] = [];
  private readonly counts = { mandatory: 0, advisory: 0 };

  constructor(private readonly most: number = MAX_FINDINGS_KEPT) {}

  add(finding: Finding): void {
    this.offer(finding.level, () => finding);
  }

  /** Counts a finding of `level`, built only when it is kept: past the cap, checks build no messages. */
  offer(level: Finding['level'], build: () => Finding): void {
    this.counts[level]++;
    const list = level === 'mandatory' ? this.mandatory : this.advisory;
    if (list.length < this.most) list.push(build());
  }

  /**
   * Counts and keeps a finding that must be listed whatever came before it (the run's checks ran
   * out): at the cap, the last finding kept of its level makes room and is only counted.
   */
  addAhead(finding: Finding): void {
    this.counts[finding.level]++;
    const list = finding.level === 'mandatory' ? this.mandatory : this.advisory;
    list.unshift(finding);
    if (list.length > this.most) list.pop();
  }

  /** Counts `count` findings of `level` that are not kept (those another list left out). */
  countOmitted(level: Finding['level'], count: number): void {
    this.counts[level] += count;
  }

  /** Every finding counted, by level. */
  get total(): { mandatory: number; advisory: number } {
    return { ...this.counts };
  }

  /** The kept findings, mandatory ones first, in the order they came: at most `most`. */
  kept(): Finding[] {
    return [...this.mandatory, ...this.advisory.slice(0, Math.max(0, this.most - this.mandatory.length))];
  }
}

/** How many findings a report counts but does not list (findings past MAX_FINDINGS_KEPT). */
export function findingsOmitted(report: Pick<PolicyReport, 'findings' | 'summary'>): number {
  return Math.max(0, report.summary.mandatory + report.summary.advisory - report.findings.length);
}

/** How many waived findings a report counts but does not list. */
export function waivedOmitted(report: Pick<PolicyReport, 'waived' | 'summary'>): number {
  return Math.max(0, report.summary.waived - report.waived.length);
}

/** A report's findings of `level` that it counts but does not list. */
export function omittedOfLevel(report: Pick<PolicyReport, 'findings' | 'summary'>, level: Finding['level']): number {
  return Math.max(0, report.summary[level] - report.findings.filter((finding) => finding.level === level).length);
}
