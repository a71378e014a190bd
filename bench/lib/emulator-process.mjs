// Starts the emulator (from dist/) in a child process, as a remote service would be: its CPU is not
// the measured process's CPU. Resolves once it listens, with its URL and key, readers of its
// request log (the control surface) to count what a command sent, and close().
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const entry = pathToFileURL(path.join(root, 'dist/emulator/index.js')).href;

/**
 * `requestLogLimit` must exceed the requests of the largest command measured, so that every one of
 * them can be read back (the log keeps the latest entries only).
 */
export async function startEmulatorProcess({ seed, seedFile, latencyMs = 0, requestLogLimit = 2_000 }) {
  if (seed) await writeFile(seedFile, JSON.stringify(seed));
  // Control requests are not logged, so reading the log does not add to it.
  const options = { port: 0, quiet: true, requestLogLimit, ...(latencyMs > 0 ? { latencyMs } : {}), ...(seed ? { seed: seedFile } : {}) };
  const script = `
    const { startEmulator } = await import(${JSON.stringify(entry)});
    const emulator = await startEmulator(${JSON.stringify(options)});
    process.stdout.write(JSON.stringify({ url: emulator.url, apiKey: emulator.apiKey }) + '\\n');
    process.on('SIGTERM', () => emulator.close().then(() => process.exit(0)));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: root, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const { url, apiKey } = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('\n')) resolve(JSON.parse(stdout.split('\n')[0]));
    });
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code}): ${stderr}`)));
  });
  const control = async (method, route) => {
    const response = await fetch(`${url}/_emulator/${route}`, { method });
    if (!response.ok) throw new Error(`${method} /_emulator/${route}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  return {
    url,
    apiKey,
    requestLogLimit,
    /**
     * The sequence number of the last request logged (0 when the log is empty): the difference of
     * two readings counts the requests between them, unless the log was reset in between.
     */
    async lastRequestSeq() {
      return (await control('GET', 'requests')).requests.at(-1)?.seq ?? 0;
    },
    /** The log's entries after sequence number `seq`, oldest first. */
    async requestsSince(seq) {
      return (await control('GET', `requests?since=${seq}`)).requests;
    },
    /** Back to the seed: agents, phones and campaigns as they were, the log emptied (its numbering goes on). */
    async reset() {
      await control('POST', 'reset');
    },
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
