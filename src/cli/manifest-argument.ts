/**
 * A manifest given as an argument (`voxform plan voxform.yaml`) where `-f` was meant. One rule for
 * every command that takes -f, whether the command takes no argument (the parser's "too many
 * arguments", usage-errors.ts) or another file (`voxform apply PLAN`): the same test, the same words,
 * and the command line that works.
 */
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { beginsAsSavedPlan } from '../plan/format-version.js';
import { nextCommand, type ChosenTarget } from './next-command.js';

/**
 * Whether `argument` names a manifest: its name ends in .yaml or .yml, and it is not a saved plan
 * (`plan --out plan.yaml`). The name decides: the shell every command loads reads no YAML.
 */
export function namesManifest(argument: string, cwd: string): boolean {
  return /\.ya?ml$/i.test(argument) && beginsAsSavedPlan(path.resolve(cwd, argument)) !== true;
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
