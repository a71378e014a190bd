/**
 * The shape of a history record as read back. A record is untrusted data like any other, so every
 * field `history`, `rollback` and `report` use is checked first: one that does not fit what voxform
 * writes (schemas/history.schema.json) is skipped, never half used; a field a later version adds is left alone.
 */
import { httpUrl } from '../util/http-url.js';
import { isContentHash, isKeyedHash } from '../util/hash.js';
import { isPlainObject, type JsonObject } from '../util/json-object.js';
import { isName, isText, isWhole } from '../util/json-shape.js';
import { hasControlCharacter } from '../util/printable.js';
import { BRANCH, COMMIT } from './source.js';
import { isLocalName } from '../manifest/names.js';

/** A record id: the time the apply ended, to the millisecond, then random hex (src/history/file-store.ts). */
export const HISTORY_RECORD_ID = /^\d{8}T\d{6}(?:\d{3})?Z-[0-9a-f]{6}$/;
const OUTCOMES = new Set(['applied', 'failed', 'interrupted', 'nothing_to_do']);
const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;
const SUMMARY_COUNTS = ['create', 'update', 'unchanged', 'drifted', 'applied', 'failed', 'skipped'] as const;
/** Counts later records add: a record older than them has none. */
const OPTIONAL_SUMMARY_COUNTS = ['partlyApplied', 'notApplied'] as const;

/** One problem, as `field: what is wrong`; undefined when the value fits. */
type Problem = string | undefined;

/** An id or a workspace: a name, never empty. */
const isFilledName = (value: unknown) => isName(value) && value !== '';
const isTextList = (value: unknown) => Array.isArray(value) && value.every(isText);

function optional(value: unknown, fits: (value: unknown) => boolean): boolean {
  return value === undefined || fits(value);
}

function isLink(value: unknown): boolean {
  return typeof value === 'string' && !hasControlCharacter(value) && httpUrl(value) !== undefined;
}

function isTime(value: unknown): boolean {
  return typeof value === 'string' && AT.test(value) && !Number.isNaN(Date.parse(value));
}

function sourceProblem(source: unknown): Problem {
  if (!isPlainObject(source)) return 'source: not an object';
  if (!optional(source.commit, (v) => typeof v === 'string' && COMMIT.test(v))) return 'source.commit: not a commit id (40 or 64 hex digits)';
  if (!optional(source.branch, (v) => typeof v === 'string' && BRANCH.test(v))) return 'source.branch: not a branch name';
  if (!optional(source.pullRequest, (v) => isWhole(v) && (v as number) > 0)) return 'source.pullRequest: not a request number';
  if (!optional(source.ciJobUrl, isLink)) return 'source.ciJobUrl: not an http(s) link';
  if (!optional(source.uncommitted, (v) => typeof v === 'boolean')) return 'source.uncommitted: not true or false';
  if (!optional(source.rollbackOf, (v) => typeof v === 'string' && HISTORY_RECORD_ID.test(v))) return 'source.rollbackOf: not a record id';
  if (!optional(source.healOf, (v) => Array.isArray(v) && v.every((id) => typeof id === 'string' && HISTORY_RECORD_ID.test(id)))) return 'source.healOf: not a list of record ids';
  if (!optional(source.promotedFrom, (v) => isPlainObject(v) && isFilledName(v.workspace) && typeof v.record === 'string' && HISTORY_RECORD_ID.test(v.record))) {
    return 'source.promotedFrom: not a workspace and a record id';
  }
  return undefined;
}

function summaryProblem(summary: unknown): Problem {
  if (!isPlainObject(summary)) return 'summary: not an object';
  const wrong = SUMMARY_COUNTS.find((key) => !isWhole(summary[key])) ?? OPTIONAL_SUMMARY_COUNTS.find((key) => !optional(summary[key], isWhole));
  return wrong === undefined ? undefined : `summary.${wrong}: not a count`;
}

function agentProblem(agent: JsonObject): Problem {
  if (!isFilledName(agent.id)) return 'id: not an agent id';
  if (!optional(agent.name, isText)) return 'name: not text';
  if (!isPlainObject(agent.config)) return 'config: not an object';
  if (!optional(agent.knowledge, isTextList)) return 'knowledge: not a list of names';
  if (!isContentHash(agent.configHash)) return 'configHash: not a sha256: hash';
  if (!isTextList(agent.maskedPaths)) return 'maskedPaths: not a list of paths';
  if (!optional(agent.promptLength, isWhole)) return 'promptLength: not a length';
  if (!optional(agent.unrecordedSecrets, isTextList)) return 'unrecordedSecrets: not a list of paths';
  if (!optional(agent.written, (value) => value === true)) return 'written: not true';
  return undefined;
}

