/**
 * The team's own rules, declarative only: a path (or glob) in each resource of a kind and checks on
 * the values there. Nothing from the repository runs as code: regular expressions run under the
 * shared time budget (util/safe-regex.ts), and a JSON Schema may use only the keywords of
 * SCHEMA_KEYWORDS (no `pattern`, `format` or `$ref`), within SCHEMA_NODES_MAX nodes. Every value a
 * rule's path reaches takes a check of the run's budget (check-budget.ts).
 */
import { formatSourceLocation, type SourceLocation } from '../errors.js';
import type { PathPart } from '../manifest/positions.js';
import type { DesiredState } from '../manifest/types.js';
import { compileRegex, REGEX_TIME_BUDGET_MS, type RegexRefusal, type RegexTimeBudget } from '../util/safe-regex.js';
import { MAX_PROMPT_FILE_BYTES } from '../project-files/limits.js';
import { isPlainObject } from '../util/json-object.js';
import { configLocation, promptPlace, valueLocation, type FoundText } from './places.js';
import type { CustomRuleSpec, SectionProblem } from './section.js';
import type { PolicyRule, PolicySubject, RuleHit, TokenCounter } from './types.js';
import type { RuleCheckBudget } from './check-budget.js';
import { formatCount, wordList } from '../util/plural.js';
import { pointerToPath } from '../schema/issues.js';
import { didYouMean } from '../util/did-you-mean.js';

/**
 * The JSON Schema keywords a team rule may use: none runs a regular expression or reaches outside the
 * schema, and none does more than a pass over the value per schema object (`uniqueItems` compares
 * every pair of a list's items: its time grows with the square of the list).
 */
const SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'type', 'enum', 'const', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'minItems', 'maxItems', 'items', 'properties', 'required',
  'additionalProperties', 'minProperties', 'maxProperties', 'anyOf', 'allOf', 'oneOf', 'not', 'title', 'description',
]);
/** Most schema objects in one team rule's schema, each value `enum` and `const` list counted as one: each may be compared with every value checked. */
const SCHEMA_NODES_MAX = 500;

/**
 * The longest value a team rule's `pattern` or `not_pattern` is matched on: the longest prompt a
 * prompt file holds (a UTF-8 file has at least as many bytes as its text has UTF-16 units), so every
 * prompt is matched whole; the per-match time budget still stops a slow pattern. A longer value
 * (only a manifest's own string, up to its file's size, can be) is never matched on a part, which
 * would let a mandatory `not_pattern` pass whatever follows the part: it is a finding of the rule.
 */
const PATTERN_SUBJECT_LIMIT = MAX_PROMPT_FILE_BYTES;

/** A value a path reaches, linked to the one it was reached from: its path is spelled out only for a finding. */
interface Reached {
  value: unknown;
  key: PathPart;
  from: Reached | undefined;
}

function pathOf(entry: Reached): PathPart[] {
  const path: PathPart[] = [];
  for (let at: Reached = entry; at.from !== undefined; at = at.from) path.unshift(at.key);
  return path;
}

/**
 * A resource as a team rule's path reads it, and where a value of it is written: `found` is the
 * value's text and where in it a pattern matched, located as the built-in rules locate what they find.
 */
interface Document {
  address: string;
  value: Record<string, unknown>;
  locate(path: PathPart[], found?: FoundText): SourceLocation;
}

/** The fields of each kind's resource as documentsOf builds it, with what one resource is called: every path starts with one of them, or `*`. */
const RESOURCE_FIELDS: Record<CustomRuleSpec['resources'], { one: string; fields: readonly string[] }> = {
  agents: { one: 'an agent', fields: ['id', 'name', 'config', 'knowledge'] },
  phones: { one: 'a phone', fields: ['number', 'agent'] },
  campaigns: { one: 'a campaign', fields: ['id', 'name', 'caller', 'include_metadata_in_prompt'] },
  knowledge: { one: 'a knowledge file', fields: ['name', 'description'] },
};

/**
 * The resources of a kind as team rules read them, from the state every rule reads: with its
 * secrets withheld (policy/withheld-state.ts). A rule is the pull request's, and its findings are
 * printed: a rule that read a secret could spell it out, one finding per character tested.
 */
