/** Who and where this run is, for locks and records: the account, the host, the CI job's link and review. */
import { hostname, userInfo } from 'node:os';
import path from 'node:path';
import { controlsAsQuestionMarks } from './printable.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The account running voxform; `unknown` without a passwd entry (some containers). */
export function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** `user@host` of this run. */
export function runBy(): string {
  return `${osUser()}@${hostname()}`;
}

/** The GitHub Actions run's link, when the environment names the server, repository and run. */
export function gitHubRunUrl(env: Env): string | undefined {
  const server = env.GITHUB_SERVER_URL;
  if (!server || !env.GITHUB_REPOSITORY || !env.GITHUB_RUN_ID) return undefined;
  return `${server.replace(/\/+$/, '')}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
}

/**
 * The pull or merge request a CI job runs for: GitHub's `GITHUB_REF` `refs/pull/N/merge` (or
 * `/head`), GitLab's `CI_MERGE_REQUEST_IID`; a number of 1 to 10 digits without a leading 0.
 */
export function ciReviewNumber(provider: 'github' | 'gitlab', env: Env): number | undefined {
  const written = provider === 'github' ? /^refs\/pull\/([^/]*)\/(?:merge|head)$/.exec(env.GITHUB_REF ?? '')?.[1] : env.CI_MERGE_REQUEST_IID?.trim();
  return written !== undefined && /^[1-9][0-9]{0,9}$/.test(written) ? Number(written) : undefined;
}

/** The CI job URL of this run, when the CI environment tells it (GitHub Actions, GitLab CI, others via `VOXFORM_CI_JOB_URL`). */
export function ciJobUrlFrom(env: Env): string | undefined {
  if (env.VOXFORM_CI_JOB_URL) return env.VOXFORM_CI_JOB_URL;
  return gitHubRunUrl(env) ?? (env.CI_JOB_URL || undefined);
}

/** Who and where a run is, as a lock names its holder and a forced open names who forced it. */
export interface RunIdentity {
  user: string;
  host: string;
  pid: number;
  /** What the run runs (`voxform apply plan.json`): the command's words, never its options' values. */
  command: string;
  /** The CI job that runs it, when the CI environment names it. */
  ciJobUrl?: string | undefined;
}

/** This run: its account, host and pid, with the command and CI job it names. */
export function thisRun(command: string, ciJobUrl: string | undefined): RunIdentity {
  return { user: osUser(), host: hostname(), pid: process.pid, command, ...(ciJobUrl ? { ciJobUrl } : {}) };
}

/**
 * `ana@ops-1 (pid 77, "voxform apply", since …, job …)`, with `since` when the run holds something
 * since then and `more` after the rest (a lock's id), its control characters as `?`: read from a
 * file or row any run could have written.
 */
export function describeRun(run: RunIdentity & { since?: string }, more = ''): string {
  const since = run.since !== undefined ? `, since ${run.since}` : '';
  const job = run.ciJobUrl ? `, job ${run.ciJobUrl}` : '';
  return controlsAsQuestionMarks(`${run.user}@${run.host} (pid ${run.pid}, "${run.command}"${since}${job}${more})`);
}

/** A run's identity as read back from a file or row anyone may have written; undefined when it is not one voxform wrote. */
export function runIdentityOf(value: unknown): RunIdentity | undefined {
  const run = value as Partial<Record<keyof RunIdentity, unknown>> | null;
  if (typeof run !== 'object' || run === null) return undefined;
  if (typeof run.user !== 'string' || typeof run.host !== 'string' || typeof run.command !== 'string' || typeof run.pid !== 'number') return undefined;
  return { user: run.user, host: run.host, pid: run.pid, command: run.command, ...(typeof run.ciJobUrl === 'string' ? { ciJobUrl: run.ciJobUrl } : {}) };
}

/**
 * The records naming this process (a state lock's holder file, the users entry of an emulator's
 * data file) that it wrote and has not taken back, by their file names, which are random. One of
 * this host and pid not among them was left by an earlier process that had the same pid: a
 * container runs voxform as pid 1 on the same host name after every restart, so the record of a
 * killed one would otherwise be taken for this process's own, alive, forever.
 */
const recordsOfThisProcess = new Set<string>();

/** Notes `file` as a record this process writes, naming itself; returns the function that forgets it, once the record is taken back. */
export function ownRecord(file: string): () => void {
  const name = path.basename(file);
  recordsOfThisProcess.add(name);
  return () => recordsOfThisProcess.delete(name);
}

/**
 * Whether the run the record `file` names no longer runs: judged on its own host only, by its pid
 * (a process of another user still runs); one naming this process's pid is alive only when this
 * process wrote it (see recordsOfThisProcess).
 */
export function isDead(run: Pick<RunIdentity, 'host' | 'pid'>, file: string): boolean {
  if (run.host !== hostname()) return false;
  if (run.pid === process.pid) return !recordsOfThisProcess.has(path.basename(file));
  try {
    process.kill(run.pid, 0);
    return false;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code !== 'EPERM';
  }
}
