/**
 * Version of the JSON plan format (`voxform plan --format json` and saved plan files), and how a
 * saved plan file begins. Kept apart from the renderer, so that `voxform --version` names it, and
 * the command line tells a saved plan from a manifest, without loading the plan's code.
 */
export const PLAN_JSON_FORMAT_VERSION = '1.5';

/** How every file savePlanFile writes begins: what tells a plan to overwrite from any other file. */
export const SAVED_PLAN_START = '{\n  "kind": "voxform-plan",';
