/**
 * Puts a report where the reviewers are: the job summary, and one comment per kind and environment
 * on the review — found by its hidden marker among the token's own comments and edited in place,
 * created only when there is none — then the review's labels, from every voxform comment on it.
 */
import { appendFile } from 'node:fs/promises';
import { VoxformError } from '../errors.js';
import { HOST_COMMENT_LIMIT } from '../util/comment-blocks.js';
import type { ReviewHost } from './host.js';
import { commentHead, hasMarker, kindOf, markerFor, statusOf, type ReportKind, type ReportStatus } from './markers.js';
import type { Report } from './reports.js';

const LABELS = { changes: 'voxform:changes', noChanges: 'voxform:no-changes', testsFailing: 'voxform:tests-failing' } as const;

export interface PublishResult {
  /** The review commented on, if any. */
  review: number | undefined;
  /** `failed`: finding the review, or commenting on it, failed (see `failures`). */
  comment: 'created' | 'updated' | 'none' | 'failed';
  /**
   * `failed`: setting them failed after the comment was posted (see `failures`); `none`: not tried,
   * as there was no comment. `labelsAdded` and `labelsRemoved` are what was asked either way.
   */
  labels: 'set' | 'failed' | 'none';
  labelsAdded: string[];
  labelsRemoved: string[];
  summary: boolean;
  /** What went wrong, in the order tried: one place failing does not stop the other. */
  failures: unknown[];
}

/** The whole comment: the marker, the status, the report. */
export function commentBody(report: Report): string {
  const body = `${commentHead(report.kind, report.environment, report.status)}${report.markdown}`;
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

/**
 * The comment `report` is, created or edited on `review`; with the labels its kind then sets, from
 * the statuses of every voxform comment of that kind on the review, this one's included.
 */
async function commentOnReview(host: ReviewHost, review: number, report: Report): Promise<{ comment: 'created' | 'updated'; labels: { add: string[]; remove: string[] } }> {
  const body = commentBody(report);
  const marker = markerFor(report.kind, report.environment);
  const author = await host.author();
  const mine = (await host.comments(review)).filter((comment) => comment.author === author && kindOf(comment.body) !== undefined);
  const existing = mine.find((comment) => hasMarker(comment.body, marker));
  if (existing) await host.updateComment(review, existing.id, body);
  else await host.createComment(review, body);
  const statuses = [...mine.filter((comment) => comment !== existing && kindOf(comment.body) === report.kind).map((comment) => statusOf(comment.body)), report.status];
  const labels = labelsFor(report.kind, statuses.filter((status): status is ReportStatus => status !== undefined));
  return { comment: existing ? 'updated' : 'created', labels };
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

interface PublishOptions {
  /** The review to comment on (undefined: none; the summary only); it may ask the host. */
  review: () => Promise<number | undefined> | number | undefined;
  /** The host, needed only when there is a review. */
  host: () => ReviewHost;
  /** The job summary file, when the CI has one. */
  summaryFile: string | undefined;
}

/**
 * Publishes the outcome of a command that already ran wherever it can: the job summary first (it
 * needs no host), then the comment on the review, then its labels; a failure of one is recorded
 * and does not stop the others (labels follow the comment, whose status they are set from).
 */
export async function publishReport(report: Report, options: PublishOptions): Promise<PublishResult> {
  const result: PublishResult = { review: undefined, comment: 'none', labels: 'none', labelsAdded: [], labelsRemoved: [], summary: false, failures: [] };
  if (options.summaryFile) {
    try {
      await appendSummary(options.summaryFile, report);
      result.summary = true;
    } catch (error) {
      result.failures.push(error);
    }
  }
  // The review commented on: its labels are set next, and their failure is theirs, not the comment's.
  let commented: { host: ReviewHost; review: number } | undefined;
  try {
    result.review = await options.review();
    if (result.review !== undefined) {
      const host = options.host();
      const posted = await commentOnReview(host, result.review, report);
      result.comment = posted.comment;
      result.labelsAdded = posted.labels.add;
      result.labelsRemoved = posted.labels.remove;
      commented = { host, review: result.review };
    }
  } catch (error) {
    result.comment = 'failed';
    result.failures.push(error);
  }
  if (commented) {
    try {
      await commented.host.setLabels(commented.review, result.labelsAdded, result.labelsRemoved);
      result.labels = 'set';
    } catch (error) {
      result.labels = 'failed';
      result.failures.push(error);
    }
  }
  return result;
}
