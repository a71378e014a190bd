/**
 * The state is untrusted data (a file anyone with the repository may edit, or a row), so it is
 * checked whole when read against what voxform writes: another shape is refused with `state_invalid`,
 * naming where and how to fix it. Tolerated: a missing `serial` or map (empty); an odd
 * `environmentVariables` or `lastApply` is dropped (advisory, written again); unknown members ignored.
 */
import { VoxformError } from '../errors.js';
import { isPlainObject, type JsonObject } from '../util/json-object.js';
import { foundInsteadOf } from '../util/describe-value.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import { splitWorkspaceKey, type LastApply, type StateFile, type WorkspaceState } from './types.js';
import { STATE_FORMAT_VERSION } from './format-version.js';
import { shorten } from '../util/shorten.js';
import { isLocalName } from '../manifest/names.js';
import { baseUrlProblem } from '../api/regions.js';

/** The maps of entries of a workspace, each entry checked by its own function. */
const ENTRY_CHECKS: Record<keyof Pick<WorkspaceState, 'agents' | 'phones' | 'campaigns' | 'knowledge' | 'credentials'>, (entry: JsonObject, at: Path) => void> = {
  agents: (entry, at) => {
    requireString(entry, 'id', at, "the agent's id (a string)");
    const applied = requireObject(entry, 'applied', at, 'an object of field paths and hashes');
    for (const [field, hash] of Object.entries(applied)) if (typeof hash !== 'string') throw new Problem([...at, 'applied', field], hash, 'a hash (a string)');
    optionalString(entry, 'fingerprintKeyId', at, 'the id of the key the hashes were made with (a string)');
    const found = entry.foundLive;
    if (found !== undefined && !isNameList(found)) throw new Problem([...at, 'foundLive'], found, 'a list of the field paths found live and never sent (strings), or nothing');
  },
  phones: (entry, at) => {
    optionalString(entry, 'agentId', at, 'the id of the agent the number was bound to (a string)');
    if (typeof entry.imported !== 'boolean') throw new Problem([...at, 'imported'], entry.imported, 'true or false');
    if (entry.foundLive !== undefined && entry.foundLive !== true) throw new Problem([...at, 'foundLive'], entry.foundLive, 'true (the number was found bound and never sent), or nothing');
  },
  campaigns: (entry, at) => {
    requireString(entry, 'id', at, "the campaign's id (a string)");
    const applied = requireObject(entry, 'applied', at, 'an object of the values last applied');
    optionalString(applied, 'name', [...at, 'applied'], 'a string');
    optionalString(applied, 'caller', [...at, 'applied'], 'a phone number (a string)');
    const metadata = applied.include_metadata_in_prompt;
    if (metadata !== undefined && typeof metadata !== 'boolean') throw new Problem([...at, 'applied', 'include_metadata_in_prompt'], metadata, 'true or false');
    optionalSharedWrite(entry, at);
  },
  knowledge: (entry, at) => {
    requireString(entry, 'fileId', at, "the service's file id (a string)");
    requireString(entry, 'contentHash', at, 'a hash (a string)');
    requireString(entry, 'name', at, "the file's name (a string)");
    optionalString(entry, 'description', at, "the file's description (a string)");
  },
  credentials: (entry, at) => {
    requireString(entry, 'fingerprint', at, 'a fingerprint (a string)');
    optionalString(entry, 'fingerprintKeyId', at, 'the id of the key the fingerprint was made with (a string)');
    optionalSharedWrite(entry, at);
  },
};

/** A place in the state document, outermost first (`['workspaces', 'default@local', 'agents']`). */
type Path = readonly string[];

/** A value of the wrong shape: where it is, what it is, what belongs there. */
class Problem extends Error {
  constructor(
    readonly path: Path,
    readonly found: unknown,
    readonly expected: string,
    /** What is wrong, said whole, where the value itself is not (a member's name). */
    readonly said?: string,
  ) {
    super(`${path.join('.')}: ${said ?? expected}`);
  }
}

/**
 * Whether a member of `workspaces` is named as voxform names a workspace (types.ts, workspaceKey): an
 * environment name, `@`, then `local` or the service's base URL. Any other name is no workspace any
 * command reads or writes, and one such as `__proto__` would be listed by `state list` as one.
 */
function isWorkspaceKey(key: string): boolean {
  const parts = splitWorkspaceKey(key);
  return parts !== undefined && isLocalName(parts.environment) && (parts.serviceId === 'local' || baseUrlProblem(parts.serviceId) === undefined);
}

const WORKSPACE_NAMES = 'a workspace is ENVIRONMENT@SERVICE (an environment name, "@", then "local" or the service\'s URL)';

