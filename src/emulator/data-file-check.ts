/**
 * The emulator's data file checked whole when read, against what the emulator relies on: a committed
 * `.voxform/local.json` is untrusted, and a record of another shape would otherwise load and fail
 * later, inside a request, as a 500 that names no field. One pass over the parsed document, stopping
 * at the first problem: its size is already capped as it is read (kept-files.ts).
 */
import { validateAgainst } from '../schema/validate.js';
import { formatIndexed, type PathSegment } from '../util/field-path.js';
import { isPlainObject, type JsonObject } from '../util/json-object.js';
import { foundInsteadOf } from '../util/describe-value.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import { shorten } from '../util/shorten.js';

/** A value of the wrong shape: where it is, and what is wrong with it. */
class Problem extends Error {}

type Path = readonly PathSegment[];

/**
 * The first problem of a data file's document, as `PATH is …, where … belongs` (paths as
 * `agents[0].config`), or undefined when the emulator can load it.
 */
export function dataFileProblem(value: unknown, format: string, versions: readonly number[]): string | undefined {
  try {
    checkDocument(value, format, versions);
    return undefined;
  } catch (error) {
    if (error instanceof Problem) return controlsAsQuestionMarks(error.message);
    throw error;
  }
}

function checkDocument(value: unknown, format: string, versions: readonly number[]): void {
  if (!isPlainObject(value)) throw wrong([], value, 'an object with format, version, agents and call_logs');
  if (value.format !== format) throw wrong(['format'], value.format, JSON.stringify(format));
  if (!versions.includes(value.version as number)) throw wrong(['version'], value.version, versions.join(' or '));
  const seedKey = value.seed_private_key;
  if (seedKey !== undefined && seedKey !== null && typeof seedKey !== 'string') throw wrong(['seed_private_key'], seedKey, 'a key (a string) or null');
  eachOf(value, 'keys', false, (key, at) => {
    requireString(key, 'hash', at);
    requireString(key, 'id', at);
    if (key.type !== 'private' && key.type !== 'public') throw wrong([...at, 'type'], key.type, '"private" or "public"');
    if (key.revoked_at !== null && !isFiniteNumber(key.revoked_at)) throw wrong([...at, 'revoked_at'], key.revoked_at, 'Unix seconds or null');
  });
  eachOf(value, 'agents', true, (agent, at) => {
    if (!isPlainObject(agent.config)) throw wrong([...at, 'config'], agent.config, "the agent's configuration (an object)");
    bySchema('Agent', agent, at);
  });
  eachOf(value, 'phones', false, (phone, at) => {
    requireString(phone, 'provider', at);
    bySchema('Phone', phone, at);
  });
  eachOf(value, 'campaigns', false, (campaign, at) => {
    requireString(campaign, 'id', at);
    bySchema('Campaign', campaign, at);
  });
  eachOf(value, 'shared_configs', false, () => undefined);
  // From version 2 a config several records share is written once, each record naming its index
  // (version 1 wrote every config inline, so `$shared_config` there is a config's own field).
  const sharedConfigs = (value.version as number) >= 2 ? ((value.shared_configs as unknown[] | undefined)?.length ?? 0) : undefined;
  eachOf(value, 'call_logs', true, (record, at) => {
    requireString(record, 'call_id', at);
    requireString(record, 'agent_id', at);
    requireNumber(record, 'ts', at);
    const config = record.agent_config;
    if (config !== undefined && config !== null && !isPlainObject(config)) throw wrong([...at, 'agent_config'], config, 'a configuration (an object), or nothing');
    const index = isPlainObject(config) ? config.$shared_config : undefined;
    if (sharedConfigs !== undefined && index !== undefined && !(typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < sharedConfigs)) {
      throw wrong([...at, 'agent_config', '$shared_config'], index, 'the index of a config in shared_configs');
    }
    if (record.function_calls !== undefined && !Array.isArray(record.function_calls)) throw wrong([...at, 'function_calls'], record.function_calls, 'a list, or nothing');
  });
  eachOf(value, 'credentials', false, (credential, at) => {
    requireString(credential, 'provider', at);
    requireString(credential, 'fingerprint', at);
  });
  if (value.knowledge !== undefined) {
    if (!isPlainObject(value.knowledge)) throw wrong(['knowledge'], value.knowledge, 'an object with pending_uploads, objects and files');
    const knowledge = value.knowledge;
    const at: Path = ['knowledge'];
    eachOf(knowledge, 'pending_uploads', true, (upload, place) => {
      requireString(upload, 'key', place);
      requireString(upload, 'filename', place);
      requireNumber(upload, 'expires_at', place);
      const fields = upload.fields;
      if (!isPlainObject(fields) || !Object.values(fields).every((field) => typeof field === 'string')) throw wrong([...place, 'fields'], fields, 'an object of strings');
    }, at);
    eachOf(knowledge, 'objects', true, (object, place) => {
      requireString(object, 'key', place);
      requireString(object, 'sha256', place);
      requireNumber(object, 'size', place);
    }, at);
    eachOf(knowledge, 'files', true, (file, place) => {
      requireString(file, 'id', place);
      requireString(file, 'object_key', place);
      requireString(file, 'name', place);
      requireNumber(file, 'created_at', place);
    }, at);
  }
  eachOf(value, 'sessions', false, (session, at) => {
    for (const field of ['call_id', 'session_id', 'agent_id', 'from', 'to', 'provider']) requireString(session, field, at);
    if (session.kind !== 'call' && session.kind !== 'sip' && session.kind !== 'chat') throw wrong([...at, 'kind'], session.kind, '"call", "sip" or "chat"');
    requireNumber(session, 'ts', at);
    if (typeof session.ended !== 'boolean') throw wrong([...at, 'ended'], session.ended, 'true or false');
    if (!isPlainObject(session.metadata)) throw wrong([...at, 'metadata'], session.metadata, 'an object');
    if (!Array.isArray(session.transcript) || !session.transcript.every(isPlainObject)) throw wrong([...at, 'transcript'], session.transcript, 'a list of messages (objects)');
    if (!isPlainObject(session.config)) throw wrong([...at, 'config'], session.config, "the session's configuration (an object)");
    bySchema('AgentConfigRead', session.config, [...at, 'config']);
  });
  if (value.agent_config_set_at !== undefined && !isPlainObject(value.agent_config_set_at)) throw wrong(['agent_config_set_at'], value.agent_config_set_at, 'an object of Unix seconds by agent id');
}

