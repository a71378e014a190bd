/** The CI runner's variables as `voxform ci run` reads them: the API's base URL, the run's link, the review. */
import { describe, expect, it } from 'vitest';
import { apiBaseUrl, runUrl } from '../../src/ci/runner-env.js';
import { ciReviewNumber } from '../../src/util/run-identity.js';

describe('apiBaseUrl', () => {
  it('takes the runner\'s http(s) URL, else the fallback', () => {
    expect(apiBaseUrl({ GITHUB_API_URL: ' https://github.example/api/v3 ' }, 'GITHUB_API_URL', 'https://api.github.com')).toBe('https://github.example/api/v3');
    expect(apiBaseUrl({}, 'GITHUB_API_URL', 'https://api.github.com')).toBe('https://api.github.com');
  });

  // `https://[` looks like a URL to a pattern, but the client's `new URL` would throw a TypeError on it.
  it.each(['https://[', 'ftp://gitlab.example/api/v4', 'https://user:pass@gitlab.example/api/v4', 'gitlab.example/api/v4'])('refuses %s as ci_environment_invalid, naming the variable', (url) => {
    expect(() => apiBaseUrl({ CI_API_V4_URL: url }, 'CI_API_V4_URL', undefined)).toThrow(
      expect.objectContaining({ code: 'ci_environment_invalid', message: expect.stringContaining('CI_API_V4_URL is not an http(s) URL') }),
    );
  });
});

describe('runUrl', () => {
  it('links the GitHub run from its server, repository and id, and a GitLab job by CI_JOB_URL', () => {
    expect(runUrl('github', { GITHUB_SERVER_URL: 'https://github.example/', GITHUB_REPOSITORY: 'acme/agents', GITHUB_RUN_ID: '4242' })).toBe('https://github.example/acme/agents/actions/runs/4242');
    expect(runUrl('gitlab', { CI_JOB_URL: 'https://gitlab.example/acme/agents/-/jobs/77' })).toBe('https://gitlab.example/acme/agents/-/jobs/77');
  });

  it('links nothing it cannot link as it is', () => {
    expect(runUrl('github', { GITHUB_SERVER_URL: 'https://github.example', GITHUB_REPOSITORY: 'acme/agents' })).toBeUndefined();
    expect(runUrl('gitlab', { CI_JOB_URL: 'https://gitlab.example/jobs/77) [x](https://elsewhere.example' })).toBeUndefined();
  });
});

describe('ciReviewNumber', () => {
  it('reads a pull request from GITHUB_REF and a merge request from CI_MERGE_REQUEST_IID', () => {
    expect(ciReviewNumber('github', { GITHUB_REF: 'refs/pull/42/merge' })).toBe(42);
    expect(ciReviewNumber('github', { GITHUB_REF: 'refs/pull/42/head' })).toBe(42);
    expect(ciReviewNumber('gitlab', { CI_MERGE_REQUEST_IID: ' 5 ' })).toBe(5);
  });

  // history and ci run read the same variables, so they name the same review or none.
  it.each(['refs/heads/main', 'refs/pull/0/merge', 'refs/pull/007/merge', 'refs/pull/12345678901/merge', 'refs/pull/1a/merge'])('reads no pull request from GITHUB_REF %s', (ref) => {
    expect(ciReviewNumber('github', { GITHUB_REF: ref })).toBeUndefined();
    expect(ciReviewNumber('gitlab', { CI_MERGE_REQUEST_IID: ref.split('/')[2] })).toBeUndefined();
  });
});
