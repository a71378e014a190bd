/** The CI runner's variables, read and checked: the only source of a token, an API URL or a project (the review: util/run-identity.ts). */
import { readFileSync } from 'node:fs';
import { VoxformError } from '../errors.js';
import { headerValueFromEnv } from '../util/env-header.js';
import { httpUrl } from '../util/http-url.js';
import { gitHubRunUrl } from '../util/run-identity.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Every token a CI job may hold: secrets from the first line any command prints, whatever it runs. */
const CI_TOKEN_VARIABLES = ['GITHUB_TOKEN', 'GITLAB_TOKEN', 'CI_JOB_TOKEN'] as const;

export function registerCiTokens(env: Env, secrets: { add(value: string | undefined): void }): void {
  for (const name of CI_TOKEN_VARIABLES) secrets.add(env[name]?.trim());
}

/** A variable the runner sets, checked: a missing or malformed one is `ci_environment_invalid`, naming it. */
export function runnerVariable(env: Env, name: string, pattern: Pick<RegExp, 'test'>, what: string): string {
  const value = env[name]?.trim() ?? '';
  if (!pattern.test(value)) {
    throw new VoxformError('ci_environment_invalid', `${name} is ${value === '' ? 'not set' : 'not ' + what}: voxform ci reads the job's project and review from the runner's variables.`, {
      hint: `Run it in a job of the CI it was told (--provider), which sets ${name}.`,
    });
  }
  return value;
}

/** The API's base URL: the runner's variable (an http(s) URL without credentials), or `fallback` when it is unset. */
export function apiBaseUrl(env: Env, name: string, fallback: string | undefined): string {
  const value = env[name]?.trim() || fallback || '';
  return runnerVariable({ [name]: value }, name, { test: (text) => httpUrl(text) !== undefined }, 'an http(s) URL without a user or password');
}

/** The token, or `ci_token_missing` naming the variable to set. */
export function requireToken(env: Env, name: string, hint: string): string {
  const value = headerValueFromEnv(env, name);
  if (!value) throw new VoxformError('ci_token_missing', `${name} is not set: voxform ci needs it to comment on the review and set its labels.`, { hint });
  return value;
}

/** A web address voxform links to as it is: http(s), and no character that could end a Markdown link. */
const LINKABLE_URL = /^https?:\/\/[A-Za-z0-9.-]+(?::\d+)?(?:\/[A-Za-z0-9._~%\/+=&?:@-]*)?$/;

/** The web page of this job's run (linked from comments), when the runner names one that can be linked. */
export function runUrl(provider: 'github' | 'gitlab', env: Env): string | undefined {
  const url = provider === 'github' ? gitHubRunUrl(env) : env.CI_JOB_URL;
  return url !== undefined && LINKABLE_URL.test(url) ? url : undefined;
}

/** The job summary file (GitHub's GITHUB_STEP_SUMMARY; GitLab has none). */
export function summaryFile(provider: 'github' | 'gitlab', env: Env): string | undefined {
  return provider === 'github' && env.GITHUB_STEP_SUMMARY?.trim() ? env.GITHUB_STEP_SUMMARY.trim() : undefined;
}

/**
 * Whether this GitHub job runs for a pull request from a fork, as its event (GITHUB_EVENT_PATH, the
 * runner's file) says: the head repository is a fork, or another than the base. Such a job gets a
 * read-only token, so a refused comment there is no permission the workflow could grant.
 */
export function pullRequestFromFork(env: Env): boolean {
  const file = env.GITHUB_EVENT_PATH?.trim();
  if (!file || !/^pull_request/.test(env.GITHUB_EVENT_NAME ?? '')) return false;
  try {
    const event = JSON.parse(readFileSync(file, 'utf8')) as { pull_request?: { head?: { repo?: { fork?: unknown; full_name?: unknown } | null }; base?: { repo?: { full_name?: unknown } | null } } };
    const head = event.pull_request?.head?.repo;
    const base = event.pull_request?.base?.repo;
    if (!head) return false;
    return head.fork === true || (typeof head.full_name === 'string' && typeof base?.full_name === 'string' && head.full_name !== base.full_name);
  } catch {
    // No event to read (or not JSON): the usual hint, which names the permissions.
    return false;
  }
}
