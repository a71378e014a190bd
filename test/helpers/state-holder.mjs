// A second process that holds a workspace's apply lock, for the backend contract tests (built dist/).
// Usage: node state-holder.mjs STATE WORKSPACE. Prints one JSON event per line: `locked` (with the
// holder), `lost`, `written` or `write-failed` (answers to a `write` line on stdin), `released`.
import { createInterface } from 'node:readline';
import { openStateSpec } from '../../dist/state/open.js';
import { StateStore } from '../../dist/state/state-file.js';

const [spec, workspace] = process.argv.slice(2);
const say = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
const backend = await openStateSpec(spec, { env: process.env, cwd: process.cwd(), registerSecret: () => undefined });
const lock = await backend.acquireLock(workspace, { command: 'voxform apply (holder)', timeoutSeconds: 0, warn: () => undefined });
lock.lost.addEventListener('abort', () => say({ event: 'lost', reason: lock.lostReason() }));
const store = await StateStore.open(backend, workspace, 'holder-key');
say({ event: 'locked', holder: lock.holder });
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'write') {
    await store
      .update((ws) => (ws.credentials[`credential.${Date.now()}`] = { fingerprint: 'sha256:holder' }))
      .then(() => say({ event: 'written' }), (error) => say({ event: 'write-failed', code: error.code, message: error.message }));
  } else if (line === 'release') {
    await lock.release();
    await backend.close();
    say({ event: 'released' });
    process.exit(0);
  }
}