/**
 * A database row's workspace name, checked as a state file's member names are: a row named
 * `__proto__` would otherwise be listed, and migrated into a file every command refuses.
 */
export function checkWorkspaceName(key: string, database: string): void {
  if (isWorkspaceKey(key)) return;
  throw new VoxformError('state_invalid', `The state database ${database} is not a state voxform wrote: it holds a workspace named ${controlsAsQuestionMarks(JSON.stringify(shorten(key, 80)))}: ${WORKSPACE_NAMES}.`, {
    hint: 'Delete the rows of that workspace from voxform_workspaces and voxform_locks (no command reads or writes it), or restore the database from a backup.',
  });
}

/** The state file's document (parsed JSON), checked whole; `file` names it in errors. */
export function checkStateFile(parsed: unknown, file: string): StateFile {
  const refuse = (problem: Problem) => refusal(`The state file ${file}`, problem, { deletable: [4, 2], restore: 'restore the file from version control or your CI cache' });
  if (!isPlainObject(parsed)) throw refuse(new Problem([], parsed, 'an object with version, serial and workspaces'));
  if (Number.isInteger(parsed.version) && (parsed.version as number) > STATE_FORMAT_VERSION) {
    throw new VoxformError('state_invalid', `The state file ${file} has format version ${parsed.version}, newer than this voxform reads (up to ${STATE_FORMAT_VERSION}).`, {
      hint: 'It comes from a newer voxform: upgrade voxform, or use another --state file.',
    });
  }
  try {
    // Every older format is read as it is: a format only adds fields (src/state/format-version.ts).
    if (!(Number.isInteger(parsed.version) && (parsed.version as number) >= 1)) throw new Problem(['version'], parsed.version, `a format version from 1 to ${STATE_FORMAT_VERSION}`);
    const serial = parsed.serial ?? 0;
    checkWholeNumber(serial, ['serial'], 0, 'a whole number, 0 or more');
    const workspaces = parsed.workspaces;
    if (!isPlainObject(workspaces)) throw new Problem(['workspaces'], workspaces, 'an object of workspaces by name');
    // Checked in place (never assigned back: a member named `__proto__` would set the prototype).
    for (const [key, workspace] of Object.entries(workspaces)) {
      if (!isWorkspaceKey(key)) {
        throw new Problem(['workspaces', key], key, '', `is named as no workspace is: ${WORKSPACE_NAMES}`);
      }
      checkWorkspaceAt(workspace, ['workspaces', key]);
    }
    // A `salt` of older versions is dropped: the next write leaves it out. Written back in this
    // voxform's format, which an older voxform refuses rather than drop the fields it does not know.
    return { version: STATE_FORMAT_VERSION, serial, workspaces: workspaces as Record<string, WorkspaceState> };
  } catch (error) {
    if (error instanceof Problem) throw refuse(error);
    throw error;
  }
}

/** How a database row that is not as voxform wrote it is mended. */
const ROW_REPAIR = { deletable: [2], restore: 'restore the row from a backup, or migrate the state in again (`voxform state migrate --force`)' };

/** One workspace as a database row stores it, checked whole; `where` names it in errors. */
export function checkWorkspace(parsed: unknown, where: string): WorkspaceState {
  try {
    return checkWorkspaceAt(parsed, []);
  } catch (error) {
    if (error instanceof Problem) throw refusal(where, error, ROW_REPAIR);
    throw error;
  }
}

/**
 * A database row's counter (a bigint, as the text the driver gives), checked as a state file's
 * `serial` is; `min`: 1 for a workspace's serial (its row is inserted at 1, and a write at 0 inserts).
 */
export function checkRowCount(text: string, column: string, min: number, where: string): number {
  const count = Number(text);
  try {
    checkWholeNumber(count, [column], min, `a whole number, ${min} or more`);
    return count;
  } catch (error) {
    // Said as the database holds it: past 2^53 − 1 the number read is rounded.
    if (error instanceof Problem) throw refusal(where, new Problem(error.path, text, error.expected, `is the number ${text}, where ${error.expected} belongs`), ROW_REPAIR);
    throw error;
  }
}

function checkWorkspaceAt(value: unknown, at: Path): WorkspaceState {
  if (!isPlainObject(value)) throw new Problem(at, value, 'a workspace (an object with agents, phones, campaigns, knowledge and credentials)');
  for (const [map, checkEntry] of Object.entries(ENTRY_CHECKS)) {
    const entries = (value[map] ??= {});
    if (!isPlainObject(entries)) throw new Problem([...at, map], entries, 'an object of entries by address');
    for (const [address, entry] of Object.entries(entries)) {
      if (!isPlainObject(entry)) throw new Problem([...at, map, address], entry, 'an object');
      checkEntry(entry, [...at, map, address]);
    }
  }
  // Anything but a list of names is no record at all: the next plan then marks every variable as new.
  if (!isNameList(value.environmentVariables)) delete value.environmentVariables;
  if (value.lastApply !== undefined && !isLastApply(value.lastApply)) delete value.lastApply;
  return value as unknown as WorkspaceState;
}

