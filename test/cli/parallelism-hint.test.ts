/**
 * The client's advice for too many requests at once names --parallelism; a command without that
 * option (logs, get, export, …) gives the same advice without it, since it would refuse the flag.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { ApiError } from '../../src/api/errors.js';
import { reportable } from '../../src/cli/report-error.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** An emulator that answers every request to `path` with 429 (no wait asked: the retries run at once). */
async function rateLimited(path: string): Promise<{ env: Record<string, string> }> {
  emulator = await startEmulator({ port: 0, quiet: true });
  emulator.control.setFaults([{ path, rateLimit: { burst: 0, retryAfterSeconds: 0, limited: 1 } }]);
  return { env: { VOXFORM_API_KEY: emulator.apiKey, VOXFORM_BASE_URL: emulator.url } };
}

describe('a request the service keeps refusing with 429', () => {
  it('logs, which has no --parallelism: the hint does not name it, in text and in JSON', async () => {
    const { env } = await rateLimited('/call-logs');
    const cwd = await tempDir();
    const text = await runCliInProcess(['logs', '--limit', '1'], { cwd, env });
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('error[api_rate_limited]: GET /call-logs failed: the service answered 429');
    expect(text.stderr).toContain('  hint: The service is limiting the request rate; try again in a minute.\n');
    expect(text.stderr).not.toContain('--parallelism');
    const json = await runCliInProcess(['logs', '--limit', '1', '--format', 'json'], { cwd, env });
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'api_rate_limited', hint: 'The service is limiting the request rate; try again in a minute.' });
  });

  it('plan, which has --parallelism: the hint names it', async () => {
    const { env } = await rateLimited('/agents/*');
    const cwd = await tempDir({ 'voxform.yaml': 'version: 1\nagents:\n  front-desk: { id: -OKdqbqetEcM4ak369ym, name: Front desk }\n' });
    const result = await runCliInProcess(['plan'], { cwd, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error[api_rate_limited]: GET /agents/-OKdqbqetEcM4ak369ym failed');
    expect(result.stderr).toContain('hint: The service is limiting the request rate; lower --parallelism or try again in a minute.');
  });
});

describe('no connection could be opened (the open-file limit)', () => {
  const error = new ApiError({
    code: 'api_too_many_open_files',
    message: 'GET /agents/a failed: no connection could be opened.',
    hint: 'Raise the limit of open files (`ulimit -n`, e.g. `ulimit -n 4096`) and run the command again, or lower --parallelism (each request in flight holds a connection, an open file).',
    method: 'GET',
    path: '/agents/a',
    attempts: 1,
  });

  it('a command without --parallelism is told of the limit alone, the request error still one (its method and path kept); one with it keeps the whole hint', () => {
    const reported = reportable(error, false);
    expect(reported).toBeInstanceOf(ApiError);
    expect(reported).toMatchObject({ code: 'api_too_many_open_files', message: error.message, hint: 'Raise the limit of open files (`ulimit -n`, e.g. `ulimit -n 4096`) and run the command again.', method: 'GET', path: '/agents/a' });
    expect(reportable(error, true)).toBe(error);
  });
});
