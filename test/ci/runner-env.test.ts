/** The CI runner's variables as `voxform ci run` reads them: the API's base URL. */
import { describe, expect, it } from 'vitest';
import { apiBaseUrl } from '../../src/ci/runner-env.js';

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
