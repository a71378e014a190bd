/**
 * The emulator behind a proxy that rewrites its JSON answers: for answers the service might send and
 * the emulator never does (its data file and requests are checked), each test says what to send
 * instead. `rewrite` gets the request and the answer's text, and returns the text to send, or a
 * status to send in place of the service's with it.
 */
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { fakeServer } from '../api/helpers.js';
import { repoRoot, useTempDirs } from './cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SECRETS, useEmulator } from './project.js';

export type AnswerRewrite = (request: { method: string; path: string }, text: string) => string | { status: number; text: string };

export interface RewritingProxy {
  url: string;
  /** What the proxy makes of each answer from now on (at first, every answer as it is). */
  rewrite: AnswerRewrite;
  close(): Promise<void>;
}

/** Headers a proxy must not pass on as they are: it sends a body of its own length. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

export async function startRewritingProxy(target: string): Promise<RewritingProxy> {
  const proxy: RewritingProxy = {
    url: '',
    rewrite: (_request, text) => text,
    close: async () => server.close(),
  };
  const server = await fakeServer(async (req, res, body) => {
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_HEADERS.has(name))) as Record<string, string>;
    const upstream = await fetch(`${target}${req.url ?? '/'}`, { method: req.method, headers, body: body === '' ? undefined : body });
    const answer = proxy.rewrite({ method: req.method ?? 'GET', path: req.url ?? '/' }, await upstream.text());
    const { status, text } = typeof answer === 'string' ? { status: upstream.status, text: answer } : answer;
    res.writeHead(status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(text);
  });
  proxy.url = server.url;
  return proxy;
}

/** A copy of the example project that talks to the proxy, and the id of its first agent (`front-desk`, which attaches a knowledge file). */
export interface RewrittenExample {
  dir: string;
  env: Record<string, string>;
  agentId: string;
}

/**
 * For a test file: one emulator behind one rewriting proxy, started before its tests and closed
 * after them, and copies of the example project that talk to the proxy. Call it once at the top of
 * the file (or of a describe block).
 */
export function useRewritingService(): { readonly proxy: RewritingProxy; readonly emulator: RunningEmulator; example(): Promise<RewrittenExample> } {
  const shared = useEmulator({ quiet: true, webhooks: 'loopback' });
  const tempDir = useTempDirs();
  let proxy: RewritingProxy | undefined;
  beforeAll(async () => {
    proxy = await startRewritingProxy(shared.emulator.url);
  });
  afterAll(async () => {
    await proxy?.close();
  });
  const running = (): RewritingProxy => {
    if (!proxy) throw new Error('useRewritingService: the proxy starts before the first test');
    return proxy;
  };
  return {
    get proxy() {
      return running();
    },
    get emulator() {
      return shared.emulator;
    },
    async example() {
      const dir = await tempDir();
      await cp(path.join(repoRoot, 'agents.example.yaml'), path.join(dir, 'voxform.yaml'));
      await cp(path.join(repoRoot, 'example'), path.join(dir, 'example'), { recursive: true });
      const agentId = /^\s+id: (\S+)$/m.exec(await readFile(path.join(dir, 'voxform.yaml'), 'utf8'))?.[1] as string;
      return { dir, agentId, env: { ...SECRETS, VOXFORM_API_KEY: shared.emulator.apiKey, VOXFORM_BASE_URL: running().url } };
    },
  };
}
