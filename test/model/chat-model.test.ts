import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ChatModel, parseJsonObject } from '../../src/model/chat-model.js';
import { budgetedModel, RequestBudget } from '../../src/conversations/budgets.js';

/**
 * A model that answers each request with the next status of `script` (the last one repeats); `hang`
 * never answers; `cut` starts a 200 answer and drops the connection partway through it; `broken-json`
 * answers 200 with a body declared JSON that is not; `{ body }` answers 200 with that JSON.
 */
type Step = number | 'hang' | 'cut' | 'html' | 'broken-json' | { body: unknown };

async function scriptedModel(script: Step[]): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const step = script[Math.min(received, script.length - 1)];
      received++;
      if (step === 'hang') return;
      if (typeof step === 'object') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(step.body));
        return;
      }
      if (step === 'html') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><body>Sign in</body></html>');
        return;
      }
      if (step === 'broken-json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": [');
        return;
      }
      if (step === 'cut') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"o');
        setImmediate(() => res.destroy());
        return;
      }
      const body = step === 200 ? { id: 'c1', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } }] } : { error: { message: 'busy' } };
      res.writeHead(step as number, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    received: () => received,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const servers: Array<{ close: () => Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function modelAnswering(script: Step[], timeoutMs = 30_000, timeoutSetting?: string) {
  const server = await scriptedModel(script);
  servers.push(server);
  return { server, model: new ChatModel({ url: server.url, model: 'm', apiKey: undefined, timeoutMs, timeoutSetting }) };
}

describe('the chat model sends a failed request again, each one counted', () => {
  it('sends again after a 503 and answers with the request that succeeded', async () => {
    const { server, model } = await modelAnswering([503, 503, 200]);
    let retries = 0;
    const answer = await model.complete([{ role: 'user', content: 'hi' }], { onRetry: () => retries++ });
    expect(answer.content).toBe('ok');
    expect(server.received()).toBe(3);
    expect(retries).toBe(2);
  });

  it('sends again after an answer cut off partway (the connection dropped), and says so when every attempt was', async () => {
    const { server, model } = await modelAnswering(['cut', 200]);
    expect((await model.complete([{ role: 'user', content: 'hi' }])).content).toBe('ok');
    expect(server.received()).toBe(2);
    const cut = await modelAnswering(['cut']);
    const error = await cut.model.complete([{ role: 'user', content: 'hi' }]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'model_failed', message: `The model at ${cut.server.url} failed: the connection was dropped before its answer was complete.` });
    expect(cut.server.received()).toBe(3);
  });

  it('sends a request the service refused as wrong (400) once', async () => {
    const { server, model } = await modelAnswering([400]);
    await expect(model.complete([{ role: 'user', content: 'hi' }])).rejects.toMatchObject({ code: 'model_failed' });
    expect(server.received()).toBe(1);
  });

  it("spends a run's request budget on every request sent, so the cap holds with failures", async () => {
    const { server, model } = await modelAnswering([503]);
    const budget = new RequestBudget(2);
    await expect(budgetedModel(model, budget).complete([{ role: 'user', content: 'hi' }])).rejects.toMatchObject({ code: 'test_requests_spent' });
    expect(server.received()).toBe(2);
    expect(budget.sent).toBe(2);
  });

  it('says an answer that is not JSON is not, with its content type, and sends it once', async () => {
    const { server, model } = await modelAnswering(['html']);
    await expect(model.complete([{ role: 'user', content: 'hi' }])).rejects.toMatchObject({ code: 'model_failed', message: `The model at ${server.url} failed: its answer was not JSON (content type text/html; charset=utf-8).` });
    expect(server.received()).toBe(1);
  });

  it('says an answer declared JSON that is not valid JSON is not, in words of its own, not the parser\'s', async () => {
    const { server, model } = await modelAnswering(['broken-json']);
    await expect(model.complete([{ role: 'user', content: 'hi' }])).rejects.toMatchObject({ code: 'model_failed', message: `The model at ${server.url} failed: its answer, declared JSON, was not valid JSON.` });
  });

  it.each([
    ['no choices', { choices: 'none' }],
    ['a null choice', { choices: [null] }],
    ['a message that is text', { choices: [{ message: 'hi' }] }],
  ])('says an answer with %s has no message, and sends it once', async (_, body) => {
    const { server, model } = await modelAnswering([{ body }]);
    await expect(model.complete([{ role: 'user', content: 'hi' }])).rejects.toMatchObject({ code: 'model_failed', message: `The model at ${server.url} failed: the answer has no message.` });
    expect(server.received()).toBe(1);
  });

  it('reads of a message only its text and its well-formed function calls: content of another shape is no text, a call of another shape is passed over', async () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'book', arguments: '{"date":"2026-12-04"}' } };
    const toolCalls = [null, 7, { id: 'call_0', type: 'function', function: { name: 'book', arguments: { date: 'x' } } }, { id: 2, type: 'function', function: { name: 'book', arguments: '{}' } }, call];
    const { model } = await modelAnswering([{ body: { choices: [{ message: { role: 'assistant', content: 5, tool_calls: toolCalls } }] } }, { body: { choices: [{ message: { content: ['a'], tool_calls: 'x' } }] } }]);
    expect(await model.complete([{ role: 'user', content: 'hi' }])).toEqual({ role: 'assistant', content: null, refusal: null, tool_calls: [call] });
    expect(await model.complete([{ role: 'user', content: 'hi' }])).toEqual({ role: 'assistant', content: null, refusal: null });
  });

  it('names the time-out of a request that got no answer, and what sets it', async () => {
    const { server, model } = await modelAnswering(['hang'], 200, '--timeout (or VOXFORM_TIMEOUT)');
    await expect(model.complete([{ role: 'user', content: 'hi' }])).rejects.toMatchObject({
      code: 'model_failed',
      message: `The model at ${server.url} failed: no complete answer came within 0.2 s (after 3 attempts; --timeout (or VOXFORM_TIMEOUT) gives it longer).`,
    });
    const unset = await modelAnswering(['hang'], 200);
    await expect(unset.model.complete([{ role: 'user', content: 'hi' }])).rejects.toMatchObject({ message: `The model at ${unset.server.url} failed: no complete answer came within 0.2 s (after 3 attempts).` });
  });

  it('gives each request the whole timeout, and counts the ones that got no answer', async () => {
    const { server, model } = await modelAnswering(['hang'], 200);
    const budget = new RequestBudget(10);
    await expect(budgetedModel(model, budget).complete([{ role: 'user', content: 'hi' }])).rejects.toMatchObject({ code: 'model_failed' });
    expect(server.received()).toBe(3);
    expect(budget.sent).toBe(3);
  });
});

