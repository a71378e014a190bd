/**
 * The places rules look at, each with its `file:line:col`: an agent's prompt (a line of its prompt
 * file when the text is the file's own), the texts a voice speaks, webhook and tool targets, and
 * config values by path. Positions come from the spans the manifest loader attached (positions.ts).
 */
import type { SourceLocation } from '../errors.js';
import { entryAt, spanAt, type PathPart } from '../manifest/positions.js';
import { locationOf, positionOf, spanText, type Span } from '../manifest/source.js';
import { countLines, LineCounter } from '../util/text-position.js';
import { perDistinctText } from './distinct-texts.js';
import type { DesiredAgent, DesiredCampaign, DesiredKnowledgeFile, DesiredPhone, DesiredState } from '../manifest/types.js';
import { formatIndexed, valueAtPath } from '../util/field-path.js';
import { isPlainObject } from '../util/json-object.js';

/** A text of a resource: where it is, and where a character of it is. */
export interface TextPlace {
  resource: string;
  /** As messages name it: `prompt`, `first_message`, `flow.call_transfer.messages[0]`, `description`. */
  readonly field: string;
  text: string;
  at(offset: number): SourceLocation;
}

/**
 * The location of the config value at `path` of an agent, else of the agent itself. `found` (the
 * value's text and the offset of what a rule found in it) says which template variable put it there.
 */
export function configLocation(agent: DesiredAgent, path: readonly PathPart[], found?: FoundText): SourceLocation {
  return locateIn(agent, agent.config, path, found);
}

/** A resource a policy finding is about. */
type PolicyResource = DesiredAgent | DesiredPhone | DesiredCampaign | DesiredKnowledgeFile;

/**
 * The location of the value at `path` of a resource's own entry (`name`, `description`), else of
 * the resource's key: so is a value its entry does not write (a phone's number is its key; a
 * knowledge file's name may come from its file).
 */
export function valueLocation(resource: PolicyResource, path: readonly PathPart[], found?: FoundText): SourceLocation {
  return entryAt(resource, path.slice(0, 1)) ? locateIn(resource, resource, path, found) : resource.source;
}

/** Where the value at `path` of `root` (a resource's entry or an agent's config) is written, else the resource's key. */
function locateIn(resource: PolicyResource, root: object, path: readonly PathPart[], found: FoundText | undefined): SourceLocation {
  const span = path.length === 0 ? undefined : spanAt(root, path);
  if (!span) return resource.source;
  const at = found === undefined ? undefined : writtenOffset(span, found);
  const location = at === undefined ? locationOf(span) : { file: span.source.display, ...positionOf(span.source, at) };
  return resource.kind === 'agent' ? inManifest(resource, location, found, () => entryAt(root, path)?.filledBy?.span) : location;
}

