/**
 * The CLI's errors go through the same client as the library's: a service that echoes the key
 * JSON-escaped as Go writes it (`&`, `<`, `>` as `\u0026`, `\u003c`, `\u003e`) finds it scrubbed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, useTempDirs } from '../helpers/cli.js';

const KEY = 'vxKey_R7&mQ2<z9>Lp';
const tempDir = useTempDirs();
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const key = String(req.headers.authorization).replace(/^Bearer /, '');
    const body = JSON.stringify({ detail: `Invalid API key ${key}` }).replace(/[<>&]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
    res.writeHead(401, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('prints no key the service echoed JSON-escaped, in text or JSON', async () => {
  const cwd = await tempDir();
  for (const format of ['text', 'json']) {
    const result = await runCli(['logs', '--format', format], { cwd, env: { VOXFORM_API_KEY: KEY, VOXFORM_BASE_URL: url } });
    const output = `${result.stdout}${result.stderr}`;
    expect(result.code).toBe(1);
    expect(output).toContain('api_unauthorized');
    expect(output).toContain('Invalid API key (sensitive)');
    expect(output).not.toContain(KEY);
  }
});
