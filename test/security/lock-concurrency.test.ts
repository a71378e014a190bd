/**
 * Promise: of two applies started together, exactly one holds the state lock — also when both find
 * the lock of a run that was killed (the takeover is atomic too).
 *
 * In one process the file-system calls of two acquisitions would run in lock-step, which hides
 * races; so every call the lock makes goes through a wrapper that delays it by a random 0–3 ms,
 * interleaving the two acquisitions the way two processes on a busy machine do. A couple of pairs
 * run as real processes as well.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  // A seeded generator: a failure can be replayed.
  let seed = 20260131;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const jittered = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 4)));
    return fn(...args);
  };
  return {
    ...real,
    default: real,
    rename: jittered(real.rename),
    unlink: jittered(real.unlink),
    rmdir: jittered(real.rmdir),
    readdir: jittered(real.readdir as (p: string) => Promise<string[]>),
    readFile: jittered(real.readFile as (p: string, e: 'utf8') => Promise<string>),
    lstat: jittered(real.lstat),
    open: jittered(real.open),
    writeFile: jittered(real.writeFile),
  };
});

const { acquireStateLock, readStateLockWithId } = await import('../../src/state/lock.js');

/** A pid above Linux's largest (2²²): no process can have it. */
const DEAD_PID = 2 ** 22 + 12345;
const deadOwner = { pid: DEAD_PID, host: hostname(), user: 'ci', command: 'voxform apply', since: '2026-01-31T09:00:00.000Z' };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'voxform-lock-race-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Leftover = 'none' | 'dead holder' | 'dead holder (older lock file)';

async function plant(stateFile: string, leftover: Leftover): Promise<void> {
  if (leftover === 'dead holder') {
    await mkdir(`${stateFile}.lock`, { recursive: true });
    await writeFile(`${stateFile}.lock/holder-00000000deadbeef.json`, JSON.stringify(deadOwner));
  } else if (leftover === 'dead holder (older lock file)') {
    await writeFile(`${stateFile}.lock`, JSON.stringify(deadOwner));
  }
}

describe('two acquisitions started together', () => {
  it('exactly one wins, in each of 100 pairs (no lock, a dead holder’s lock, an older lock file)', async () => {
    const leftovers: Leftover[] = ['none', 'dead holder', 'dead holder (older lock file)'];
    const outcomes: string[] = [];
    for (let pair = 0; pair < 100; pair++) {
      const stateFile = path.join(dir, `pair-${pair}`, 'state.json');
      const leftover = leftovers[pair % leftovers.length] as Leftover;
      await mkdir(path.dirname(stateFile), { recursive: true });
      await plant(stateFile, leftover);
      const attempts = await Promise.allSettled(
        ['first', 'second'].map((command) => acquireStateLock(stateFile, { command, timeoutSeconds: 0, warn: () => undefined })),
      );
      const winners = attempts.filter((a) => a.status === 'fulfilled');
      const refusals = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
      outcomes.push(`${pair} (${leftover}): ${winners.length} won, refused: ${refusals.map((r) => (r.reason as { code?: string }).code).join(',')}`);
      if (winners.length === 1) {
        const winner = (winners[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireStateLock>>>).value;
        expect((await readStateLockWithId(stateFile))?.owner).toMatchObject({ pid: process.pid, command: winner.owner.command });
      }
      for (const won of winners) await (won as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release();
    }
    expect(outcomes.filter((line) => !line.endsWith(': 1 won, refused: state_locked'))).toEqual([]);
  });
});

/** A process that loads the built lock module, waits for "go", tries once, and holds until told to release. */
const CONTENDER = `
import { createInterface } from 'node:readline';
const { acquireStateLock } = await import(process.env.LOCK_MODULE);
const lines = createInterface({ input: process.stdin });
let lock;
process.stdout.write('ready\\n');
for await (const line of lines) {
  if (line === 'go') {
    try {
      lock = await acquireStateLock(process.env.STATE_FILE, { command: 'contender', timeoutSeconds: 0, warn: () => undefined });
      process.stdout.write('won\\n');
    } catch (error) {
      process.stdout.write(error.code + '\\n');
    }
  } else if (line === 'release') {
    await lock?.release();
    process.stdout.write('released\\n');
    break;
  }
}
`;

function startContender(stateFile: string): { child: ChildProcessWithoutNullStreams; next(): Promise<string> } {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CONTENDER], {
    env: { PATH: process.env.PATH ?? '', LOCK_MODULE: pathToFileURL(path.join(repoRoot, 'dist/state/lock.js')).href, STATE_FILE: stateFile },
  });
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<string>((resolve) => child.on('close', (code) => resolve(`exited ${code}: ${stderr}`)));
  return {
    child,
    next: () => {
      const line = lines.shift();
      return line !== undefined ? Promise.resolve(line) : Promise.race([new Promise<string>((resolve) => waiters.push(resolve)), exited]);
    },
  };
}

describe('two processes started together', () => {
  it('exactly one holds the lock, with and without a dead holder’s lock left behind', async () => {
    for (const [pair, leftover] of (['none', 'dead holder', 'none', 'dead holder', 'dead holder (older lock file)', 'none'] as Leftover[]).entries()) {
      const stateFile = path.join(dir, `process-pair-${pair}`, 'state.json');
      await mkdir(path.dirname(stateFile), { recursive: true });
      await plant(stateFile, leftover);
      const contenders = [startContender(stateFile), startContender(stateFile)];
      expect(await Promise.all(contenders.map((c) => c.next()))).toEqual(['ready', 'ready']);
      for (const c of contenders) c.child.stdin.write('go\n');
      const results = await Promise.all(contenders.map((c) => c.next()));
      expect({ leftover, results: [...results].sort() }).toEqual({ leftover, results: ['state_locked', 'won'] });
      for (const c of contenders) c.child.stdin.write('release\n');
      expect(await Promise.all(contenders.map((c) => c.next()))).toEqual(['released', 'released']);
      expect((await readStateLockWithId(stateFile))?.owner).toBeUndefined();
    }
  });
});