/** A literal block scalar's first line: `|`, with a chomping or indentation indicator and a comment. */
const LITERAL_HEADER = /^\|[-+1-9]{0,2}[ \t]*(#.*)?$/;

/**
 * Where in the file the found character is, when the value is written as it reads: a plain or
 * quoted scalar without escapes, or a literal block (`prompt: |`), whose lines are the value's lines
 * indented. Undefined for any other writing (folded, escaped, filled in by a variable): the value's
 * own location is given then.
 */
function writtenOffset(span: Span, found: FoundText): number | undefined {
  const raw = spanText(span);
  if (raw === found.text) return span.start + found.offset;
  if (raw.length === found.text.length + 2 && (raw[0] === '"' || raw[0] === "'") && raw.slice(1, -1) === found.text) return span.start + 1 + found.offset;
  const headerEnd = raw.indexOf('\n');
  // A file saved with CRLF line ends: YAML reads each CRLF as the value's one line break.
  if (headerEnd === -1 || !LITERAL_HEADER.test(raw.slice(0, headerEnd).replace(/\r$/, ''))) return undefined;
  const written = raw.slice(headerEnd + 1).split('\n');
  const lines = found.text.split('\n');
  let before = 0;
  for (let index = 0, at = headerEnd + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    const withEnd = written[index];
    if (withEnd === undefined) return undefined;
    const source = withEnd.replace(/\r$/, '');
    if (!source.endsWith(line) || source.slice(0, source.length - line.length).trim() !== '') return undefined;
    if (found.offset <= before + line.length) return span.start + at + (source.length - line.length) + (found.offset - before);
    before += line.length + 1;
    at += withEnd.length + 1;
  }
  return undefined;
}

/** A text a rule found something in, and where in it. */
export interface FoundText {
  text: string;
  offset: number;
}

/**
 * Every finding about an agent is located here. A place in a bundled template's file is not the
 * user's to fix (nor inside their repository): it becomes the manifest's `vars` entry whose value
 * holds the found text, or (for a value as a whole) the one that filled the value in, else the
 * agent's `template:`. Of several values that hold it, the longest brought it in: a shorter one
 * found there is a part of it (`Acme` in `a shop, write to Acme@acme.com`).
 */
function inManifest(agent: DesiredAgent, location: SourceLocation, found: FoundText | undefined, filledBy?: () => Span | undefined): SourceLocation {
  const origin = agent.template;
  if (!origin || location.file !== origin.file) return location;
  // Substitution is literal: found text no `vars` value covers is the template's own wording.
  if (found) return longest(origin.vars.filter((given) => coversOffset(found.text, given.value, found.offset)))?.at ?? origin.at;
  const filled = filledBy?.();
  return filled ? locationOf(filled) : origin.at;
}

/** The entry with the longest value (the first of those as long), if any. */
function longest<T extends { value: string }>(entries: readonly T[]): T | undefined {
  return entries.reduce<T | undefined>((best, entry) => (best === undefined || entry.value.length > best.value.length ? entry : best), undefined);
}

/** Whether an occurrence of `part` in `text` covers `offset`. */
function coversOffset(text: string, part: string, offset: number): boolean {
  if (part === '') return false;
  for (let at = text.indexOf(part); at !== -1 && at <= offset; at = text.indexOf(part, at + 1)) {
    if (offset < at + part.length) return true;
  }
  return false;
}

/** An agent's prompt; a place in a prompt file that holds the text as written is a line and column of that file. */
class PromptText implements TextPlace {
  readonly resource: string;
  readonly field = 'prompt';

  constructor(
    private readonly agent: DesiredAgent,
    readonly text: string,
    private readonly linesOf: (text: string) => LineCounter,
  ) {
    this.resource = agent.address;
  }

  at(offset: number): SourceLocation {
    const file = this.agent.promptFile;
    if (file?.verbatim) return { file: file.display, ...this.linesOf(this.text).linePos(offset) };
    const found = { text: this.text, offset };
    return file ? inManifest(this.agent, file.at, found) : configLocation(this.agent, ['prompt'], found);
  }
}

/** The line starts of a state's prompt texts, counted once per distinct text: a prompt file every agent names is one text. */
const promptLines = memoized(() =>
  perDistinctText((text) => {
    const lines = new LineCounter();
    countLines(lines, text);
    return lines;
  }),
);

/** The prompt of one of `desired`'s agents. */
export function promptPlace(desired: DesiredState, agent: DesiredAgent): TextPlace | undefined {
  const text = agent.config.prompt;
  return typeof text === 'string' ? new PromptText(agent, text, promptLines(desired)) : undefined;
}

/** The places of one desired state, found once and shared by every rule that reads them. */
function memoized<T>(find: (desired: DesiredState) => T): (desired: DesiredState) => T {
  const found = new WeakMap<DesiredState, T>();
  return (desired) => {
    let value = found.get(desired);
    if (value === undefined) {
      value = find(desired);
      found.set(desired, value);
    }
    return value;
  };
}

/** Lists of spoken messages in an agent config. */
const SPOKEN_LISTS: ReadonlyArray<readonly PathPart[]> = [
  ['flow', 'call_transfer', 'messages'],
  ['flow', 'agent_terminate_call', 'messages'],
];
const SPOKEN_TEXTS: ReadonlyArray<readonly PathPart[]> = [
  ['first_message'],
  ['flow', 'inactivity_handling', 'message'],
  ['flow', 'voicemail', 'message'],
  ['session_timeout', 'message'],
];

/** Every text of an agent a voice reads aloud as written. */
function spokenPlaces(agent: DesiredAgent): TextPlace[] {
  const places: TextPlace[] = [];
  const add = (path: readonly PathPart[], text: unknown) => {
    if (typeof text === 'string') places.push({ resource: agent.address, field: formatIndexed(path), text, at: (offset) => configLocation(agent, path, { text, offset }) });
  };
  for (const path of SPOKEN_TEXTS) add(path, valueAtPath(agent.config, path));
  const lists = [...SPOKEN_LISTS];
  const tools = agent.config.tools;
  if (Array.isArray(tools)) tools.forEach((_, index) => lists.push(['tools', index, 'messages']));
  for (const path of lists) {
    const list = valueAtPath(agent.config, path);
    if (Array.isArray(list)) list.forEach((item, index) => add([...path, index], item));
  }
  return places;
}

/** Every spoken text of every agent. */
export const allSpokenPlaces = memoized((desired) => [...desired.agents.values()].flatMap(spokenPlaces));

/** Every webhook and tool target of every agent. */
export const allTargetPlaces = memoized((desired) => [...desired.agents.values()].flatMap(targetPlaces));

/** Every text that may hold personal data: prompts, spoken texts (the same places the speech rules read), knowledge descriptions. */
export const personalDataPlaces = memoized(findPersonalDataPlaces);

function findPersonalDataPlaces(desired: DesiredState): TextPlace[] {
  const places: TextPlace[] = [];
  for (const agent of desired.agents.values()) {
    const prompt = promptPlace(desired, agent);
    if (prompt) places.push(prompt);
  }
  // One at a time: an agent's spoken texts can be more than a call takes arguments.
  for (const place of allSpokenPlaces(desired)) places.push(place);
  for (const knowledge of desired.knowledge.values()) {
    if (typeof knowledge.description === 'string') {
      const text = knowledge.description;
      places.push({ resource: knowledge.address, field: 'description', text, at: (offset) => valueLocation(knowledge, ['description'], { text, offset }) });
    }
  }
  return places;
}

/** A URL an agent's config sends call data to (a webhook's, a string or an object's `url`, or a tool's), and the headers sent with it. */
interface CallTarget {
  /** Where the URL is in the config: `session_data_webhook`, `extra_prompt_webhook.url`, `tools.0.webhook`. */
  path: PathPart[];
  url: string;
  kind: 'webhook' | 'tool';
  /** `session_data_webhook`, `tools[0] "find_slots"`. */
  what: string;
  /** Path of the headers object (`session_data_webhook.headers`, `tools.0.header`), whether or not set. */
  headersPath: PathPart[];
  headers: Record<string, unknown> | undefined;
}

/** A call target of a manifest agent, with where it is written. */
interface TargetPlace extends CallTarget {
  resource: string;
  /** Where the URL is written (found when asked: most targets pass every rule). */
  locate(): SourceLocation;
  agent: DesiredAgent;
}

/** The call targets of an agent's config, webhooks first, then tools in order. */
export function callTargets(config: Record<string, unknown>): CallTarget[] {
  const targets: CallTarget[] = [];
  for (const field of ['session_data_webhook', 'extra_prompt_webhook']) {
    const webhook = config[field];
    const url = isPlainObject(webhook) ? webhook.url : webhook;
    if (typeof url !== 'string') continue;
    const headers = isPlainObject(webhook) && isPlainObject(webhook.headers) ? webhook.headers : undefined;
    targets.push({ path: isPlainObject(webhook) ? [field, 'url'] : [field], url, kind: 'webhook', what: field, headersPath: [field, 'headers'], headers });
  }
  (Array.isArray(config.tools) ? config.tools : []).forEach((tool: unknown, index) => {
    if (!isPlainObject(tool) || typeof tool.webhook !== 'string') return;
    const what = `tools[${index}]${typeof tool.name === 'string' ? ` "${tool.name}"` : ''}`;
    targets.push({ path: ['tools', index, 'webhook'], url: tool.webhook, kind: 'tool', what, headersPath: ['tools', index, 'header'], headers: isPlainObject(tool.header) ? tool.header : undefined });
  });
  return targets;
}

function targetPlaces(agent: DesiredAgent): TargetPlace[] {
  // callTargets makes each target anew, so the target becomes the place rather than being copied into one.
  return callTargets(agent.config).map((target) => Object.assign(target, { resource: agent.address, locate: () => configLocation(agent, target.path), agent }));
}

/** The number at `path` of an agent's config when it is one, and how to find where it is written. */
export function numberAt(agent: DesiredAgent, path: readonly PathPart[]): { value: number; locate(): SourceLocation } | undefined {
  const value = valueAtPath(agent.config, path);
  return typeof value === 'number' ? { value, locate: () => configLocation(agent, path) } : undefined;
}
