import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach } from 'vitest';
import type { AddressInfo } from 'node:net';
import { createClient, type ApiClient, type ClientOptions, type RetryEvent } from '../../src/api/index.js';
import { startEmulator } from '../../src/emulator/index.js';

export type Emulator = Awaited<ReturnType<typeof startEmulator>>;

/** A client for tests: waits recorded instead of slept, retries and debug lines collected. */
export interface TestClient {
  client: ApiClient;
  retries: RetryEvent[];
  /** Every wait the client asked for, in ms (nothing is actually slept). */
  waits: number[];
  debug: string[];
}

export function testClient(options: Partial<ClientOptions> & { baseUrl: string; apiKey: string }): TestClient {
  const retries: RetryEvent[] = [];
  const waits: number[] = [];
  const debug: string[] = [];
  const client = createClient({
    onRetry: (event) => retries.push(event),
    sleep: async (ms) => void waits.push(ms),
    debug: (line) => debug.push(line),
    ...options,
  });
  return { client, retries, waits, debug };
}

export async function emulatorWithClient(options: Parameters<typeof startEmulator>[0] = {}, clientOptions: Partial<ClientOptions> = {}) {
  const emulator = await startEmulator({ port: 0, ...options });
  const test = testClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, ...clientOptions });
  return {
    emulator,
    ...test,
    async close() {
      await test.client.close();
      await emulator.close();
    },
  };
}

/** The request log entries for a path (and method). */
export function logged(emulator: Emulator, path: string, method?: string) {
  return emulator.control.requestLog().filter((entry) => entry.path === path && (method === undefined || entry.method === method));
}

/** A tiny node:http fake on a loopback port, for answers the emulator never gives. */
export async function fakeServer(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => void handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * For a test file: `serve` starts a fake server that is closed after each test, and `cleanups`
 * takes whatever else a test must undo (clients to close), run last first.
 */
export function useFakeServers() {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()?.();
  });
  async function serve(handler: Parameters<typeof fakeServer>[0]) {
    const fake = await fakeServer(handler);
    cleanups.push(() => fake.close());
    return fake;
  }
  return { serve, cleanups };
}
