// Starts `voxform emulator` in a child process, as a remote service would be: its CPU is not the
// measured process's CPU. Resolves once it listens, with its URL and key, a request counter read
// from the control surface, and close().
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function startEmulatorProcess({ seed, seedFile, latencyMs = 0 }) {
  const args = [path.join(root, 'bin/voxform.js'), 'emulator', '--port', '0'];
  if (seed) {
    await writeFile(seedFile, JSON.stringify(seed));
    args.push('--seed', seedFile);
  }
  if (latencyMs > 0) args.push('--latency', String(latencyMs));
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const { url, apiKey } = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const url = /listening on (\S+)/.exec(stdout)?.[1];
      const apiKey = /private key\s+(\S+)/.exec(stdout)?.[1];
      if (url && apiKey) resolve({ url, apiKey });
    });
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code}): ${stderr}`)));
  });
  return {
    url,
    apiKey,
    /**
     * The sequence number of the last request answered: the difference of two readings counts the
     * requests between them (the log itself keeps only the latest entries).
     */
    async lastRequestSeq() {
      const body = await (await fetch(`${url}/_emulator/requests`)).json();
      return body.requests.at(-1)?.seq ?? 0;
    },
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
