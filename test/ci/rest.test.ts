/**
 * The code hosts' REST client against the loopback fake of their APIs: a rate limit is told from a
 * missing permission, waited out as the host asks (a few times, never long: the wait is the test's
 * own, recorded, not slept), and a host's message ending with a full stop is not given a second one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from '../../src/ci/rest.js';
import { startFakeCodeHost, type FakeCodeHost } from '../helpers/fake-code-host.js';

const TOKEN = 'ghp_planted-rest-token-0b9e';
/** The fake clock: a moment whose resets the tests name in seconds. */
const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);

let fake: FakeCodeHost;
let client: RestClient;
let waits: number[];

beforeAll(async () => {
  fake = await startFakeCodeHost();
  fake.tokens.set(TOKEN, 'octocat');
});

afterEach(async () => {
  fake.refusals.length = 0;
  await client?.close();
});

afterAll(() => fake.close());

function connect(): RestClient {
  waits = [];
  client = new RestClient({
    baseUrl: fake.url,
    headers: { authorization: `Bearer ${TOKEN}` },
    host: 'GitHub',
    redact: (text) => text,
    permissionHint: () => 'Give the job `permissions: { pull-requests: write }` (and `issues: write` for labels), or a token that has them.',
    sleep: async (ms) => {
      waits.push(ms);
    },
    now: () => NOW,
  });
  return client;
}

const PRIMARY = { message: 'API rate limit exceeded for installation ID 4242.', documentation_url: 'https://docs.github.com/rest/rate-limit' };
const SECONDARY = { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' };

describe('a rate limit', () => {
  it('429 with retry-after: waited as asked, then sent again and answered', async () => {
    fake.refusals.push({ status: 429, headers: { 'retry-after': '7' }, body: SECONDARY });
    const answer = await connect().call('POST', 'repos/acme/agents/issues/3/comments', { body: 'hi' });
    expect(answer.status).toBe(201);
    expect(waits).toEqual([7_000]);
    expect(fake.requests.slice(-2).map((request) => request.method)).toEqual(['POST', 'POST']);
  });

  it('403 with x-ratelimit-remaining 0, resetting soon: waited until the reset', async () => {
    fake.refusals.push({ status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 20) }, body: PRIMARY });
    const answer = await connect().call('GET', 'repos/acme/agents/issues/3/comments');
    expect(answer.status).toBe(200);
    expect(waits).toEqual([20_000]);
  });

  it('403 with x-ratelimit-remaining 0 resetting in an hour: not waited for; the rate-limit hint with the time, not the permissions hint, one full stop', async () => {
    fake.refusals.push({ status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 3600) }, body: PRIMARY });
    const refused = connect().call('GET', 'repos/acme/agents/issues/3/comments');
    await expect(refused).rejects.toMatchObject({
      code: 'ci_request_failed',
      message: 'GitHub refused GET /repos/acme/agents/issues/3/comments with 403: API rate limit exceeded for installation ID 4242.',
      hint: "This is GitHub's API rate limit, not a missing permission; it lifts at 2026-11-30T13:00:00Z. Run the job again then, or space out the jobs that share this token.",
    });
    expect(waits).toEqual([]);
  });

  it('still limited after the last attempt: a few attempts in all, then the rate-limit hint', async () => {
    for (let i = 0; i < 5; i++) fake.refusals.push({ status: 429, headers: { 'retry-after': '2' }, body: SECONDARY });
    await expect(connect().call('GET', 'user')).rejects.toMatchObject({
      message: 'GitHub refused GET /user with 429: You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      hint: expect.stringContaining("This is GitHub's API rate limit, not a missing permission: voxform sent the request 3 times, waiting as asked between;"),
    });
    expect(waits).toEqual([2_000, 2_000]);
  });

  it('a 403 that is a missing permission is not retried, and keeps the permissions hint', async () => {
    fake.refusals.push({ status: 403, body: { message: 'Resource not accessible by integration' } });
    await expect(connect().call('POST', 'repos/acme/agents/issues/3/comments', { body: 'hi' })).rejects.toMatchObject({
      message: 'GitHub refused POST /repos/acme/agents/issues/3/comments with 403: Resource not accessible by integration.',
      hint: expect.stringContaining('pull-requests: write'),
    });
    expect(waits).toEqual([]);
  });
});
