/**
 * The CLI's errors go through the same client as the library's: a service that echoes the key
 * JSON-escaped as Go writes it (`&`, `<`, `>` as `\u0026`, `\u003c`, `\u003e`) finds it scrubbed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, useTempDirs } from '../helpers/cli.js';

const KEY = 'vxKey_R7&mQ2<z9>Lp';
/** The error as Go's encoding/json writes it: `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`. */
const goJson = (key: string) => JSON.stringify({ detail: `Invalid API key ${key}` }).replace(/[<>&]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
let answer: (key: string) => string = goJson;
const tempDir = useTempDirs();
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const key = String(req.headers.authorization).replace(/^Bearer /, '');
    res.writeHead(401, { 'content-type': 'application/json' }).end(answer(key));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it('prints no key the service echoed JSON-escaped, in text or JSON', async () => {
  const cwd = await tempDir();
  answer = goJson;
  for (const format of ['text', 'json']) {
    const result = await runCli(['logs', '--format', format], { cwd, env: { VOXFORM_API_KEY: KEY, VOXFORM_BASE_URL: url } });
    const output = `${result.stdout}${result.stderr}`;
    expect(result.code).toBe(1);
    expect(output).toContain('api_unauthorized');
    expect(output).toContain('Invalid API key (sensitive)');
    expect(output).not.toContain(KEY);
  }
});

/** Every character as a JSON `\u` escape. */
const everyCharEscaped = (text: string) => [...text].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

it("prints no key escaped inside an upstream's JSON error the service quoted in its own, nor one HTML-escaped", async () => {
  const cwd = await tempDir();
  const cases: Array<{ key: string; answer: (key: string) => string; shown: string }> = [
    {
      key: 'sk9ZqT4mW2xV7bN1cR5yH8jL3pF6dG0a',
      answer: (key) => JSON.stringify({ detail: `upstream said: ${JSON.stringify({ error: 'bad key KEY' }).replace('KEY', everyCharEscaped(key))}` }),
      shown: 'upstream said: {"error":"bad key (sensitive)"}',
    },
    // As Go's html.EscapeString writes it: `&` as `&amp;`, `'` as `&#39;`.
    { key: "k&ey'Zq7-secret-99", answer: (key) => `Invalid API key ${key.replace(/&/g, '&amp;').replace(/'/g, '&#39;')}`, shown: 'Invalid API key (sensitive)' },
  ];
  for (const { key, answer: echoed, shown } of cases) {
    answer = echoed;
    for (const format of ['text', 'json']) {
      const result = await runCli(['logs', '--format', format], { cwd, env: { VOXFORM_API_KEY: key, VOXFORM_BASE_URL: url } });
      const output = `${result.stdout}${result.stderr}`;
      expect(result.code).toBe(1);
      expect(output).toContain(format === 'json' ? JSON.stringify(shown).slice(1, -1) : shown);
      expect(output).not.toContain(key);
      expect(output).not.toMatch(/u0073|sk9Z|Zq7-secret/);
    }
  }
});
