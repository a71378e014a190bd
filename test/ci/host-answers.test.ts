/**
 * What GitHub and GitLab answer is read as the service's answers are (docs/service-api.md, "answers
 * of another shape"): only what voxform uses is checked, and an item it cannot read is passed over,
 * never a crash. A comment list holding a null, a number or a comment without a numeric id gives the
 * comments that can be read; a merged review whose number is not a review number is no review.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectGitHub } from '../../src/ci/github.js';
import { connectGitLab } from '../../src/ci/gitlab.js';
import type { ReviewHost } from '../../src/ci/host.js';
import { startFakeCodeHost, type FakeCodeHost } from '../helpers/fake-code-host.js';

const GITHUB_TOKEN = 'ghp_planted-host-answers-4c1d';
const GITLAB_TOKEN = 'glpat-planted-host-answers-8e2a';
const COMMIT = 'd'.repeat(40);

let fake: FakeCodeHost;
let host: ReviewHost | undefined;

beforeAll(async () => {
  fake = await startFakeCodeHost();
});

afterEach(async () => {
  fake.refusals.length = 0;
  await host?.close();
  host = undefined;
});

afterAll(() => fake.close());

function github(): ReviewHost {
  host = connectGitHub({ GITHUB_TOKEN, GITHUB_API_URL: fake.url, GITHUB_REPOSITORY: 'acme/agents' }, (text) => text);
  return host;
}

function gitlab(): ReviewHost {
  host = connectGitLab({ GITLAB_TOKEN, CI_API_V4_URL: `${fake.url}/api/v4`, CI_PROJECT_ID: '99' }, (text) => text);
  return host;
}

/** The next request to `route` is answered 200 with `body`. */
function answer(route: string, body: unknown): void {
  fake.refusals.push({ status: 200, body, route });
}

describe('a comment list with items of another shape', () => {
  const odd = [null, 5, 'text', [], { id: 'x', body: 'no numeric id' }, { id: -3, body: 'not an id' }, { id: 1.5, body: 'not an id' }, { body: 'no id' }];

  it('GitHub: the readable comments, the others passed over; a body or author of another shape reads as empty', async () => {
    answer('GET /repos/acme/agents/issues/7/comments', [...odd, { id: 11, body: 5, user: 'octocat' }, { id: 12, body: 'kept', user: { login: 7 } }, { id: 13, body: 'mine', user: { login: 'voxform-app[bot]' } }]);
    expect(await github().comments(7)).toEqual([
      { id: 11, body: '', author: '' },
      { id: 12, body: 'kept', author: '' },
      { id: 13, body: 'mine', author: 'voxform-app[bot]' },
    ]);
  });

  it('GitLab: the same, and system notes are still left out', async () => {
    answer('GET /api/v4/projects/99/merge_requests/5/notes', [...odd, { id: 21, body: null, author: null }, { id: 22, body: 'changed the title', system: true, author: { username: 'carol' } }, { id: 23, body: 'mine', author: { username: 'voxform-bot' } }]);
    expect(await gitlab().comments(5)).toEqual([
      { id: 21, body: '', author: '' },
      { id: 23, body: 'mine', author: 'voxform-bot' },
    ]);
  });

  it('an answer that is no list reads as no comments', async () => {
    answer('GET /repos/acme/agents/issues/7/comments', { message: 'not a list' });
    expect(await github().comments(7)).toEqual([]);
  });
});

describe('the review that merged a commit', () => {
  it.each([
    ['a null among the pulls, then one merged', [null, 3, { merged_at: '2026-11-30T12:00:00Z', number: 42 }], 42],
    ['a merged pull whose number is text', [{ merged_at: '2026-11-30T12:00:00Z', number: '42' }], undefined],
    ['a merged pull whose number is not a whole positive number', [{ merged_at: '2026-11-30T12:00:00Z', number: 4.2 }], undefined],
  ])('GitHub, %s', async (_name, pulls, review) => {
    answer(`GET /repos/acme/agents/commits/${COMMIT}/pulls`, pulls);
    expect(await github().mergedReview(COMMIT)).toBe(review);
  });

  it.each([
    ['a null among the requests, then one merged', [null, 'x', { state: 'merged', iid: 9 }], 9],
    ['a merged request whose iid is negative', [{ state: 'merged', iid: -9 }], undefined],
  ])('GitLab, %s', async (_name, requests, review) => {
    answer(`GET /api/v4/projects/99/repository/commits/${COMMIT}/merge_requests`, requests);
    expect(await gitlab().mergedReview(COMMIT)).toBe(review);
  });
});
