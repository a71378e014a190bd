/**
 * Promises: voxform never hangs on the service and never reads an answer without bound.
 * - an answer whose body drips forever ends in `api_timeout` within the time-out (for a plain
 *   answer and for a streamed chat reply);
 * - an answer larger than the cap ends in `api_response_too_large`, whether it announces its length
 *   or not;
 * - a TLS failure is a network error (`api_tls`) that names its cause, never "a bug in voxform";
 * - a streamed chat reply whose connection drops partway is `api_connection_lost`, not a time-out;
 * - closing the client with `abort` stops requests in flight (what an interrupted run does);
 * - so does the signal of `withSignal(signal, { abortOnTheWire: true })`, a streamed reply's body
 *   included (what a stopped test run does).
 * No test measures time: each uses a time-out far shorter than its test's own limit, so a guard
 * that did not work would make the test hang and fail.
 */
import type { ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isTlsError, tlsReason } from '../../src/api/errors.js';
import { MAX_RESPONSE_BYTES } from '../../src/api/http.js';
import type { ApiError } from '../../src/api/index.js';
import { testClient, useFakeServers } from './helpers.js';
import { selfSignedCertificate } from './self-signed.js';

const KEY = 'k'.repeat(32);
const { serve, cleanups } = useFakeServers();

function client(baseUrl: string, options: Parameters<typeof testClient>[0] extends infer O ? Partial<O> : never = {}) {
  const test = testClient({ baseUrl, apiKey: KEY, ...options });
  cleanups.push(() => test.client.close({ abort: true }));
  return test;
}

/** Writes one byte every 20 ms for as long as the connection lasts. */
function drip(res: ServerResponse, contentType: string, byte: string): void {
  res.writeHead(200, { 'content-type': contentType });
  res.write(byte);
  const timer = setInterval(() => res.write(byte), 20);
  res.on('close', () => clearInterval(timer));
}

describe('a body that drips forever', () => {
  it('ends in api_timeout within the time-out, and is not retried (the time is spent)', async () => {
    let requests = 0;
    const fake = await serve((_req, res) => {
      requests++;
      drip(res, 'application/json', ' ');
    });
    const test = client(fake.url, { timeoutMs: 300 });
    const error = (await test.client.listPhones().catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api_timeout');
    expect(error.message).toMatch(/^GET \/phones failed: the service at http:\/\/127\.0\.0\.1:\d+ did not answer within 0\.3 s\.$/);
    expect(error.hint).toContain('--timeout (or VOXFORM_TIMEOUT)');
    expect(requests).toBe(1);
  });

  it('ends a streamed chat reply that keeps sending keep-alive comments in api_timeout', async () => {
    const fake = await serve((_req, res) => drip(res, 'text/event-stream', ': still here\n'));
    const test = client(fake.url, { timeoutMs: 300 });
    const stream = test.client.chatCompletions({ agent: { agent_id: 'a' }, messages: [{ role: 'user', content: 'hi' }] });
    const error = (await stream.collect().catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ code: 'api_timeout', message: expect.stringMatching(/^POST \/chat\/completions failed: .* did not answer within 0\.3 s\.$/) });
  });
});

describe('the size of an answer', () => {
  const twoMiB = 'x'.repeat(2 * 1024 * 1024);

  it.each([
    [
      'with a content-length',
      (res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(twoMiB);
      },
    ],
    [
      'chunked, without a length',
      (res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
        for (let i = 0; i < 32; i++) res.write(twoMiB.slice(0, 64 * 1024));
        res.end();
      },
    ],
  ])('over the cap (%s) is api_response_too_large, not retried', async (_name, answer) => {
    let requests = 0;
    const fake = await serve((_req, res) => {
      requests++;
      answer(res);
    });
    const test = client(fake.url, { maxResponseBytes: 1024 * 1024 });
    const error = (await test.client.listPhones().catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api_response_too_large');
    expect(error.message).toMatch(/^GET \/phones failed: the answer from http:\/\/127\.0\.0\.1:\d+ was larger than 1 MiB, the most voxform reads\.$/);
    expect(requests).toBe(1);
  });

  it('an answer within the cap is read whole', async () => {
    const fake = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([{ id: '+15551230001', pad: 'y'.repeat(900 * 1024) }]));
    });
    const test = client(fake.url, { maxResponseBytes: 1024 * 1024 });
    expect(await test.client.listPhones()).toHaveLength(1);
  });

  it('has a default cap', () => {
    expect(MAX_RESPONSE_BYTES).toBe(64 * 1024 * 1024);
  });
});

