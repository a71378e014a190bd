/**
 * GitLab's REST API as a `ReviewHost`: merge-request notes and labels. Everything comes from the
 * runner's variables: CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID (a merge-request
 * pipeline), CI_COMMIT_SHA, and GITLAB_TOKEN (a project or personal access token with the `api`
 * scope: the job token, CI_JOB_TOKEN, may not write notes).
 */
import type { Redact } from '../secrets/redact.js';
import { isPlainObject } from '../util/json-object.js';
import { hostNumber, readableComments, type ReviewHost } from './host.js';
import { apiBaseUrl, requireToken, runnerVariable, type Env } from './runner-env.js';
import { readPages } from './pages.js';
import { RestClient } from './rest.js';

export function connectGitLab(env: Env, redact: Redact): ReviewHost {
  const token = requireToken(env, 'GITLAB_TOKEN', 'Add a masked CI/CD variable GITLAB_TOKEN: a project access token with the `api` scope and the Reporter role (CI_JOB_TOKEN cannot write notes).');
  const project = runnerVariable(env, 'CI_PROJECT_ID', /^\d+$/, 'a project id');
  const client = new RestClient({
    baseUrl: apiBaseUrl(env, 'CI_API_V4_URL', undefined),
    headers: { 'private-token': token },
    host: 'GitLab',
    redact,
    permissionHint: () => 'Set GITLAB_TOKEN to a project or personal access token with the `api` scope and at least the Reporter role.',
  });
  const base = `projects/${project}`;
  let username: string | undefined;
  return {
    name: 'GitLab',
    jobCommit: () => runnerVariable(env, 'CI_COMMIT_SHA', /^[0-9a-f]{40}$/i, 'a commit'),
    async mergedReview(commit) {
      const requests = (await client.call('GET', `${base}/repository/commits/${commit}/merge_requests`)).body;
      const merged = Array.isArray(requests) ? requests.find((request: { state?: unknown }) => request?.state === 'merged') : undefined;
      return hostNumber(merged?.iid);
    },
    async author() {
      username ??= client.userOf(
        ((await client.call('GET', 'user')).body as { username?: unknown } | null)?.username,
        `GET ${client.pathOf('user')} with no username`,
        'Set GITLAB_TOKEN to a project or personal access token with the `api` scope, whose user the API names, and check that CI_API_V4_URL is the runner\'s GitLab API.',
      );
      return username;
    },
    async comments(review) {
      const notes = await readPages(client, (pageQuery) => `${base}/merge_requests/${review}/notes?sort=asc&order_by=created_at&${pageQuery}`);
      // A system note ("changed the title") is GitLab's own record, never a comment voxform wrote.
      return readableComments(notes, (note) => (note.system === true ? undefined : { id: note.id, body: note.body, author: isPlainObject(note.author) ? note.author.username : undefined }));
    },
    async createComment(review, body) {
      await client.call('POST', `${base}/merge_requests/${review}/notes`, { body });
    },
    async updateComment(review, id, body) {
      await client.call('PUT', `${base}/merge_requests/${review}/notes/${id}`, { body });
    },
    async setLabels(review, add, remove) {
      if (add.length === 0 && remove.length === 0) return;
      await client.call('PUT', `${base}/merge_requests/${review}`, { add_labels: add.join(','), remove_labels: remove.join(',') });
    },
    close: () => client.close(),
  };
}
