/**
 * A manifest given as an argument (`voxform plan voxform.yaml`) where `-f` was meant. One rule for
 * every command that takes -f, whether the command takes no argument (the parser's "too many
 * arguments", usage-errors.ts) or another file (`voxform apply PLAN`): the same test, the same words,
 * and the command line that works.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { SAVED_PLAN_START } from '../plan/format-version.js';
import { nextCommand, type ChosenTarget } from './next-command.js';

/**
 * Whether `argument` names a manifest: its name ends in .yaml or .yml, and it is not a saved plan
 * (`plan --out plan.yaml`). The name decides: the shell every command loads reads no YAML.
 */
export function namesManifest(argument: string, cwd: string): boolean {
  return /\.ya?ml$/i.test(argument) && !startsAsSavedPlan(path.resolve(cwd, argument));
}

/**
 * The error for `manifests`, given as arguments to `voxform WORDS`, which `takes` something else
 * ("no argument", "a saved plan as its argument"); its hint is the command line with them after -f,
 * keeping the options that chose the project and service.
 */
export function manifestArgumentError(manifests: string[], words: string, chosen: ChosenTarget, takes: string): VoxformError {
  const named = manifests.join(' and ');
  const withFiles = nextCommand(words, { ...chosen, file: [...(chosen.file ?? []), ...manifests] });
  return new VoxformError(
    'invalid_argument',
    `\`voxform ${words}\` takes ${takes}, and ${named} ${manifests.length === 1 ? 'is a manifest' : 'are manifests'}: manifests are given with -f.`,
    { hint: `Run \`${withFiles}\`.` },
  );
}

/** Whether the file begins as every saved plan does (plan-file.ts); false for one that cannot be read. */
function startsAsSavedPlan(file: string): boolean {
  try {
    // Only a regular file is opened: a FIFO (or a link to one) would hold the open forever.
    if (!statSync(file).isFile()) return false;
    const descriptor = openSync(file, 'r');
    try {
      const start = Buffer.alloc(SAVED_PLAN_START.length);
      return start.toString('utf8', 0, readSync(descriptor, start, 0, start.length, 0)) === SAVED_PLAN_START;
    } finally {
      closeSync(descriptor);
    }
  } catch {
    return false;
  }
}
