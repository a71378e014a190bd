/** A traffic request from the flags of `voxform emulator traffic` and `voxform emulator --traffic`. */
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { documentSyntaxError, readOperatorDocument } from '../project-files/operator-document.js';
import { BUILT_IN_PROFILES, MIN_SYNTHETIC_CALL_JSON_VALUES, resolveTrafficProfile, TrafficProfileError, type TrafficOverDataFileError, type TrafficOverRunError } from '../emulator/traffic/index.js';
import { MAX_EMULATOR_DATA_JSON_VALUES } from '../project-files/limits.js';
import { describeFound } from '../util/describe-value.js';
import { isPlainObject } from '../util/json-object.js';
import { formatCount, plural } from '../util/plural.js';
import type { TrafficOptions } from '../emulator/index.js';

export interface TrafficFlags {
  profile?: string;
  calls?: number;
  seed?: string;
  agent?: string[];
}

/** A profile file larger than this is a mistake (a profile is a few dozen lines). */
const MAX_PROFILE_BYTES = 1024 * 1024;
const PROFILE_HINT = 'See docs/traffic.md, "Profiles", for the fields and their ranges.';

export function invalidProfile(where: string, problems: string[]): VoxformError {
  return new VoxformError('traffic_profile_invalid', `The traffic profile ${where} is invalid:\n${problems.map((p) => `  ${p}`).join('\n')}`, {
    hint: PROFILE_HINT,
    details: { problems },
  });
}

/**
 * More calls than an emulator's data file could ever hold: refused before one is made (making them
 * first takes minutes and gigabytes, for a save then refused). `run` names what asked for them
 * (`This run`, `--traffic`); `fix` says how to ask for fewer, or where so many fit.
 */
export function tooManyForDataFile(error: TrafficOverDataFileError, where: { run: string; dataFile: string; fix: string }): VoxformError {
  const each = `${plural(error.agents, 'agent')} × ${formatCount(error.callsPerAgent)}`;
  return new VoxformError(
    'emulator_data_too_large',
    `${where.run} would add ${formatCount(error.calls)} synthetic calls (${each}) to ${where.dataFile}, more than it can hold: at most ${formatCount(error.max)} ` +
      `(each call takes at least ${MIN_SYNTHETIC_CALL_JSON_VALUES} of the ${formatCount(MAX_EMULATOR_DATA_JSON_VALUES)} JSON values the emulator reads back from it). No call was made or added.`,
    { hint: where.fix },
  );
}

/**
 * More calls than one run adds (`MAX_TRAFFIC_CALLS`): the count asked for is past its bound, the
 * profile is fine (`voxform emulator --traffic`, whose account is in memory: one in a data file holds
 * fewer, `tooManyForDataFile`).
 */
export function tooManyForRun(error: TrafficOverRunError): VoxformError {
  const each = `${plural(error.agents, 'agent')} × ${formatCount(error.callsPerAgent)}`;
  const most = Math.floor(error.max / error.agents);
  return new VoxformError('invalid_option', `--traffic would add ${formatCount(error.calls)} synthetic calls (${each}), more than one run adds: at most ${formatCount(error.max)}. No call was made or added.`, {
    hint: `Ask for at most ${formatCount(most)} calls for each agent with --traffic-calls N; add more once it runs, with \`voxform emulator traffic --url URL\` (docs/traffic.md).`,
  });
}

async function readProfileFile(file: string, shown: string): Promise<unknown> {
  const read = await readOperatorDocument(file, { shown, maxBytes: MAX_PROFILE_BYTES });
  if (read.ok) return read.value;
  if (read.unreadable) {
    throw new VoxformError('traffic_profile_unreadable', `Cannot read the traffic profile ${shown}: it ${read.message}.`, {
      hint: `Give a built-in profile (${Object.keys(BUILT_IN_PROFILES).join(', ')}) or the path of a YAML or JSON profile file.`,
    });
  }
  throw documentSyntaxError('traffic_profile_invalid', 'The traffic profile', read, `Fix the profile at that line and column (a file ending in .json is read as JSON, any other as YAML). ${PROFILE_HINT}`);
}

/** A built-in profile's name as it is, else a YAML or JSON file, checked before anything starts. */
async function profileFromArgument(argument: string, cwd: string): Promise<string | Record<string, unknown>> {
  if (BUILT_IN_PROFILES[argument] && !/[\\/]|\.(ya?ml|json)$/i.test(argument)) return argument;
  const value = await readProfileFile(path.resolve(cwd, argument), argument);
  // A file's one string is no built-in's name (a file holding `light` would run the built-in), and may
  // be anything (a dotenv file's keys): its kind is named, never its text.
  if (!isPlainObject(value)) throw invalidProfile(argument, [`a profile file must hold a mapping of its fields, not ${describeFound(value, 'kind')}`]);
  try {
    resolveTrafficProfile(value);
  } catch (error) {
    if (error instanceof TrafficProfileError) throw invalidProfile(argument, error.problems);
    throw error;
  }
  return value;
}

/** A seed as given: digits are a number (so `--seed 7` and `{"seed": 7}` are the same seed), anything else text. */
function seedFromArgument(seed: string | undefined): number | string | undefined {
  if (seed === undefined) return undefined;
  return /^\d{1,15}$/.test(seed) ? Number(seed) : seed;
}

/** Builds the request from the flags (checking each), without the destination. */
export async function trafficRequest(options: TrafficFlags, cwd: string): Promise<TrafficOptions> {
  const request: TrafficOptions = { profile: await profileFromArgument(options.profile ?? 'steady', cwd) };
  if (options.calls !== undefined) request.calls = options.calls;
  const seed = seedFromArgument(options.seed);
  if (seed !== undefined) request.seed = seed;
  if (options.agent) request.agents = options.agent;
  return request;
}

