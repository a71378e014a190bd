/**
 * A manifest given as an argument (`voxform plan voxform.yaml`) where `-f` was meant. One rule for
 * every command that takes -f, whether the command takes no argument (the parser's "too many
 * arguments", usage-errors.ts) or another file (`voxform apply PLAN`): the same test, the same words,
 * and the command line that works.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { VoxformError } from '../errors.js';
import { SAVED_PLAN_START } from '../plan/plan-file.js';
import { knownProperties, schemaNode } from '../schema/introspect.js';
import { isPlainObject } from '../util/json-object.js';
import { nextCommand, type ChosenTarget } from './next-command.js';

/** Past this a file is not read to tell whether it is a manifest: the name alone decides. */
const MOST_BYTES_READ = 1024 * 1024;

/**
 * Whether `argument` names a manifest: a file that is not a saved plan, and whose name ends in .yaml
 * or .yml or whose text parses as a manifest (a mapping of the manifest's top-level fields only).
 */
export function namesManifest(argument: string, cwd: string): boolean {
  const text = readRegularFile(path.resolve(cwd, argument));
  if (text?.startsWith(SAVED_PLAN_START)) return false;
  if (/\.ya?ml$/i.test(argument)) return true;
  return text !== undefined && parsesAsManifest(text);
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

/** The text of a regular file of a manifest's size; undefined for anything else (a FIFO would hold the read forever). */
function readRegularFile(file: string): string | undefined {
  try {
    const info = statSync(file);
    if (!info.isFile() || info.size > MOST_BYTES_READ) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function parsesAsManifest(text: string): boolean {
  let value: unknown;
  try {
    value = parse(text, { logLevel: 'silent' });
  } catch {
    return false;
  }
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  const fields = knownProperties(schemaNode('Manifest', 'manifest'));
  return keys.length > 0 && keys.every((key) => fields.includes(key));
}
