/**
 * GitHub's REST API as a `ReviewHost`: pull-request comments are issue comments, labels are issue
 * labels. Everything comes from the runner's variables: GITHUB_API_URL (and GITHUB_GRAPHQL_URL), GITHUB_REPOSITORY,
 * GITHUB_REF (`refs/pull/N/merge` on a pull-request event), GITHUB_SHA and the GITHUB_TOKEN.
 */
import { shortenRedacted, type Redact } from '../secrets/redact.js';
import { isPlainObject } from '../util/json-object.js';
import { hostNumber, readableComments, type ReviewHost } from './host.js';
import { apiBaseUrl, pullRequestFromFork, requireToken, runnerVariable, type Env } from './runner-env.js';
import { readPages } from './pages.js';
import { RestClient } from './rest.js';

/**
 * Who the token writes as, asked of GraphQL: `viewer` names a person's token's user and an
 * installation token's bot alike (the job's own token: `github-actions[bot]`; a GitHub App's:
 * `SLUG[bot]`), where REST's `GET /user` refuses every installation token and `GET /app` needs the
 * app's own key.
 */
const VIEWER_QUERY = 'query { viewer { login } }';

/** GraphQL's URL: the runner's GITHUB_GRAPHQL_URL, else beside GITHUB_API_URL (GitHub Enterprise Server's `/api/v3` → `/api/graphql`). */
function graphqlUrl(env: Env, apiUrl: string): string {
  const api = apiUrl.replace(/\/+$/, '');
  return apiBaseUrl(env, 'GITHUB_GRAPHQL_URL', /\/api\/v3$/.test(api) ? api.replace(/\/api\/v3$/, '/api/graphql') : `${api}/graphql`);
}

export function connectGitHub(env: Env, redact: Redact): ReviewHost {
  const token = requireToken(env, 'GITHUB_TOKEN', 'Pass `github-token` to the action (its default is the job\'s own token), with `permissions: { pull-requests: write, issues: write }`.');
  const repository = runnerVariable(env, 'GITHUB_REPOSITORY', /^[\w.-]+\/[\w.-]+$/, 'OWNER/NAME');
  const apiUrl = apiBaseUrl(env, 'GITHUB_API_URL', 'https://api.github.com');
  const viewerUrl = graphqlUrl(env, apiUrl);
  const client = new RestClient({
    baseUrl: apiUrl,
    headers: { authorization: `Bearer ${token}`, 'x-github-api-version': '2022-11-28' },
    host: 'GitHub',
    redact,
    // The event file is read only for a refusal's hint, the one place it is needed.
    permissionHint: () =>
      pullRequestFromFork(env)
        ? 'This pull request comes from a fork: GitHub gives its jobs a read-only token (and no secrets) whatever `permissions:` says, so nothing can be posted on it; the outcome is in the job summary. Do not switch to `pull_request_target`, which would run the fork\'s manifests with your secrets.'
        : 'Give the job `permissions: { pull-requests: write }` (and `issues: write` for labels), or a token that has them.',
  });
  const repo = `repos/${repository}`;
  let login: string | undefined;
  return {
    name: 'GitHub',
    jobCommit: () => runnerVariable(env, 'GITHUB_SHA', /^[0-9a-f]{40}$/i, 'a commit'),
    async mergedReview(commit) {
      const pulls = (await client.call('GET', `${repo}/commits/${commit}/pulls`)).body;
      const merged = Array.isArray(pulls) ? pulls.find((pull: { merged_at?: unknown }) => typeof pull?.merged_at === 'string') : undefined;
      return hostNumber(merged?.number);
    },
    async author() {
      if (login === undefined) {
        const answer = (await client.call('POST', viewerUrl, { query: VIEWER_QUERY })).body as { data?: { viewer?: { login?: unknown } | null } | null; errors?: Array<{ message?: unknown }> } | null;
        const refused = answer?.errors?.[0]?.message;
        login = client.userOf(
          answer?.data?.viewer?.login,
          `the GraphQL query \`${VIEWER_QUERY}\` with no login${typeof refused === 'string' ? ` (${shortenRedacted(refused, 300, redact)})` : ''}`,
          'Pass the job\'s own token (the Action\'s default `github-token`), a GitHub App\'s installation token or a person\'s token, and check that GITHUB_API_URL and GITHUB_GRAPHQL_URL are the runner\'s GitHub API.',
        );
      }
      return login;
    },
    async comments(review) {
      const items = await readPages(client, (pageQuery) => `${repo}/issues/${review}/comments?${pageQuery}`);
      return readableComments(items, (item) => ({ id: item.id, body: item.body, author: isPlainObject(item.user) ? item.user.login : undefined }));
    },
    async createComment(review, body) {
      await client.call('POST', `${repo}/issues/${review}/comments`, { body });
    },
    async updateComment(_review, id, body) {
      await client.call('PATCH', `${repo}/issues/comments/${id}`, { body });
    },
    async setLabels(review, add, remove) {
      if (add.length > 0) await client.call('POST', `${repo}/issues/${review}/labels`, { labels: add });
      for (const label of remove) await client.call('DELETE', `${repo}/issues/${review}/labels/${encodeURIComponent(label)}`, undefined, [404]);
    },
    close: () => client.close(),
  };
}