describe("a run's signal", () => {
  it('keeps no listener of a request once it has ended, however many requests the run sends', async () => {
    const { model } = await modelAnswering([503, 200]);
    const run = new AbortController();
    const warnings: string[] = [];
    // Only Node's listener count: the test process may warn of other things meanwhile.
    const onWarning = (warning: Error) => {
      if (warning.name === 'MaxListenersExceededWarning') warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    try {
      // Past Node's limit of 10 listeners a signal, the first one sent again after its 503.
      for (let request = 0; request < 12; request++) {
        expect((await model.complete([{ role: 'user', content: 'hi' }], { signal: run.signal })).content).toBe('ok');
      }
      // A warning is emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });
});

describe("the model's URL", () => {
  it('keeps a query (`?api-version=…`) on every request, after the path joined to the base', async () => {
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"no"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/openai/v1?api-version=2024-10-21&key=QKEY-888`;
    const failure = new ChatModel({ url, model: 'm', apiKey: undefined }).complete([{ role: 'user', content: 'hi' }]);
    // Named with its tokens hidden, the short ones too.
    await expect(failure).rejects.toThrow(/^The model at http:\/\/127\.0\.0\.1:\d+\/openai\/v1\?api-version=\(sensitive\)&key=\(sensitive\) failed: status 401\.$/);
    expect(paths).toEqual(['/openai/v1/chat/completions?api-version=2024-10-21&key=QKEY-888']);
  });

  it('is refused with a user name or password in it, which a request cannot carry, without printing them', () => {
    const make = () => new ChatModel({ url: 'http://user:PASSWD-777@127.0.0.1:1/v1', model: 'm', apiKey: undefined });
    expect(make).toThrow(expect.objectContaining({ code: 'model_url_invalid', message: 'The model URL http://(sensitive)@127.0.0.1:1/v1 holds a user name or password, which cannot be sent.' }));
  });
});

describe('parseJsonObject', () => {
  it('reads an answer in a code fence, and one of a million blanks before its end at once (a recorded answer is a checkout file)', () => {
    expect(parseJsonObject('```json\n{"pass": true}\n```')).toEqual({ pass: true });
    expect(parseJsonObject('{"pass": false}  ```')).toEqual({ pass: false });
    expect(parseJsonObject(`{${' '.repeat(1_000_000)}}x`)).toBeUndefined();
    expect(parseJsonObject(`{"a": 1${' '.repeat(1_000_000)}}`)).toEqual({ a: 1 });
  });
});