function agentsProblem(agents: unknown): Problem {
  if (!isPlainObject(agents)) return 'agents: not an object';
  for (const [name, agent] of Object.entries(agents)) {
    // The name is shown escaped: it is the one thing about this record that is not yet known to be safe to print.
    if (!isLocalName(name)) return `agents: ${JSON.stringify(name)} is not an agent name`;
    if (!isPlainObject(agent)) return `agents.${name}: not an object`;
    const problem = agentProblem(agent);
    if (problem) return `agents.${name}.${problem}`;
  }
  return undefined;
}

function headerProblem(record: JsonObject): Problem {
  if (typeof record.id !== 'string' || !HISTORY_RECORD_ID.test(record.id)) return 'id: not a record id';
  if (!isFilledName(record.workspace)) return 'workspace: not a workspace';
  if (!isTime(record.at)) return 'at: not a time (ISO 8601, UTC)';
  if (typeof record.by !== 'string') return 'by: not text';
  if (typeof record.command !== 'string') return 'command: not text';
  if (typeof record.outcome !== 'string' || !OUTCOMES.has(record.outcome)) return 'outcome: not applied, failed, interrupted or nothing_to_do';
  return linkProblem(record) ?? sealProblem(record);
}

/** Whether `previous`, where a record has it, is null or a record id. */
function linkProblem(record: JsonObject): Problem {
  return record.previous === undefined || record.previous === null || (typeof record.previous === 'string' && HISTORY_RECORD_ID.test(record.previous)) ? undefined : 'previous: not a record id or null';
}

/** Whether the seal, where a record has one, is of the form voxform writes (whether it verifies is promotion's question: src/history/seal.ts). */
function sealProblem(record: JsonObject): Problem {
  return optional(record.seal, isKeyedHash) ? undefined : 'seal: not an hmac-sha256: hash';
}

/** What is wrong with a value read as a history record, as `field: problem`; undefined for a record voxform could have written. */
export function historyRecordProblem(value: unknown): Problem {
  if (!isPlainObject(value)) return 'not a JSON object';
  return headerProblem(value) ?? sourceProblem(value.source) ?? summaryProblem(value.summary) ?? agentsProblem(value.agents);
}

const TEST_STATUSES = new Set(['passed', 'failed', 'skipped', 'error']);
const TEST_COUNTS = ['passed', 'failed', 'skipped', 'errors'] as const;

function testOutcomeProblem(test: unknown): Problem {
  if (!isPlainObject(test)) return 'not an object';
  if (typeof test.file !== 'string' || typeof test.name !== 'string') return 'file, name: not text';
  if (typeof test.agent !== 'string' || !isLocalName(test.agent)) return 'agent: not an agent name';
  if (typeof test.status !== 'string' || !TEST_STATUSES.has(test.status)) return 'status: not passed, failed, skipped or error';
  if (!isWhole(test.passes) || !isWhole(test.runs)) return 'passes, runs: not counts';
  if (typeof test.passRate !== 'number' || !(test.passRate >= 0 && test.passRate <= 1)) return 'passRate: not a fraction';
  return undefined;
}

function testedAgentsProblem(agents: unknown): Problem {
  if (!isPlainObject(agents)) return 'agents: not an object';
  for (const [name, agent] of Object.entries(agents)) {
    if (!isLocalName(name)) return `agents: ${JSON.stringify(name)} is not an agent name`;
    if (!isPlainObject(agent) || !isFilledName(agent.id)) return `agents.${name}.id: not an agent id`;
    if (!isContentHash(agent.configHash)) return `agents.${name}.configHash: not a sha256: hash`;
  }
  return undefined;
}

/** What is wrong with a value read as a test run's record (TestRunRecord), as `field: problem`; undefined when it fits. */
export function testRunProblem(value: unknown): Problem {
  if (!isPlainObject(value)) return 'not a JSON object';
  if (typeof value.id !== 'string' || !HISTORY_RECORD_ID.test(value.id)) return 'id: not a record id';
  if (!isFilledName(value.workspace)) return 'workspace: not a workspace';
  if (!isTime(value.at)) return 'at: not a time (ISO 8601, UTC)';
  if (typeof value.by !== 'string' || typeof value.command !== 'string') return 'by, command: not text';
  if (!optional(value.suiteDigest, isContentHash)) return 'suiteDigest: not a sha256: hash';
  const seal = linkProblem(value) ?? sealProblem(value);
  if (seal) return seal;
  const source = sourceProblem(value.source);
  if (source) return source;
  if (!isPlainObject(value.summary)) return 'summary: not an object';
  const summary = value.summary;
  const wrong = TEST_COUNTS.find((key) => !isWhole(summary[key]));
  if (wrong !== undefined) return `summary.${wrong}: not a count`;
  if (!Array.isArray(value.tests)) return 'tests: not a list';
  for (const [index, test] of value.tests.entries()) {
    const problem = testOutcomeProblem(test);
    if (problem) return `tests[${index}]: ${problem}`;
  }
  return testedAgentsProblem(value.agents);
}
