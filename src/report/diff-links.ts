/**
 * Where a deploy's change can be read: the compare view against the version before, else the commit.
 * The repository's address comes from the CI's environment (the operator's, never the repository's):
 * GitHub Actions' `GITHUB_SERVER_URL` and `GITHUB_REPOSITORY`, or GitLab's `CI_PROJECT_URL`.
 */
import { httpUrl } from '../util/http-url.js';
import type { DeployInfo } from './versions.js';

const COMMIT = /^[0-9a-f]{7,64}$/i;

export type DiffLink = (deploy: DeployInfo) => string | null;

export function diffLinkFromEnv(env: Readonly<Record<string, string | undefined>>): DiffLink {
  const asLink = (text: string) => (httpUrl(text) ? text : undefined);
  const github = env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY ? asLink(`${env.GITHUB_SERVER_URL.replace(/\/+$/, '')}/${env.GITHUB_REPOSITORY}`) : undefined;
  const gitlab = env.CI_PROJECT_URL ? asLink(env.CI_PROJECT_URL.replace(/\/+$/, '')) : undefined;
  const base = github ?? gitlab;
  if (!base) return () => null;
  const infix = github ? '' : '/-';
  return (deploy) => {
    if (!deploy.commit || !COMMIT.test(deploy.commit)) return null;
    const commit = encodeURIComponent(deploy.commit);
    if (deploy.previousCommit && COMMIT.test(deploy.previousCommit) && deploy.previousCommit !== deploy.commit) {
      return `${base}${infix}/compare/${encodeURIComponent(deploy.previousCommit)}...${commit}`;
    }
    return `${base}${infix}/commit/${commit}`;
  };
}