describe('TLS', () => {
  it('an https:// URL for a plain-HTTP server is api_tls naming the cause, not retried', async () => {
    let requests = 0;
    const fake = await serve((_req, res) => {
      requests++;
      res.end('[]');
    });
    const test = client(fake.url.replace('http://', 'https://'));
    const error = (await test.client.listPhones().catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api_tls');
    expect(error.message).toMatch(
      /^GET \/phones failed: the secure \(TLS\) connection to https:\/\/127\.0\.0\.1:\d+ failed: the server did not answer in TLS \(is it a plain http:\/\/ service\?\) \(ERR_SSL_WRONG_VERSION_NUMBER\)\.$/,
    );
    expect(error.hint).toContain('--base-url');
    expect(error.attempts).toBe(1);
    expect(requests).toBe(0);
  });

  it('a certificate this machine does not trust (self-signed) is api_tls naming the cause, not retried', async () => {
    let requests = 0;
    const server = createHttpsServer(selfSignedCertificate(), (_req, res) => {
      requests++;
      res.end('[]');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const test = client(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const error = (await test.client.listPhones().catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({
      code: 'api_tls',
      attempts: 1,
      message: expect.stringMatching(
        /^GET \/phones failed: the secure \(TLS\) connection to https:\/\/127\.0\.0\.1:\d+ failed: its certificate is self-signed, and this machine does not trust it \(DEPTH_ZERO_SELF_SIGNED_CERT\)\.$/,
      ),
    });
    expect(requests).toBe(0);
  });

  it.each([
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'its certificate is self-signed, and this machine does not trust it (DEPTH_ZERO_SELF_SIGNED_CERT)'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'its certificate is signed by an authority this machine does not trust (UNABLE_TO_VERIFY_LEAF_SIGNATURE)'],
    ['CERT_HAS_EXPIRED', 'its certificate has expired (CERT_HAS_EXPIRED)'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'its certificate is for another host name (ERR_TLS_CERT_ALTNAME_INVALID)'],
    ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'sslv3 alert handshake failure (ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE)'],
    ['EPROTO', 'EPROTO: no protocols available (EPROTO)'],
  ])('%s is a TLS failure, described as "%s"', (code, reason) => {
    const message = code.startsWith('ERR_SSL_')
      ? '40B8F1E4:error:0A000410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure:../deps/openssl/ssl/record/rec_layer_s3.c:1605:'
      : code === 'EPROTO'
        ? 'EPROTO: no protocols available'
        : 'certificate problem';
    const error = Object.assign(new Error(message), { code });
    expect(isTlsError(error)).toBe(true);
    expect(tlsReason(error)).toBe(reason);
  });

  it.each(['ECONNRESET', 'ENOTFOUND', 'UND_ERR_SOCKET'])('%s is not a TLS failure', (code) => {
    expect(isTlsError(Object.assign(new Error('x'), { code }))).toBe(false);
  });
});

describe('a streamed chat reply cut off partway', () => {
  it('is api_connection_lost: the service answered, then the connection dropped; neither a time-out nor "could not reach"', async () => {
    const fake = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"choices":[{"delta":{"content":"Hel"}}]}\n\ndata: {"cho');
      setImmediate(() => res.destroy());
    });
    const test = client(fake.url, { timeoutMs: 600_000 });
    const error = (await test.client.chatCompletions({ agent: { agent_id: 'a' }, messages: [{ role: 'user', content: 'hi' }] }).collect().catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ code: 'api_connection_lost', attempts: 1 });
    expect(error.message).toMatch(/^POST \/chat\/completions failed: the service at http:\/\/127\.0\.0\.1:\d+ began its answer, then the connection was dropped before the end\.$/);
    expect(error.hint).toMatch(/^Send it again/);
  });
});