function documentsOf(desired: DesiredState, kind: CustomRuleSpec['resources']): Document[] {
  switch (kind) {
    case 'agents':
      return [...desired.agents.values()].map((agent) => ({
        address: agent.address,
        value: { id: agent.id, name: agent.name, config: agent.config, knowledge: agent.knowledge },
        locate: (path, found) => {
          if (path[0] !== 'config') return valueLocation(agent, path, found);
          if (path[1] === 'prompt' && path.length === 2) return promptPlace(desired, agent)?.at(found?.offset ?? 0) ?? agent.source;
          return configLocation(agent, path.slice(1), found);
        },
      }));
    case 'phones':
      return [...desired.phones.values()].map((phone) => ({ address: phone.address, value: { number: phone.number, agent: phone.agent?.localName ?? phone.agent?.id }, locate: (path, found) => valueLocation(phone, path, found) }));
    case 'campaigns':
      return [...desired.campaigns.values()].map((c) => ({ address: c.address, value: { id: c.id, name: c.name, caller: c.caller, include_metadata_in_prompt: c.include_metadata_in_prompt }, locate: (path, found) => valueLocation(c, path, found) }));
    case 'knowledge':
      return [...desired.knowledge.values()].map((k) => ({ address: k.address, value: { name: k.name, description: k.description }, locate: (path, found) => valueLocation(k, path, found) }));
  }
}

/**
 * Every value a glob (`config.tools.*.description`) reaches, `*` being any one key or list item; or
 * undefined when the run's checks ran out on the way. The resource and each value reached, on the
 * way or at the end, take one check each: a level's values are taken before the next is looked at.
 */
function matchGlob(document: Document, glob: readonly string[], checks: { budget: RuleCheckBudget; owner: string }): Reached[] | undefined {
  if (!checks.budget.take(checks.owner, 1)) return undefined;
  let current: Reached[] = [{ value: document.value, key: '', from: undefined }];
  for (const segment of glob) {
    const next: Reached[] = [];
    for (const from of current) {
      const value = from.value;
      if (Array.isArray(value)) {
        value.forEach((item, index) => {
          if (segment === '*' || segment === String(index)) next.push({ value: item, key: index, from });
        });
      } else if (isPlainObject(value)) {
        for (const key of segment === '*' ? Object.keys(value) : Object.hasOwn(value, segment) ? [segment] : []) next.push({ value: value[key], key, from });
      }
    }
    if (!checks.budget.take(checks.owner, next.length)) return undefined;
    current = next;
  }
  return current.filter((entry) => entry.value !== undefined && entry.value !== null);
}

const RULE_PATH_HINT = 'Write the path as names joined by dots, `*` for any one key or list item, starting with a field of the resource: config.first_message, config.tools.*.description.';

/**
 * A team rule's path as the glob matchGlob walks, or why it can name no field of its kind's
 * resources: a rule whose path names nothing finds nothing, so it would pass every value unchecked.
 */
function parseRulePath(path: string, kind: CustomRuleSpec['resources']): { glob: string[] } | { problem: string } {
  const segments = path.split('.');
  const wrong = (why: string) => ({ problem: `path "${path}" names no field: ${why}` });
  if (path === '') return wrong('it is empty');
  if (path.startsWith('.')) return wrong('it starts with a dot');
  if (path.endsWith('.')) return wrong('it ends with a dot');
  if (segments.includes('')) return wrong('it has an empty name between two dots');
  // A bracket is the indexed form diagnostics write (`tools[0]`), which these paths do not read, or a slip of the keyboard.
  const bracketed = segments.find((segment) => /[[\]]/.test(segment));
  if (bracketed !== undefined) return wrong(`"${bracketed}" has a bracket; write a list item's index as a name of its own (config.tools.0.description) or \`*\` for any item (config.tools.*.description)`);
  const [first = '', ...rest] = segments;
  const { one, fields } = RESOURCE_FIELDS[kind];
  if (first !== '*' && !fields.includes(first)) {
    const field = didYouMean(first, fields);
    const meant = field !== undefined ? [field, ...rest].join('.') : kind === 'agents' ? `config.${path}` : undefined;
    return wrong(`${one} has only ${wordList(fields, 'and')}${meant !== undefined ? ` (did you mean ${meant}?)` : ''}`);
  }
  return { glob: segments };
}

