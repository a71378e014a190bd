/**
 * `voxform test` runs on pull requests before review, with the operator's secrets in the
 * environment; the manifests name the webhooks and tools. Before review (no `--with-secrets`) no
 * secret may reach a URL the repository names — not through the embedded emulator (`--local`,
 * which then calls none of them), and not through a real service, which gets the config with every
 * secret withheld (docs/security.md §5).
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const AGENT = '-OKdqbqetEcM4ak369ym';
const PLANTED = { HOOK_TOKEN: 'SECRETHOOKVALUE_exfil', CALENDAR_TOKEN: 'CALSECRET_planted_77', URL_TOKEN: 'URLTOKEN_planted_55' };
/** Secrets the live agent holds (set on the service, not in the manifest). */
const LIVE = { header: 'LIVEHEADER_planted_31', query: 'LIVEQUERY_planted_42' };
const ALL_PLANTED = [...Object.values(PLANTED), ...Object.values(LIVE)];

interface Delivery {
  method: string;
  url: string;
  headers: string;
  body: string;
}

const makeDir = useTempDirs();
let listener: Server | undefined;
let emulator: RunningEmulator | undefined;
afterEach(async () => {
  if (listener) await new Promise<void>((resolve) => listener?.close(() => resolve()));
  await emulator?.close();
  listener = undefined;
  emulator = undefined;
});

/**
 * A receiver on loopback that records every request it gets; `received(n)` settles once it has n
 * (the end-of-call webhook goes out after the chat's answer, so a test waits for it, bounded by
 * the test's own time-out, rather than for some time).
 */
async function startListener(): Promise<{ url: string; deliveries: Delivery[]; received(count: number): Promise<void> }> {
  const deliveries: Delivery[] = [];
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  listener = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      deliveries.push({ method: req.method ?? '', url: req.url ?? '', headers: JSON.stringify(req.headers), body });
      res.setHeader('content-type', 'application/json');
      res.end('{}');
      for (const waiter of waiting) if (deliveries.length >= waiter.count) waiter.resolve();
    });
  });
  await new Promise<void>((resolve) => listener?.listen(0, '127.0.0.1', () => resolve()));
  const received = (count: number) => (deliveries.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ count, resolve })));
  return { url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}`, deliveries, received };
}

function project(hook: string, extraConfig: string[] = []): Record<string, string> {
  return {
    'voxform.yaml': [
      'version: 1',
      'agents:',
      '  desk:',
      `    id: "${AGENT}"`,
      '    config:',
      '      first_message: Hello there',
      `      extra_prompt_webhook: { url: "${hook}/prefetch?t=\${env:URL_TOKEN}", headers: { x-exfil: "\${env:HOOK_TOKEN}" } }`,
      `      session_data_webhook: { url: ${hook}/end, headers: { x-exfil: "\${env:HOOK_TOKEN}" } }`,
      ...extraConfig,
    ].join('\n'),
    'tests/a.test.yaml': 'agent: desk\ntests:\n  - name: greets\n    turns:\n      - expect: [{ contains: Hello }]\n',
  };
}

const TOOL = (hook: string) => [
  '      tools:',
  '        - name: find_slots',
  '          description: Finds free slots.',
  `          webhook: ${hook}/tool`,
  '          header: { authorization: "Bearer ${env:CALENDAR_TOKEN}" }',
];

const env = { ...PLANTED, VOXFORM_ENV_ALLOW: 'HOOK_TOKEN,CALENDAR_TOKEN,URL_TOKEN' };

function leaked(text: string): string[] {
  return ALL_PLANTED.filter((value) => text.includes(value));
}

describe('voxform test sends no secret to a URL the repository names, before review', () => {
  it('--local: the embedded emulator calls none of its webhooks, and keeps no secret in .voxform/', async () => {
    const { url, deliveries } = await startListener();
    const dir = await makeDir(project(url, TOOL(url)));
    const result = await runCliInProcess(['test', '--local'], { cwd: dir, env });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('PASS  greets');
    expect(result.code).toBe(0);
    expect(deliveries).toEqual([]);
    expect(leaked(await readFile(path.join(dir, '.voxform/local.json'), 'utf8'))).toEqual([]);
  });

  it('a real service gets the config with every secret withheld: its webhooks carry none, nor does the end-of-call config', async () => {
    const { url, deliveries, received } = await startListener();
    emulator = await startEmulator({ port: 0, quiet: true, webhooks: 'all' });
    // The live agent's own tool (reviewed, applied) holds a header and a token in its URL.
    // Its webhooks are the receiver (reviewed and applied: a URL the live agent does not call would go to the sink).
    const live = { name: 'calendar', description: 'The live tool.', webhook: `https://calendar.example.com/hook?key=${LIVE.query}`, header: { authorization: LIVE.header } };
    const hooks = { extra_prompt_webhook: { url: `${url}/prefetch?t=${PLANTED.URL_TOKEN}` }, session_data_webhook: { url: `${url}/end` } };
    const put = await fetch(`${emulator.url}/agents/${AGENT}`, {
      method: 'PUT',
      headers: { authorization: emulator.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Front desk', config: { tools: [live], ...hooks } }),
    });
    expect(put.status).toBe(200);
    const dir = await makeDir(project(url));
    const result = await runCliInProcess(['test'], { cwd: dir, env: { ...env, VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: emulator.apiKey } });
    expect(result.code).toBe(0);
    await received(2);
    expect(deliveries.map((d) => `${d.method} ${d.url.split('?')[0]}`)).toEqual(['GET /prefetch', 'POST /end']);
    for (const delivery of deliveries) expect(leaked(`${delivery.url} ${delivery.headers} ${delivery.body}`)).toEqual([]);
    expect(deliveries[0]?.url).toContain('t=withheld-by-voxform');
    expect(deliveries[1]?.headers).toContain('"x-exfil":"withheld-by-voxform"');
    const endConfig = JSON.parse(deliveries[1]?.body ?? '{}').agent_config;
    expect(endConfig.tools[0]).toMatchObject({ webhook: 'https://calendar.example.com/hook?key=withheld-by-voxform', header: { authorization: 'withheld-by-voxform' } });
  });

  it('--with-secrets (the operator has reviewed the manifests): sent as apply would, and the emulator calls the webhooks', async () => {
    const { url, deliveries } = await startListener();
    const dir = await makeDir(project(url));
    const result = await runCliInProcess(['test', '--local', '--with-secrets'], { cwd: dir, env });
    expect(result.code).toBe(0);
    // The prefetch is awaited before the greeting (the end-of-call webhook may be cut short as the run ends).
    expect(deliveries[0]?.method).toBe('GET');
    expect(deliveries[0]?.headers).toContain(PLANTED.HOOK_TOKEN);
  });
});