/** Each item of the list `holder[key]` (`required`: the list must be there), each an object. */
function eachOf(holder: JsonObject, key: string, required: boolean, check: (item: JsonObject, at: Path) => void, at: Path = []): void {
  const items = holder[key];
  if (items === undefined && !required) return;
  if (!Array.isArray(items)) throw wrong([...at, key], items, 'a list');
  items.forEach((item: unknown, index) => {
    if (!isPlainObject(item)) throw wrong([...at, key, index], item, 'an object');
    check(item, [...at, key, index]);
  });
}

function bySchema(name: string, value: unknown, at: Path): void {
  const issue = validateAgainst(name, value)[0];
  if (issue) throw new Problem(`${formatPath([...at, ...issue.path])} ${issue.message}`);
}

function requireString(item: JsonObject, key: string, at: Path): void {
  if (typeof item[key] !== 'string') throw wrong([...at, key], item[key], 'a string');
}

function requireNumber(item: JsonObject, key: string, at: Path): void {
  if (!isFiniteNumber(item[key])) throw wrong([...at, key], item[key], 'a number');
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function wrong(at: Path, found: unknown, expected: string): Problem {
  return new Problem(`${at.length === 0 ? 'it' : formatPath(at)} ${foundInsteadOf(found, expected)}`);
}

/** `agents[0].config`; a name the file holds is shortened (a key of any length could be written there). */
function formatPath(at: Path): string {
  return formatIndexed(at.map((segment) => (typeof segment === 'string' ? shorten(segment, 80) : segment)));
}

