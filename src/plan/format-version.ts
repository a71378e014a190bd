/**
 * Version of the JSON plan format (`voxform plan --format json` and saved plan files), and how a
 * saved plan file begins. Kept apart from the renderer, so that `voxform --version` names it, and
 * the command line tells a saved plan from a manifest, without loading the plan's code.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';

export const PLAN_JSON_FORMAT_VERSION = '1.6';

/** How every file savePlanFile writes begins: what tells a plan to overwrite from any other file. */
export const SAVED_PLAN_START = '{\n  "kind": "voxform-plan",';

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
