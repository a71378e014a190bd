/**
 * Version of the JSON plan format (`voxform plan --format json` and saved plan files). Kept apart
 * from the renderer, so that `voxform --version` names it without loading the plan's code.
 */
export const PLAN_JSON_FORMAT_VERSION = '1.5';