/** The rule's path as parseRulePath reads it; undefined, with the problem added to `problems`, when it names no field. */
function rulePath(spec: CustomRuleSpec, problems: SectionProblem[]): string[] | undefined {
  const parsed = parseRulePath(spec.path, spec.resources);
  if ('glob' in parsed) return parsed.glob;
  problems.push({ resource: 'policy', message: `team rule "${spec.id}": ${parsed.problem}`, location: spec.at(['path']), hint: RULE_PATH_HINT });
  return undefined;
}

/** What is wrong with a team rule's schema, and where in it (the keyword at fault; none for the schema as a whole). */
interface SchemaProblem {
  message: string;
  at: PathPart[];
}

/** The schema's first keyword outside SCHEMA_KEYWORDS, or a size problem; undefined when it may be used. */
function schemaProblem(schema: unknown): SchemaProblem | undefined {
  let nodes = 0;
  const visit = (node: unknown, depth: number, at: PathPart[]): SchemaProblem | undefined => {
    if (typeof node === 'boolean') return undefined;
    if (!isPlainObject(node)) return { message: 'a schema must be an object', at };
    if (++nodes > SCHEMA_NODES_MAX || depth > 32) return { message: `the schema is larger than ${SCHEMA_NODES_MAX} objects or 32 levels deep`, at: [] };
    for (const [keyword, value] of Object.entries(node)) {
      if (!SCHEMA_KEYWORDS.has(keyword)) return { message: `the schema uses "${keyword}", which team rules may not use (allowed: ${[...SCHEMA_KEYWORDS].join(', ')})`, at: [...at, keyword] };
      const listed = keyword === 'enum' && Array.isArray(value) ? value : keyword === 'const' ? [value] : [];
      nodes += listed.reduce((sum: number, item) => sum + jsonNodes(item), 0);
      if (nodes > SCHEMA_NODES_MAX) return { message: `the schema is larger than ${SCHEMA_NODES_MAX} objects and listed values`, at: [...at, keyword] };
      const children: Array<[unknown, PathPart[]]> =
        keyword === 'properties' && isPlainObject(value)
          ? Object.entries(value).map(([name, child]) => [child, [...at, keyword, name]])
          : ['items', 'additionalProperties', 'not'].includes(keyword)
            ? [[value, [...at, keyword]]]
            : ['anyOf', 'allOf', 'oneOf'].includes(keyword) && Array.isArray(value)
              ? value.map((child, index): [unknown, PathPart[]] => [child, [...at, keyword, index]])
              : [];
      for (const [child, childAt] of children) {
        const problem = visit(child, depth + 1, childAt);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  return visit(schema, 0, []);
}

type SchemaCheck = (value: unknown) => boolean;

/** How many values `value` is, itself and every one inside it. */
function jsonNodes(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + jsonNodes(item), 1);
  if (isPlainObject(value)) return Object.values(value).reduce((sum: number, item) => sum + jsonNodes(item), 1);
  return 1;
}

/**
 * The schema as a check, or why it is not a JSON Schema, in voxform's words (the validator's own
 * speak of its internals). Strict about keywords, but not about what is valid JSON Schema written
 * briefly: `{ maxLength: 200 }` without `type`, `required` without `properties`, a list of types.
 */
async function compileSchema(schema: Record<string, unknown>): Promise<SchemaCheck | SchemaProblem> {
  const { Ajv } = await import('ajv');
  const ajv = new Ajv({ allErrors: false, strict: true, strictTypes: false, strictRequired: false, strictTuples: false, allowUnionTypes: true, validateFormats: false, logger: false });
  try {
    const validate = ajv.compile(schema);
    return (value) => validate(value) as boolean;
  } catch {
    // The meta-schema's error points into the team rule's schema: at the keyword whose value is wrong.
    const at = pointerToPath(ajv.errors?.[0]?.instancePath ?? '');
    const path = at.map(String);
    const keyword = path.pop();
    const where = keyword === undefined ? 'the schema' : `the schema's "${keyword}"${path.length > 0 ? ` in ${path.join('.')}` : ''}`;
    return { message: `${where} is not valid JSON Schema: its value is not of the form the keyword takes`, at };
  }
}

function asText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

/** Why a value fails a team rule; a match it found also says where in the value's text. */
type Problem = string | { message: string; found: FoundText | undefined };

/** A hit as a team rule finds it: the resource it is about, and the hit, built only when the run keeps it. */
type FoundHit = (resource: string, build: () => RuleHit) => void;

export interface TeamRule extends PolicyRule {
  /**
   * Checks every value the rule's path reaches, passing each hit to `found` unbuilt (past the
   * findings a run keeps, messages and locations are never made); false when the run's checks ran
   * out before it was done.
   */
  checkEach(subject: PolicySubject, found: FoundHit): Promise<boolean>;
}

/**
 * A team rule as a rule of the pack, or the problems that keep it from being one (a regex the
 * engine refuses, a schema with a keyword not allowed): those are `policy-invalid` hits.
 */
export async function compileCustomRule(spec: CustomRuleSpec, context: { regexBudget: RegexTimeBudget; checkBudget: RuleCheckBudget }): Promise<{ rule: TeamRule } | { problems: SectionProblem[] }> {
  const problems: SectionProblem[] = [];
  const glob = rulePath(spec, problems);
  const regex = (field: 'pattern' | 'not_pattern'): RegExp | undefined => {
    const source = spec[field];
    if (source === undefined) return undefined;
    const compiled = compileRegex(source);
    if (typeof compiled === 'string') problems.push({ resource: 'policy', message: `team rule "${spec.id}": ${field} is not a valid regular expression: ${compiled}`, location: spec.at([field]) });
    return typeof compiled === 'string' ? undefined : compiled;
  };
  const [pattern, notPattern] = [regex('pattern'), regex('not_pattern')];
  let schemaCheck: SchemaCheck | undefined;
  if (spec.schema) {
    const compiled = schemaProblem(spec.schema) ?? (await compileSchema(spec.schema));
    if (typeof compiled === 'function') schemaCheck = compiled;
    else problems.push({ resource: 'policy', message: `team rule "${spec.id}": ${compiled.message}`, location: spec.at(['schema', ...compiled.at], compiled.at.length > 0 ? 'key' : 'value') });
  }
  if (problems.length > 0 || !glob) return { problems };

  const what = spec.description ? `: ${spec.description}` : '';
  const checks = { budget: context.checkBudget, owner: spec.id };
  const checkEach = async ({ desired, tokens }: PolicySubject, found: FoundHit): Promise<boolean> => {
    for (const document of documentsOf(desired, spec.resources)) {
      const reached = matchGlob(document, glob, checks);
      if (reached === undefined) return false;
      const hit = (entry: Reached | undefined, problem: Problem) =>
        found(document.address, () => {
          const path = entry ? pathOf(entry) : [];
          const { message, found: foundText } = typeof problem === 'string' ? { message: problem, found: undefined } : problem;
          return { resource: document.address, message: `${entry ? path.join('.') : spec.path} ${message} (team rule ${spec.id}${what})`, location: document.locate(path, foundText) };
        });
      if (reached.length === 0 && spec.required) hit(undefined, 'is not set');
      for (const entry of reached) {
        // A schema may read every value inside the one reached: each is a check of the run's too.
        if (schemaCheck && !checks.budget.take(checks.owner, jsonNodes(entry.value) - 1)) return false;
        const problem = await firstProblem(entry.value, { pattern, notPattern, schemaCheck, tokens, context });
        if (problem) hit(entry, problem);
      }
    }
    return true;
  };
  const check = async (subject: PolicySubject): Promise<RuleHit[]> => {
    const hits: RuleHit[] = [];
    const done = await checkEach(subject, (_resource, build) => hits.push(build()));
    if (!done) hits.push({ resource: 'policy', message: `team rule "${spec.id}" was not checked in full: the ${formatCount(context.checkBudget.total)} checks of the run ran out`, location: spec.location });
    return hits;
  };
  const firstProblem = async (
    value: unknown,
    c: { pattern: RegExp | undefined; notPattern: RegExp | undefined; schemaCheck: SchemaCheck | undefined; tokens: TokenCounter; context: { regexBudget: RegexTimeBudget } },
  ): Promise<Problem | undefined> => {
    const text = asText(value);
    const budget = c.context.regexBudget;
    if (c.pattern) {
      const outcome = text === undefined ? { matched: false, truncated: false } : budget.match(c.pattern, text, spec.id, PATTERN_SUBJECT_LIMIT);
      if ('timedOut' in outcome) return outOfTime('pattern', outcome, budget);
      if (outcome.truncated) return notInFull('pattern', text as string);
      if (!outcome.matched) return 'does not match the pattern';
    }
    if (c.notPattern && text !== undefined) {
      const outcome = budget.match(c.notPattern, text, spec.id, PATTERN_SUBJECT_LIMIT);
      if ('timedOut' in outcome) return outOfTime('not_pattern', outcome, budget);
      if (outcome.truncated) return notInFull('not_pattern', text);
      if (outcome.matched) return { message: 'matches not_pattern', found: outcome.index === undefined ? undefined : { text, offset: outcome.index } };
    }
    if (spec.max_length !== undefined && text !== undefined) {
      const characters = characterCount(text);
      if (characters > spec.max_length) return `is ${formatCount(characters)} characters (at most ${formatCount(spec.max_length)})`;
    }
    if (spec.max_tokens !== undefined && text !== undefined) {
      const count = await c.tokens.over(text, spec.max_tokens);
      if (count !== undefined) return `is ${formatCount(count)} tokens (${c.tokens.encoding}; at most ${formatCount(spec.max_tokens)})`;
    }
    if (spec.one_of && !spec.one_of.some((allowed) => allowed === value)) return `is not one of ${spec.one_of.map((v) => JSON.stringify(v)).join(', ')}`;
    if (c.schemaCheck && !c.schemaCheck(value)) return 'does not satisfy the rule\'s schema';
    return undefined;
  };
  return { rule: { id: spec.id, area: 'team', level: spec.level, summary: spec.description ?? `${spec.resources}: ${spec.path}`, hint: spec.hint ?? unwrittenHint(spec.id, spec.location), check, checkEach } };
}

/**
 * The hint of a team rule that writes none: where the rule is, so a reader of a finding (in the text,
 * the pull-request comment, SARIF) can find the rule the value failed, or change it.
 */
export function unwrittenHint(id: string, definedAt: SourceLocation): string {
  return `Change the value so it passes team rule ${id}, or change the rule: it is defined at ${formatSourceLocation(definedAt)}, in the manifest's policy section.`;
}

/**
 * Why a value could not be checked against a pattern. Its own pattern is blamed only when the match
 * had its full time: once the run's time, which every team rule shares, is spent (or so nearly that
 * the match got only what was left), the rules that spent it are named instead.
 */
function outOfTime(field: 'pattern' | 'not_pattern', refusal: RegexRefusal, budget: RegexTimeBudget): string {
  if (refusal.why === 'stopped-before' || (refusal.why === 'this-match' && refusal.limitMs >= REGEX_TIME_BUDGET_MS)) {
    return `could not be checked against ${field} in time (the regular expression is too slow)`;
  }
  const heaviest = budget.heaviestOwners(3).map((id) => `"${id}"`);
  const spentBy = heaviest.length > 0 ? ` (most of it spent by ${heaviest.join(', ')})` : '';
  return `could not be checked against ${field}: the ${budget.totalMs / 1000} s every team rule's regular expressions may take together in a run ran out first${spentBy}; simplify the slow rules' patterns`;
}

/** Why a value longer than PATTERN_SUBJECT_LIMIT fails a pattern rule: only part of it could be matched. */
function notInFull(field: 'pattern' | 'not_pattern', text: string): string {
  return `could not be checked against ${field} in full (${formatCount(text.length)} characters, the limit is ${formatCount(PATTERN_SUBJECT_LIMIT)})`;
}

/** Characters as the schema's `maxLength` counts them: code points, so an emoji is one, not two UTF-16 units. */
function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
