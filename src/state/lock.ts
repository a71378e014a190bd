import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import path from 'node:path';
import { VoxformError } from '../errors.js';

/** Who holds a state lock: written into the lock file so a refused run can name its owner. */
export interface LockOwner {
  pid: number;
  host: string;
  user: string;
  command: string;
  /** ISO 8601. */
  since: string;
}

export interface StateLock {
  owner: LockOwner;
  release(): Promise<void>;
}

function describe(owner: LockOwner): string {
  return `${owner.user}@${owner.host} (pid ${owner.pid}, "${owner.command}", since ${owner.since})`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(lockFile: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await readFile(lockFile, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

/**
 * Takes the lock beside the state file (`state.json.lock`), created exclusively so two applies can
 * never both hold it. Waits up to `timeoutSeconds` for a holder to finish. A lock left behind by a
 * process of this host that no longer runs (an apply killed with SIGKILL) is taken over, with a
 * warning: the state file itself is always whole, because every write of it is atomic.
 */
export async function acquireStateLock(
  stateFile: string,
  options: { command: string; timeoutSeconds: number; warn: (message: string) => void },
): Promise<StateLock> {
  const lockFile = `${stateFile}.lock`;
  await mkdir(path.dirname(lockFile), { recursive: true });
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    user: safeUser(),
    command: options.command,
    since: new Date().toISOString(),
  };
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  for (;;) {
    try {
      const handle = await open(lockFile, 'wx');
      await handle.writeFile(`${JSON.stringify(owner)}\n`);
      await handle.close();
      let released = false;
      return {
        owner,
        release: async () => {
          if (released) return;
          released = true;
          await unlink(lockFile).catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readOwner(lockFile);
    if (holder && holder.host === owner.host && !isAlive(holder.pid)) {
      options.warn(`Taking over the state lock left by ${describe(holder)}, which no longer runs.`);
      await unlink(lockFile).catch(() => undefined);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = holder ? describe(holder) : 'another voxform run';
      throw new VoxformError('state_locked', `The state file ${stateFile} is locked by ${who}.`, {
        hint: `Wait for it to finish (or pass --lock-timeout SECONDS to wait). If no such run exists any more, delete ${lockFile}.`,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(500, Math.max(50, deadline - Date.now()))));
  }
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
