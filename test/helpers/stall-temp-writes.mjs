/**
 * Loaded into a voxform process with `node --import` by tests that stop a run midway through an
 * atomic write: every write to a temporary file (`.NAME.PID.HEX.tmp`, opened by writeTempBeside)
 * through a file handle announces itself on stderr once and then never completes, so the write
 * ends only if a signal ends the run. `STALL_TEMP_WRITES_AFTER=N` lets the first N temporary files be
 * written first (a run stopped with some of its files in place). `STALL_TEMP_WRITES_UNTIL_SIGNAL=1`:
 * the stalled write completes once a signal has reached the process (its own handlers have run), so
 * the writer goes on to put the file in place while the stop runs its course.
 * `STALL_TEMP_WRITES_OF=NAME`: only the temporary files of the file named NAME stall (not a lock's).
 */
import { readlinkSync } from 'node:fs';
import path from 'node:path';
import { open } from 'node:fs/promises';

const probe = await open(process.execPath, 'r');
const FileHandle = Object.getPrototypeOf(probe);
await probe.close();

let allowed = Number(process.env.STALL_TEMP_WRITES_AFTER ?? '0');
const passed = new Set();
let announced = false;
for (const method of ['write', 'writeFile']) {
  const original = FileHandle[method];
  FileHandle[method] = function stalledWrite(...args) {
    const target = readlinkSync(`/proc/self/fd/${this.fd}`);
    const of = process.env.STALL_TEMP_WRITES_OF;
    if (!target.endsWith('.tmp') || passed.has(target) || (of !== undefined && !path.basename(target).startsWith(`.${of}.`))) return original.apply(this, args);
    if (allowed > 0) {
      allowed--;
      passed.add(target);
      return original.apply(this, args);
    }
    if (!announced) process.stderr.write(`stalled writing ${target}\n`);
    announced = true;
    // A timer keeps the process alive (nothing else may): it ends by the signal, not by running out of work.
    setInterval(() => undefined, 60_000);
    if (process.env.STALL_TEMP_WRITES_UNTIL_SIGNAL === '1') {
      // Listeners run in turn within the signal's emit: voxform's own trap, then this one; then the write goes on.
      return new Promise((resolve) => {
        for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => resolve());
      }).then(() => {
        // The rest of the file's pieces are written as they come.
        passed.add(target);
        return original.apply(this, args);
      });
    }
    return new Promise(() => undefined);
  };
}
