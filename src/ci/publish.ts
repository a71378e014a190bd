/**
 * Puts a report where the reviewers are: the job summary, and one comment per kind and environment
 * on the review — found by its hidden marker among the token's own comments and edited in place,
 * created only when there is none — then the review's labels, from every voxform comment on it.
 */
import { appendFile } from 'node:fs/promises';
import { VoxformError } from '../errors.js';
import type { ReviewHost } from './host.js';
import { hasMarker, kindOf, markerFor, statusLine, statusOf, type ReportKind, type ReportStatus } from './markers.js';
import type { Report } from './reports.js';

/** GitHub refuses a comment longer than this many characters (GitLab's notes allow more). */
export const HOST_COMMENT_LIMIT = 65_536;

export const LABELS = { changes: 'voxform:changes', noChanges: 'voxform:no-changes', testsFailing: 'voxform:tests-failing' } as const;

export interface PublishResult {
  /** The review commented on, if any. */
  review: number | undefined;
  comment: 'created' | 'updated' | 'none';
  labelsAdded: string[];
  labelsRemoved: string[];
  summary: boolean;
}

/** The whole comment: the marker, the status, the report. */
export function commentBody(report: Report): string {
  const body = `${markerFor(report.kind, report.environment)}\n${statusLine(report.status)}\n${report.markdown}`;
  // The renderers cap what they write well below the limit; this holds whatever they become.
  if (body.length > HOST_COMMENT_LIMIT) throw new Error(`a ${report.kind} comment of ${body.length} characters, over the host's ${HOST_COMMENT_LIMIT}`);
  return body;
}

/** Labels from the statuses of every voxform comment of a kind: any environment with changes, or a failing test, counts. */
export function labelsFor(kind: ReportKind, statuses: readonly ReportStatus[]): { add: string[]; remove: string[] } {
  if (kind === 'plan') {
    if (statuses.includes('changes')) return { add: [LABELS.changes], remove: [LABELS.noChanges] };
    if (statuses.length > 0 && statuses.every((status) => status === 'no-changes')) return { add: [LABELS.noChanges], remove: [LABELS.changes] };
    return { add: [], remove: [LABELS.changes, LABELS.noChanges] };
  }
  if (kind === 'test') return statuses.includes('failing') ? { add: [LABELS.testsFailing], remove: [] } : { add: [], remove: [LABELS.testsFailing] };
  return { add: [], remove: [] };
}

/** The comment `report` is, created or edited on `review`; the labels its kind sets. */
async function publishOnReview(host: ReviewHost, review: number, report: Report): Promise<Omit<PublishResult, 'summary' | 'review'>> {
  const body = commentBody(report);
  const marker = markerFor(report.kind, report.environment);
  const author = await host.author();
  const mine = (await host.comments(review)).filter((comment) => comment.author === author && kindOf(comment.body) !== undefined);
  const existing = mine.find((comment) => hasMarker(comment.body, marker));
  if (existing) await host.updateComment(review, existing.id, body);
  else await host.createComment(review, body);
  const statuses = [...mine.filter((comment) => comment !== existing && kindOf(comment.body) === report.kind).map((comment) => statusOf(comment.body)), report.status];
  const labels = labelsFor(report.kind, statuses.filter((status): status is ReportStatus => status !== undefined));
  await host.setLabels(review, labels.add, labels.remove);
  return { comment: existing ? 'updated' : 'created', labelsAdded: labels.add, labelsRemoved: labels.remove };
}

/** Appends the report to the job summary (GitHub's GITHUB_STEP_SUMMARY file), when the job has one. */
async function appendSummary(file: string, report: Report): Promise<void> {
  try {
    await appendFile(file, `${report.markdown.trimEnd()}\n\n`);
  } catch (error) {
    throw new VoxformError('ci_summary_failed', `Cannot write the job summary ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`, {
      hint: 'GITHUB_STEP_SUMMARY is set by the runner: run voxform ci in a step of the job.',
    });
  }
}

export interface PublishOptions {
  /** The review to comment on (undefined: none; the summary only). */
  review: number | undefined;
  /** The host, needed only when there is a review. */
  host: () => ReviewHost;
  /** The job summary file, when the CI has one. */
  summaryFile: string | undefined;
}

export async function publishReport(report: Report, options: PublishOptions): Promise<PublishResult> {
  if (options.summaryFile) await appendSummary(options.summaryFile, report);
  const result: PublishResult = { review: options.review, comment: 'none', labelsAdded: [], labelsRemoved: [], summary: options.summaryFile !== undefined };
  if (options.review === undefined) return result;
  return { ...result, ...(await publishOnReview(options.host(), options.review, report)) };
}