describe('stopping', () => {
  it('close({abort: true}) stops a request in flight with api_interrupted', async () => {
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    const fake = await serve(() => received()); // never answers
    const test = client(fake.url, { timeoutMs: 600_000 });
    const pending = test.client.listPhones().catch((e: unknown) => e);
    await arrived;
    await test.client.close({ abort: true });
    expect(await pending).toMatchObject({ code: 'api_interrupted', message: 'GET /phones failed: stopped because voxform was interrupted.' });
  });

  it('close({abort: true}) while a create is on the wire: api_outcome_unknown, since the service may have acted on it', async () => {
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    const fake = await serve(() => received()); // never answers
    const test = client(fake.url, { timeoutMs: 600_000 });
    const pending = test.client.createApiKey({ type: 'public' }).catch((e: unknown) => e);
    await arrived;
    await test.client.close({ abort: true });
    const error = (await pending) as ApiError;
    expect(error).toMatchObject({ code: 'api_outcome_unknown', attempts: 1 });
    expect(error.message).toMatch(/^POST \/api_keys failed: the request was sent to http:\/\/127\.0\.0\.1:\d+, but voxform was interrupted before an answer came: the service may have acted on it\.$/);
    expect(error.hint).toBe('Check before running it again, or it may be done twice: look for the new key in the service’s dashboard.');
  });

  it('close({abort: true}) before a create is sent: api_interrupted, nothing reached the service', async () => {
    const fake = await serve(() => undefined);
    const test = client(fake.url, { timeoutMs: 600_000 });
    await test.client.close({ abort: true });
    expect(await test.client.createApiKey({ type: 'public' }).catch((e: unknown) => e)).toMatchObject({ code: 'api_interrupted' });
  });

  it('withSignal(signal, { abortOnTheWire: true }): the signal stops a read on the wire with api_interrupted', async () => {
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    const fake = await serve(() => received()); // never answers
    const test = client(fake.url, { timeoutMs: 600_000 });
    const stop = new AbortController();
    const pending = test.client.withSignal(stop.signal, { abortOnTheWire: true }).listPhones().catch((e: unknown) => e);
    await arrived;
    stop.abort();
    expect(await pending).toMatchObject({ code: 'api_interrupted', attempts: 1 });
  });

  it('withSignal(signal, { abortOnTheWire: true }): the signal stops a chat turn before its answer (its outcome unknown) and while its reply streams', async () => {
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    let answering = false;
    const fake = await serve((_req, res) => {
      if (!answering) return received(); // never answered
      // A reply that begins and never ends.
      drip(res, 'text/event-stream', ': still here\n');
      res.write('data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n');
    });
    const test = client(fake.url, { timeoutMs: 600_000 });
    const turn = { agent: { agent_id: 'a' }, messages: [{ role: 'user' as const, content: 'hi' }] };
    const unanswered = new AbortController();
    const pending = test.client.withSignal(unanswered.signal, { abortOnTheWire: true }).chatCompletions(turn).collect().catch((e: unknown) => e);
    await arrived;
    unanswered.abort();
    // Sent and unanswered, a chat turn may have been acted on.
    expect(await pending).toMatchObject({ code: 'api_outcome_unknown', attempts: 1 });

    answering = true;
    const streaming = new AbortController();
    const deltas = test.client.withSignal(streaming.signal, { abortOnTheWire: true }).chatCompletions(turn)[Symbol.asyncIterator]();
    expect(await deltas.next()).toEqual({ done: false, value: 'Hel' });
    streaming.abort();
    expect(await deltas.next().catch((e: unknown) => e)).toMatchObject({ code: 'api_interrupted' });
  });
});
