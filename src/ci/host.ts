/**
 * A code host as `voxform ci` sees it: the review a job belongs to (a pull request, a merge
 * request), its comments, its labels. GitHub and GitLab implement it (github.ts, gitlab.ts) and
 * connect-host.ts picks one; the rest of src/ci/ knows no host.
 */
import { isPlainObject, type JsonObject } from '../util/json-object.js';
import { isPositiveWhole } from '../util/json-shape.js';

export type Provider = 'github' | 'gitlab';

/** A comment (GitHub) or note (GitLab) on a review. */
export interface ReviewComment {
  id: number;
  body: string;
  /** The login of who wrote it. */
  author: string;
}

export interface ReviewHost {
  /** `GitHub` or `GitLab`, for messages. */
  readonly name: string;
  /** The commit this job runs on, as the runner's variable names it (checked): an apply reports on the review that merged it. */
  jobCommit(): string;
  /** The review that merged `commit` (after an apply on the main branch), if any. */
  mergedReview(commit: string): Promise<number | undefined>;
  /** Who the token is: only comments this author wrote are ever read back or edited. */
  author(): Promise<string>;
  /** Every comment of the review, oldest first. */
  comments(review: number): Promise<ReviewComment[]>;
  createComment(review: number, body: string): Promise<void>;
  updateComment(review: number, id: number, body: string): Promise<void>;
  /** Adds `add` and takes `remove` off (a label that is not there is no error). */
  setLabels(review: number, add: readonly string[], remove: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** A review's or comment's number as a host sent it, when it is one (a whole number above zero); else undefined. */
export function hostNumber(value: unknown): number | undefined {
  return isPositiveWhole(value) ? value : undefined;
}

/** What a host's list item says of a comment, in the host's own fields; undefined for an item that is no comment of the review (GitLab's system notes). */
export type CommentFields = (item: JsonObject) => { id: unknown; body: unknown; author: unknown } | undefined;

/**
 * The comments of a host's list that voxform can read. An item that is not an object, or has no id
 * a comment could be edited by, is passed over: voxform edits only its own comments, and missing one
 * costs at most a second comment, where a crash would cost the report. A body or author that is not
 * text reads as empty, which is neither voxform's marker nor its author.
 */
export function readableComments(items: readonly unknown[], fields: CommentFields): ReviewComment[] {
  const comments: ReviewComment[] = [];
  for (const item of items) {
    const comment = isPlainObject(item) ? fields(item) : undefined;
    const id = hostNumber(comment?.id);
    if (comment === undefined || id === undefined) continue;
    comments.push({ id, body: typeof comment.body === 'string' ? comment.body : '', author: typeof comment.author === 'string' ? comment.author : '' });
  }
  return comments;
}
