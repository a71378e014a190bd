import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { repoRoot, runCli, runCliInProcess, type CliResult } from './cli.js';

/** Secret values the example manifest reads through `${env:…}`: none may ever be printed or stored. */
export const SECRETS = {
  HOOK_TOKEN: 'hook-secret-9f8e7d6c5b4a',
  CALENDAR_TOKEN: 'calendar-secret-1a2b3c4d5e',
  TWILIO_API_KEY: 'twilio-key-secret-0f1e2d3c',
  TWILIO_API_SECRET: 'twilio-secret-secret-4b5a6978',
  OPENAI_API_KEY: 'sk-openai-secret-77aa88bb99cc',
};

/** One agent, a staging overlay that adopts another id, and production promoted from staging. */
export const STAGED_MANIFEST = [
  'version: 1',
  'agents:',
  '  front-desk:',
  '    id: -OKdqbqetEcM4ak369ym',
  '    config: { prompt: "You are the receptionist of Acme Dental." }',
  'environments:',
  '  staging:',
  '    agents: { front-desk: { id: -OKstagingFrontDesk01 } }',
  '  production:',
  '    promote_from: staging',
  '',
].join('\n');

export interface RecordedRequest {
  method: string;
  path: string;
  body: string;
}

/**
 * Requests the proxy keeps from the emulator until the test lets them go: the test acts while they
 * are surely on the wire (a signal, a forced lock), however slow the machine, and waits no longer
 * than it needs to.
 */
export interface HeldRequests {
  /** Resolves once `count` requests have been held; their paths, in the order they came. */
  arrived(count?: number): Promise<string[]>;
  /** Sends the held requests on to the emulator, and lets every later one straight through. */
  release(): void;
}

/** Requests `method pathPrefix…` kept from the emulator until released. */
class Hold {
  readonly paths: string[] = [];
  private readonly waiting: Array<() => void> = [];
  private letGo: () => void = () => undefined;
  readonly released = new Promise<void>((resolve) => (this.letGo = resolve));

  constructor(
    private readonly method: string,
    private readonly pathPrefix: string,
  ) {}

  matches(method: string | undefined, url: string | undefined): boolean {
    return method === this.method && (url ?? '').startsWith(this.pathPrefix);
  }

  add(url: string): void {
    this.paths.push(url);
    for (const wake of this.waiting.splice(0)) wake();
  }

  async arrived(count: number): Promise<string[]> {
    while (this.paths.length < count) await new Promise<void>((resolve) => this.waiting.push(resolve));
    return [...this.paths];
  }

  release(): void {
    this.letGo();
  }
}

/**
 * A copy of `agents.example.yaml` and `example/` in a temp folder, an emulator on loopback, and a
 * recording proxy in front of it (so tests can see the exact bodies voxform sent).
 */
export interface ExampleProject {
  dir: string;
  emulator: RunningEmulator;
  /** The proxy's URL: what the CLI talks to. */
  url: string;
  requests: RecordedRequest[];
  env: Record<string, string>;
  /** The built CLI as a process of its own (end-to-end). */
  cli(args: string[], extraEnv?: Record<string, string | undefined>): Promise<CliResult>;
  /** The CLI's command line in the test's process (`runCliInProcess`). */
  cliInProcess(args: string[], extraEnv?: Record<string, string | undefined>, output?: { terminal?: true | 'no-color'; columns?: number }): Promise<CliResult>;
  /** Holds the requests `method pathPrefix…` that come from now on, until `release`. */
  hold(method: string, pathPrefix: string): HeldRequests;
  close(): Promise<void>;
}

