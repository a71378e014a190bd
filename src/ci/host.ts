/**
 * A code host as `voxform ci` sees it: the review a job belongs to (a pull request, a merge
 * request), its comments, its labels. GitHub and GitLab implement it (github.ts, gitlab.ts); the
 * rest of src/ci/ knows no host.
 */
import type { SecretRegistry } from '../secrets/redact.js';
import { connectGitHub } from './github.js';
import { registerCiTokens } from './runner-env.js';
import { connectGitLab } from './gitlab.js';

export type Provider = 'github' | 'gitlab';

type Env = Readonly<Record<string, string | undefined>>;

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
  /** The review that merged the commit this job runs on (after an apply on the main branch), if any. */
  mergedReview(): Promise<number | undefined>;
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

/** The host named by `provider`, from the operator's environment only: token, API URL, project and review. */
export function connectHost(provider: Provider, env: Env, secrets: SecretRegistry): ReviewHost {
  registerCiTokens(env, secrets);
  const redact = (text: string) => secrets.redact(text);
  return provider === 'github' ? connectGitHub(env, redact) : connectGitLab(env, redact);
}