/** Whether `value` is a last-apply record as voxform writes it (`state list` of a database reads the record alone). */
export function isLastApply(value: unknown): value is LastApply {
  if (!isPlainObject(value)) return false;
  return (
    ['at', 'by', 'command', 'outcome'].every((key) => typeof value[key] === 'string') &&
    ['applied', 'failed', 'skipped'].every((key) => Number.isInteger(value[key])) &&
    ['partlyApplied', 'notApplied'].every((key) => value[key] === undefined || Number.isInteger(value[key]))
  );
}

function isNameList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * The largest serial or write order read: 2^52, far more writes than any state makes. Every write
 * counts one on, so a count the reader accepts leaves that much room below 2^53, past which JSON reads
 * a number rounded and it would count wrong.
 */
export const LARGEST_COUNT = 2 ** 52;

/** A whole number from `min` up to `LARGEST_COUNT`, as `expected` says; a larger one is said to be too large. */
function checkWholeNumber(value: unknown, at: Path, min: number, expected: string): asserts value is number {
  if (typeof value === 'number' && Number.isInteger(value) && value > LARGEST_COUNT) {
    throw new Problem(at, value, `a whole number up to ${LARGEST_COUNT} (2^52, far more writes than any state makes)`);
  }
  if (!(typeof value === 'number' && Number.isInteger(value) && value >= min)) throw new Problem(at, value, expected);
}

function requireString(entry: JsonObject, key: string, at: Path, expected: string): void {
  if (typeof entry[key] !== 'string') throw new Problem([...at, key], entry[key], expected);
}

function optionalString(entry: JsonObject, key: string, at: Path, expected: string): void {
  if (entry[key] !== undefined && typeof entry[key] !== 'string') throw new Problem([...at, key], entry[key], `${expected}, or nothing`);
}

/** `writeOrder` and `writeUnrecorded` (`SharedWrite`): absent in an older state. */
function optionalSharedWrite(entry: JsonObject, at: Path): void {
  const order = entry.writeOrder;
  if (order !== undefined) checkWholeNumber(order, [...at, 'writeOrder'], 1, 'the order of the write among the environments (a whole number above 0)');
  if (entry.writeUnrecorded !== undefined && entry.writeUnrecorded !== true) throw new Problem([...at, 'writeUnrecorded'], entry.writeUnrecorded, 'true (a write whose outcome the state never recorded)');
}

function requireObject(entry: JsonObject, key: string, at: Path, expected: string): JsonObject {
  const value = entry[key];
  if (!isPlainObject(value)) throw new Problem([...at, key], value, expected);
  return value;
}

/**
 * The `state_invalid` error: what is wrong, where, what to do. `deletable`: the lengths of the paths
 * that may go whole, deepest first (a resource entry, a workspace of a file), then planned as never applied.
 */
function refusal(subject: string, problem: Problem, how: { deletable: number[]; restore: string }): VoxformError {
  const where = problem.path.length === 0 ? 'it' : formatPath(problem.path);
  const message = `${subject} is not a state voxform wrote: ${where} ${problem.said ?? foundInsteadOf(problem.found, problem.expected)}.`;
  const depth = how.deletable.find((length) => problem.path.length >= length);
  const deleted = '(voxform then plans what it held as never applied)';
  let fix = `Correct ${where}`;
  if (depth === problem.path.length) fix = `Correct or delete ${where} ${deleted}`;
  else if (depth !== undefined) fix += `, or delete ${formatPath(problem.path.slice(0, depth))} ${deleted}`;
  const hint = problem.path.length === 0 ? `${how.restore[0]?.toUpperCase()}${how.restore.slice(1)}.` : `${fix}; or ${how.restore}.`;
  return new VoxformError('state_invalid', message, { hint, details: { path: problem.path } });
}

/** `workspaces["default@local"].agents["agent.front-desk"].applied`: names as JSON strings, so nothing in them can pass for layout or a terminal escape. */
function formatPath(path: Path): string {
  return path.map((segment, i) => (/^[A-Za-z_]\w*$/.test(segment) ? `${i === 0 ? '' : '.'}${segment}` : `[${controlsAsQuestionMarks(JSON.stringify(shorten(segment, 80)))}]`)).join('');
}

