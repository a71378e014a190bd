/**
 * A code host as `voxform ci` sees it: the review a job belongs to (a pull request, a merge
 * request), its comments, its labels. GitHub and GitLab implement it (github.ts, gitlab.ts) and
 * connect-host.ts picks one; the rest of src/ci/ knows no host.
 */
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
