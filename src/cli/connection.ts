import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createClient, resolveBaseUrl, type ApiClient, type ClientOptions } from '../api/index.js';
import { VoxformError } from '../errors.js';
import type { CommandContext, ConnectionOptions } from './context.js';

/** A client ready to use, and where it points. */
export interface Connection {
  client: ApiClient;
  baseUrl: string;
  /** The key in use (already registered as a secret: every output line is scrubbed of it). */
  apiKey: string;
  /** Whether this is the embedded emulator (`--local`). */
  local: boolean;
}

/** Client settings a command may add (e.g. `--parallelism` as `maxInFlight`). */
export type ConnectionTuning = Pick<ClientOptions, 'maxInFlight' | 'timeoutMs' | 'retries' | 'onRequest' | 'onResponse' | 'onRetry'>;

/**
 * Where a command talks to, in order of precedence:
 * 1. `--local`: the embedded emulator, started in-process on a loopback port with its data in
 *    `.voxform/local.json` (seeded with the default account on first use), closed when the run ends;
 *    its own key is used. Every command of the folder shares that file safely (docs/emulator.md,
 *    "One project database").
 * 2. `--base-url`, else `VOXFORM_BASE_URL`.
 * 3. `--region`, else `VOXFORM_REGION`, else `us`.
 * The key comes from `VOXFORM_API_KEY`. `VOXFORM_DEBUG=1` writes one line per request to stderr,
 * with the key redacted.
 */
export async function resolveConnection(options: ConnectionOptions, ctx: CommandContext, tuning: ConnectionTuning = {}): Promise<Connection> {
  const debug = ctx.env.VOXFORM_DEBUG === '1' ? (line: string) => ctx.stderr.write(`${line}\n`) : undefined;

  if (options.local) {
    const { startEmulator } = await import('../emulator/index.js');
    const dir = path.join(ctx.cwd, '.voxform');
    await mkdir(dir, { recursive: true });
    const dataFile = path.join(dir, 'local.json');
    // Shared: a `chat` and an `apply` run at once in this folder each embed an emulator on this file.
    const emulator = await startEmulator({ port: 0, host: '127.0.0.1', dataFile, sharedDataFile: true });
    ctx.onExit(() => emulator.close());
    if (emulator.apiKey === '') {
      throw new VoxformError('emulator_data_invalid', `${path.relative(ctx.cwd, dataFile)} holds no private key the embedded emulator accepts.`, {
        hint: 'Delete it to start again from the default account.',
      });
    }
    ctx.secrets.add(emulator.apiKey);
    const client = createClient({ ...tuning, baseUrl: emulator.url, apiKey: emulator.apiKey, ...(debug ? { debug } : {}) });
    ctx.onExit(() => client.close());
    return { client, baseUrl: client.baseUrl, apiKey: emulator.apiKey, local: true };
  }

  const baseUrl = chooseBaseUrl(options, ctx.env);
  const apiKey = ctx.env.VOXFORM_API_KEY?.trim() ?? '';
  if (apiKey === '') {
    throw new VoxformError(
      'api_key_missing',
      'No API key: set VOXFORM_API_KEY to your private key (from the service’s dashboard), or use --local for the embedded emulator.',
    );
  }
  ctx.secrets.add(apiKey);
  const client = createClient({ ...tuning, baseUrl, apiKey, ...(debug ? { debug } : {}) });
  ctx.onExit(() => client.close());
  return { client, baseUrl, apiKey, local: false };
}

/** `--base-url` / `VOXFORM_BASE_URL`, else the gateway of `--region` / `VOXFORM_REGION` (default us). */
export function chooseBaseUrl(options: ConnectionOptions, env: Readonly<Record<string, string | undefined>>): string {
  return resolveBaseUrl({
    baseUrl: nonEmpty(options.baseUrl) ?? nonEmpty(env.VOXFORM_BASE_URL),
    region: nonEmpty(options.region) ?? nonEmpty(env.VOXFORM_REGION)?.toLowerCase(),
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
