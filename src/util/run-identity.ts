/** Who and where this run is, for locks and records: the account, the host, and the CI job's link. */
import { hostname, userInfo } from 'node:os';

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

/** The CI job URL of this run, when the CI environment tells it (GitHub Actions, GitLab CI, others via `VOXFORM_CI_JOB_URL`). */
export function ciJobUrlFrom(env: Env): string | undefined {
  if (env.VOXFORM_CI_JOB_URL) return env.VOXFORM_CI_JOB_URL;
  return gitHubRunUrl(env) ?? (env.CI_JOB_URL || undefined);
}
