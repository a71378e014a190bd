import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HostClient } from '../../src/util/host-client.js';

const servers: Server[] = [];
const clients: HostClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<URL> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
}

function client(limits = { timeoutMs: 5_000, maxAnswerBytes: 1024 }): HostClient {
  const made = new HostClient(limits);
  clients.push(made);
  return made;
}

describe('HostClient: requests to a host the operator names', () => {
  it('sends the method, headers and body, and returns the answer', async () => {
    const seen: string[] = [];
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${req.headers['x-who']} ${body}`);
        res.writeHead(201, { 'x-answer': 'yes' }).end('{"ok":true}');
      });
    });
    const kept = await client().request(new URL('/a?b=1', url), { method: 'POST', headers: { 'x-who': 'me' }, body: 'hello' });
    expect(kept).toMatchObject({ status: 201, headers: { 'x-answer': 'yes' }, text: '{"ok":true}' });
    expect(await client().request(url, { method: 'GET', headers: {} })).toMatchObject({ status: 201, text: '{"ok":true}' });
    expect(seen).toEqual(['POST /a?b=1 me hello', 'GET / undefined ']);
  });

  it('follows no redirect: a 3xx is the answer, and the host it points to gets nothing', async () => {
    let reached = false;
    const elsewhere = await serve((_req, res) => {
      reached = true;
      res.end('ok');
    });
    const url = await serve((_req, res) => res.writeHead(307, { location: new URL('/collect', elsewhere).href }).end());
    const answer = await client().request(url, { method: 'POST', headers: { authorization: 'token t' }, body: '{}' });
    expect(answer.status).toBe(307);
    expect(reached).toBe(false);
  });

  it('gives up on a host that does not answer within the time-out', async () => {
    const url = await serve(() => {
      // Never answers.
    });
    await expect(client({ timeoutMs: 100, maxAnswerBytes: 1024 }).request(url, { method: 'GET', headers: {} })).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
  });

  it('refuses an answer heavier than its cap', async () => {
    const url = await serve((_req, res) => res.end('x'.repeat(64 * 1024)));
    await expect(client().request(url, { method: 'GET', headers: {} })).rejects.toMatchObject({ code: 'UND_ERR_RES_EXCEEDED_MAX_SIZE' });
  });
});
