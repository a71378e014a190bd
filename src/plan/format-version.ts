/**
 * Version of the JSON plan format (`voxform plan --format json` and saved plan files), and how a
 * saved plan file begins. Kept apart from the renderer, so that `voxform --version` names it, and
 * the command line tells a saved plan from a manifest, without loading the plan's code.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/**
 * The format this voxform writes. A field added that a plan can do without (absent means none) bumps
 * the minor, and the older minors from `OLDEST_PLAN_FORMAT_READ` on stay readable: a plan saved by
 * the voxform before an upgrade still applies after it. A field removed, or changing meaning, bumps
 * the major and moves `OLDEST_PLAN_FORMAT_READ` to it.
 */
export const PLAN_JSON_FORMAT_VERSION = '1.8';

/** The oldest format read: 1.6 to 1.8 only added optional fields (`after_written`, `no_longer_managed`, `names`, `earlier_id`; `summary`'s `renamed` and `swapped`; `take_over`, and each change's `takes_over_from`). */
export const OLDEST_PLAN_FORMAT_READ = '1.5';

/** The formats a saved plan may have to be read (`readPlanFile`): same major, minor from the oldest read to this one's. */
export function isPlanFormatRead(version: unknown): boolean {
  if (typeof version !== 'string' || !/^\d{1,9}\.\d{1,9}$/.test(version)) return false;
  const [major, minor] = version.split('.').map(Number) as [number, number];
  // The oldest read is of this major (see above): its minor is the one bound to check.
  const oldestMinor = Number(OLDEST_PLAN_FORMAT_READ.split('.')[1]);
  const [ownMajor, ownMinor] = PLAN_JSON_FORMAT_VERSION.split('.').map(Number) as [number, number];
  return major === ownMajor && minor >= oldestMinor && minor <= ownMinor;
}

/** How every file savePlanFile writes begins: what tells a plan to overwrite from any other file. */
const SAVED_PLAN_START = '{\n  "kind": "voxform-plan",';

/**
 * Whether `file` begins as every saved plan does: false for anything but a regular file (a FIFO, or
 * a link to one, would hold the open forever), undefined for a file that is not there or cannot be read.
 */
export function beginsAsSavedPlan(file: string): boolean | undefined {
  try {
    if (!statSync(file).isFile()) return false;
    const descriptor = openSync(file, 'r');
    try {
      const start = Buffer.alloc(SAVED_PLAN_START.length);
      return start.toString('utf8', 0, readSync(descriptor, start, 0, start.length, 0)) === SAVED_PLAN_START;
    } finally {
      closeSync(descriptor);
    }
  } catch {
    return undefined;
  }
}
