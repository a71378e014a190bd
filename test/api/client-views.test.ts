/**
 * A client's views (`withSignal`, `withOnSent`) are the same client sending through another
 * requester. Apply asks for both wherever a client has them (docs/library.md), so a view of a
 * wrapper made over the client must keep the wrapper's own methods and send the rest as the view.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { testClient, useFakeServers } from './helpers.js';

const KEY = 'k'.repeat(32);
const { serve, cleanups } = useFakeServers();

async function phonesService(): Promise<ApiClient> {
  const fake = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('[]');
  });
  const test = testClient({ baseUrl: fake.url, apiKey: KEY });
  cleanups.push(() => test.client.close({ abort: true }));
  return test.client;
}

describe('a view of a client', () => {
  it("of a wrapper keeps the wrapper's methods, and sends the others through the view", async () => {
    const client = await phonesService();
    const wrapper = Object.create(client) as ApiClient;
    wrapper.getAgent = async (id) => ({ id, name: 'from the wrapper', created_at: 1, config: {} });
    const sent: string[] = [];
    const view = wrapper.withOnSent((path) => sent.push(path)).withSignal(new AbortController().signal);

    expect(await view.getAgent('-OKwrapped')).toMatchObject({ name: 'from the wrapper' });
    expect(await view.listPhones()).toEqual([]);
    // The wrapper's getAgent sent nothing; the client's listPhones went through the view's requester.
    expect(sent).toEqual(['/phones']);
  });

  it('withdraws what waits in it once its signal aborts, and leaves the client it was made from alone', async () => {
    const client = await phonesService();
    const stop = new AbortController();
    stop.abort();
    expect(await client.withSignal(stop.signal).listPhones().catch((error: unknown) => error)).toMatchObject({ code: 'api_not_sent' });
    expect(await client.listPhones()).toEqual([]);
  });
});
