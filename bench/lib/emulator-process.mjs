// Starts the emulator (from dist/) in a child process, as a remote service would be: its CPU is not
// the measured process's CPU. Resolves once it listens, with its URL and key, readers of its
// request log (the control surface) to count what a command sent, and close().
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Clock ticks per second of /proc's CPU times (USER_HZ; 100 on Linux unless getconf says otherwise). */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;
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
  // BENCH_EMULATOR_CPU_PROF=DIR: a CPU profile of the emulator process in DIR (written when it closes).
  const profile = process.env.BENCH_EMULATOR_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_EMULATOR_CPU_PROF)] : [];
  const child = spawn(process.execPath, [...profile, '--input-type=module', '-e', script], { cwd: root, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
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
    /**
     * CPU time the emulator process has used so far (user + system, ms), from /proc on Linux; null
     * elsewhere. The difference of two readings is what serving the requests between them cost.
     */
    cpuMs() {
      try {
        const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
        // utime and stime are fields 14 and 15 of stat(5), counted here from field 3 (the state).
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
      } catch {
        return null;
      }
    },
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