function startRecordingProxy(target: string, requests: RecordedRequest[], holds: Hold[]): Promise<Server> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method ?? '', path: req.url ?? '', body: body.toString('utf8') });
      const hold = holds.find((h) => h.matches(req.method, req.url));
      if (!hold) return send();
      let gone = false;
      res.on('close', () => (gone = true));
      hold.add(req.url ?? '');
      // A caller that went away while held (stopped at once) sends nothing on.
      void hold.released.then(() => gone || send());

      function send(): void {
        const forward = request(
          { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
          (upstreamRes) => {
            res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
            upstreamRes.pipe(res);
          },
        );
        // The emulator may drop a connection on purpose (fault injection): pass that on as a drop.
        forward.on('error', () => res.destroy());
        // And a caller that goes away (a stopped CLI) takes its request to the emulator with it.
        res.on('close', () => {
          if (!res.writableFinished) forward.destroy();
        });
        forward.end(body);
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function startExampleProject(options: EmulatorOptions = {}): Promise<ExampleProject> {
  const dir = await mkdtemp(path.join(tmpdir(), 'voxform-e2e-'));
  await cp(path.join(repoRoot, 'agents.example.yaml'), path.join(dir, 'voxform.yaml'));
  await cp(path.join(repoRoot, 'example'), path.join(dir, 'example'), { recursive: true });
  // Webhooks only to loopback: the example's webhook URLs are not ours to call from a test.
  const emulator = await startEmulator({ port: 0, quiet: true, webhooks: 'loopback', ...options });
  const requests: RecordedRequest[] = [];
  const holds: Hold[] = [];
  const proxy = await startRecordingProxy(emulator.url, requests, holds);
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const env = { ...SECRETS, VOXFORM_BASE_URL: url, VOXFORM_API_KEY: emulator.apiKey };
  return {
    dir,
    emulator,
    url,
    requests,
    env,
    cli: (args, extraEnv = {}) => runCli(args, { cwd: dir, env: { ...env, ...extraEnv } }),
    cliInProcess: (args, extraEnv = {}, output = {}) => runCliInProcess(args, { cwd: dir, env: { ...env, ...extraEnv }, ...output }),
    hold: (method, pathPrefix) => {
      const hold = new Hold(method, pathPrefix);
      holds.push(hold);
      return {
        arrived: (count = 1) => hold.arrived(count),
        release: () => {
          // Released once already (or by close): nothing more to take out.
          if (holds.includes(hold)) holds.splice(holds.indexOf(hold), 1);
          hold.release();
        },
      };
    },
    close: async () => {
      // Nothing held keeps a connection, and so the proxy, open.
      for (const hold of holds.splice(0)) hold.release();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      proxy.closeAllConnections();
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Calls the emulator directly (as someone using the dashboard would), bypassing voxform. */
export async function callService(project: ExampleProject, method: string, pathname: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${project.emulator.url}${pathname}`, {
    method,
    headers: { authorization: project.emulator.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${await response.text()}`);
  return response.json();
}

/**
 * Example projects for the tests of one file, each closed after its test (as `useTempDirs` removes
 * folders). Call it once at the top level; the function it returns starts one.
 */
export function useExampleProjects(): (options?: EmulatorOptions) => Promise<ExampleProject> {
  const started: ExampleProject[] = [];
  afterEach(async () => {
    while (started.length > 0) await started.pop()?.close();
  });
  return async (options = {}) => {
    const project = await startExampleProject(options);
    started.push(project);
    return project;
  };
}

/**
 * An example project (from `start`, one of `useExampleProjects`) with the text `from` of its manifest
 * replaced by `to`; the line and column `to` starts at, for a test of where a problem is reported.
 */
export async function exampleProjectWith(start: () => Promise<ExampleProject>, from: string, to: string): Promise<{ project: ExampleProject; line: number; col: number }> {
  const project = await start();
  const file = path.join(project.dir, 'voxform.yaml');
  const text = await readFile(file, 'utf8');
  expect(text).toContain(from);
  const edited = text.replace(from, to);
  await writeFile(file, edited);
  const before = edited.slice(0, edited.indexOf(to)).split('\n');
  return { project, line: before.length, col: (before.at(-1)?.length ?? 0) + 1 };
}

/** The emulator of `useEmulator`, and the environment that points the CLI at it with its key. */
export interface SharedEmulator {
  readonly emulator: RunningEmulator;
  readonly env: Record<string, string>;
}

/**
 * One emulator on loopback for all the tests of one file: started before them, closed after. Call
 * it once at the top level; read `emulator` and `env` inside the tests.
 */
export function useEmulator(options: EmulatorOptions = {}): SharedEmulator {
  let emulator: RunningEmulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, ...options });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  const running = (): RunningEmulator => {
    if (!emulator) throw new Error('useEmulator: the emulator starts before the first test, not while the file is read');
    return emulator;
  };
  return {
    get emulator() {
      return running();
    },
    get env() {
      return { VOXFORM_API_KEY: running().apiKey, VOXFORM_BASE_URL: running().url };
    },
  };
}

/** Fails when a command's output holds a planted secret of the example project or one of `extra` (an API key). */
export function withoutSecrets(result: { stdout: string; stderr: string }, ...extra: string[]): void {
  for (const secret of [...Object.values(SECRETS), ...extra]) expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
}
