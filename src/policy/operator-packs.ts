/**
 * Rule packs in JavaScript, from the operator only: VOXFORM_POLICY_PACKS names ES modules
 * (comma-separated paths, relative to the working directory) whose `rules` export is a list of
 * PolicyRule. The environment is the operator's, like every flag (docs/security.md); nothing in a
 * manifest can name a pack, and a pack inside the project (where a pull request can change it) is
 * refused unless the operator trusts the project's code (VOXFORM_TRUST_PROJECT_PACKS=1), so no code
 * from the repository runs.
 */
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { VoxformError } from '../errors.js';
import { findProjectRoot, isInside, realFolder } from '../project-files/guarded-read.js';
import { readOperatorDocument } from '../project-files/operator-document.js';
import type { Redact } from '../secrets/redact.js';
import { errorMessage, isJsonParseError } from '../secrets/error-message.js';
import { PACK_CHECK_TIME_LIMIT_MS } from '../project-files/limits.js';
import { POLICY_LEVELS, type PolicyRule, type PolicySubject, type RuleHit } from './types.js';

export const POLICY_PACKS_VARIABLE = 'VOXFORM_POLICY_PACKS';
/** Set to 1 by an operator whose job runs no pull-request code (a developer's machine, a job on the main branch): packs inside the project load. */
const TRUST_PROJECT_PACKS_VARIABLE = 'VOXFORM_TRUST_PROJECT_PACKS';

export interface OperatorPack {
  /** The path as the operator wrote it. */
  name: string;
  rules: PolicyRule[];
}

/** The largest JSON file a pack imports that is read again to say where it stops being JSON (Node read it whole already). */
const MAX_PACK_JSON_BYTES = 64 * 1024 * 1024;

const RULE_ID = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

const PACK_SHAPE = 'A pack is an ES module exporting `rules`: a list of { id, level, summary, hint, check(subject) } (docs/policy.md#operator-rule-packs).';
const FINDING_SHAPE = 'check(subject) must return a list of findings, each { resource, message, location: { file, line, col } } (docs/policy.md#operator-rule-packs).';

/** The packs loadOperatorPacks read from VOXFORM_POLICY_PACKS; any other came in evaluatePolicy's `packs` option, from a library caller. */
const packsOfTheVariable = new WeakSet<OperatorPack>();

/** Where a pack came from, as its errors say: the variable only if it named the pack. */
function originOf(pack: OperatorPack): string {
  return packsOfTheVariable.has(pack) ? POLICY_PACKS_VARIABLE : 'given in the `packs` option';
}

/** `origin`: where the pack came from (originOf). */
function refuse(pack: string, origin: string, why: string, more: { rule?: string; hint?: string } = {}): never {
  throw new VoxformError('policy_pack_invalid', `policy pack ${pack} (${origin}) ${why}.`, {
    hint: more.hint ?? PACK_SHAPE,
    details: { pack, rule: more.rule ?? null },
  });
}

/** A rule of a pack, held to the rule shape, wherever the pack came from (`origin`). */
function asRule(pack: string, origin: string, value: unknown, index: number): PolicyRule {
  const refuseRule: (why: string) => never = (why) => refuse(pack, origin, why);
  const rule = value as Partial<PolicyRule> | null;
  if (!rule || typeof rule !== 'object') refuseRule(`has rule ${index + 1} that is not an object`);
  if (typeof rule.id !== 'string' || !RULE_ID.test(rule.id)) refuseRule(`has rule ${index + 1} without a valid id (lower-case words joined by "-")`);
  if (!POLICY_LEVELS.includes(rule.level as never)) refuseRule(`has rule "${rule.id}" whose level is not mandatory, advisory or off`);
  if (typeof rule.check !== 'function') refuseRule(`has rule "${rule.id}" without a check function`);
  return { id: rule.id, area: 'operator', level: rule.level as PolicyRule['level'], summary: String(rule.summary ?? rule.id), hint: String(rule.hint ?? ''), check: rule.check.bind(rule) };
}

/** What is wrong with a value a check returned as a finding; undefined when it is one. */
function findingFault(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return 'is not an object';
  const hit = value as Partial<Record<keyof RuleHit, unknown>>;
  if (typeof hit.resource !== 'string') return 'has no resource (a string)';
  if (typeof hit.message !== 'string') return 'has no message (a string)';
  const location = hit.location as Partial<Record<'file' | 'line' | 'col', unknown>> | null | undefined;
  if (!location || typeof location !== 'object' || typeof location.file !== 'string') return 'has no location { file, line, col }';
  const position = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 1;
  if (!position(location.line) || !position(location.col)) return 'has a location whose line or col is not a whole number from 1';
  return undefined;
}

function valueKind(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  const kind = typeof value;
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
}

/**
 * What a check gave within `limitMs`, or that it had not settled by then (`late`). The timer is kept
 * referenced, so a check waiting on nothing is refused as late rather than let the event loop end with
 * the run unfinished; `holdsRun: false` lets it end there (loading a module that waits on nothing is
 * the run's `command_stalled` at once, not a minute later).
 */
async function settledWithin(check: () => unknown, limitMs: number, options: { holdsRun?: boolean } = {}): Promise<{ value: unknown } | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), limitMs);
    if (options.holdsRun === false) timer.unref();
  });
  try {
    return await Promise.race([Promise.resolve().then(check).then((value) => ({ value })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A pack rule whose check is held to the rule shape: a check that throws, does not settle within
 * `limitMs`, or returns anything but a list of findings, stops the run with policy_pack_invalid naming
 * the pack and the rule — the fault is the pack's, not voxform's. A library caller prints the error
 * and the findings with no last scrub as the CLI's output has: what the check threw or found is
 * redacted here, and the thrown value, unredacted, is not kept.
 */
function guardedRule(pack: string, origin: string, rule: PolicyRule, redact: Redact, limitMs: number): PolicyRule {
  return {
    ...rule,
    async check(subject: PolicySubject): Promise<RuleHit[]> {
      let outcome: { value: unknown } | 'late';
      try {
        outcome = await settledWithin(() => rule.check(subject), limitMs);
      } catch (error) {
        refuse(pack, origin, `has rule "${rule.id}" whose check threw: ${redact(errorMessage(error))}`, { rule: rule.id, hint: `Fix the rule's check function; ${FINDING_SHAPE}` });
      }
      if (outcome === 'late') {
        refuse(pack, origin, `has rule "${rule.id}" whose check did not finish within ${limitMs / 1000} s`, {
          rule: rule.id,
          hint: `Make the check settle: return its findings, or a promise of them, and give what it waits for (a request) a time-out of its own; ${FINDING_SHAPE}`,
        });
      }
      const hits = outcome.value;
      if (!Array.isArray(hits)) {
        refuse(pack, origin, `has rule "${rule.id}" whose check returned ${valueKind(hits)}, not a list of findings`, { rule: rule.id, hint: FINDING_SHAPE });
      }
      hits.forEach((hit: unknown, index) => {
        const fault = findingFault(hit);
        if (fault) refuse(pack, origin, `has rule "${rule.id}" whose check returned a finding (number ${index + 1}) that ${fault}`, { rule: rule.id, hint: FINDING_SHAPE });
      });
      // A finding's text is the pack's, and a library caller prints or writes it (SARIF) with no last scrub.
      return (hits as RuleHit[]).map((hit) => ({ ...hit, resource: redact(hit.resource), message: redact(hit.message) }));
    },
  };
}

/**
 * The packs' rules, in order, each held to the rule shape (`asRule`: a library caller's packs too,
 * which no type check may have seen) and its check guarded (guardedRule); `taken`: the ids of the rules
 * before them, to which each pack rule's id is added. A rule whose id another rule has (a built-in
 * rule's, another pack's) is refused, never silently dropped. `redact` hides the run's secrets in what a check throws;
 * `checkLimitMs`: how long one check may take (a test's is small).
 */
export function operatorRules(packs: readonly OperatorPack[], taken: Set<string>, redact: Redact, checkLimitMs = PACK_CHECK_TIME_LIMIT_MS): Array<{ pack: string; rule: PolicyRule }> {
  const owners = new Map<string, string>();
  const rules: Array<{ pack: string; rule: PolicyRule }> = [];
  for (const pack of packs) {
    const origin = originOf(pack);
    if (!Array.isArray(pack.rules)) refuse(String(pack.name), origin, 'has no `rules` list');
    for (const rule of pack.rules.map((value: unknown, index) => asRule(pack.name, origin, value, index))) {
      if (taken.has(rule.id)) {
        const owner = owners.get(rule.id);
        const whose = owner === undefined ? 'a built-in rule' : owner === pack.name ? 'another rule of the same pack' : `a rule of policy pack ${owner}`;
        refuse(pack.name, origin, `has rule "${rule.id}", the id of ${whose}`, { rule: rule.id, hint: 'Give the rule an id no other rule has (`voxform policy list` run without this pack lists the ids taken); docs/policy.md#operator-rule-packs.' });
      }
      taken.add(rule.id);
      owners.set(rule.id, pack.name);
      rules.push({ pack: pack.name, rule: guardedRule(pack.name, origin, rule, redact, checkLimitMs) });
    }
  }
  return rules;
}

/** The folders a pull request controls: the project (git work tree, else working directory) of the working directory and of each manifest. */
async function projectRoots(cwd: string, manifestFiles: readonly string[]): Promise<string[]> {
  const roots = new Set([await findProjectRoot(cwd, cwd)]);
  for (const folder of new Set(manifestFiles.map((file) => path.dirname(file)))) roots.add(await findProjectRoot(folder, cwd));
  return [...roots];
}

/**
 * Refuses a pack that lies inside a project, by the path as written (a link in the checkout is the
 * pull request's to change) or by its real path (a link from outside into the checkout).
 */
async function refuseProjectPack(name: string, cwd: string, roots: readonly string[]): Promise<void> {
  const written = path.resolve(await realFolder(cwd), name);
  const real = await realpath(written).catch(() => written);
  const root = roots.find((folder) => isInside(folder, written) || isInside(folder, real));
  if (root === undefined) return;
  throw new VoxformError('policy_pack_in_project', `policy pack ${name} (${POLICY_PACKS_VARIABLE}) lies inside the project folder ${root}, where a pull request can change it: it was not loaded, since it would run with this job's secrets.`, {
    hint: `Keep the pack outside the checkout: install it as a package outside it (e.g. \`npm install --prefix\` a folder of the runner), or have the job fetch it from a trusted branch into a folder outside the checkout. Where no pull-request code runs (your own machine, a job on the main branch), set ${TRUST_PROJECT_PACKS_VARIABLE}=1 (docs/policy.md#operator-rule-packs).`,
    details: { pack: name },
  });
}

/**
 * Why a pack's module could not be loaded. Node's loader refuses a JSON module it imports with the
 * file's path and JSON.parse's message, which quotes the file: that file is read again and the place
 * where it stops being JSON said instead (src/secrets/error-message.ts has the rule).
 */
async function loadFailure(error: unknown): Promise<string> {
  const file = isJsonParseError(error) ? /^(.+\.json): /.exec(error.message)?.[1] : undefined;
  if (file === undefined) return errorMessage(error);
  const read = await readOperatorDocument(file, { shown: file, maxBytes: MAX_PACK_JSON_BYTES, json: true });
  if (read.ok || read.unreadable) return `it imports ${file}, which is not valid JSON`;
  const { line, col } = read.location;
  return `it imports ${file}, which is not valid JSON at line ${line}, column ${col}: ${read.problem}`;
}

/**
 * The packs VOXFORM_POLICY_PACKS names, loaded; none when it is unset. `manifestFiles`: the
 * manifests of the run, whose projects (besides the working directory's) no pack may lie in;
 * `loadLimitMs`: how long loading one pack's module may take (its top-level `await` included), as
 * long as one of its checks may.
 */
export async function loadOperatorPacks(env: Readonly<Record<string, string | undefined>>, cwd: string, manifestFiles: readonly string[], loadLimitMs = PACK_CHECK_TIME_LIMIT_MS): Promise<OperatorPack[]> {
  const names = (env[POLICY_PACKS_VARIABLE] ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  const packs: OperatorPack[] = [];
  const roots = names.length === 0 || env[TRUST_PROJECT_PACKS_VARIABLE] === '1' ? [] : await projectRoots(cwd, manifestFiles);
  for (const name of names) {
    await refuseProjectPack(name, cwd, roots);
    // Node's loader reads a FIFO or a device without end, on a thread the process then waits for as it exits: not even a signal ends it.
    const kind = await stat(path.resolve(cwd, name)).catch(() => undefined);
    if (kind !== undefined && !kind.isFile()) {
      refuse(name, POLICY_PACKS_VARIABLE, `is not a file (${kind.isDirectory() ? 'a folder' : 'a FIFO, a socket or a device'})`, { hint: `Name the pack's module file (.js or .mjs) in ${POLICY_PACKS_VARIABLE}.` });
    }
    let loaded: { value: unknown } | 'late';
    try {
      loaded = await settledWithin(() => import(pathToFileURL(path.resolve(cwd, name)).href), loadLimitMs, { holdsRun: false });
    } catch (error) {
      refuse(name, POLICY_PACKS_VARIABLE, `could not be loaded: ${await loadFailure(error)}`);
    }
    if (loaded === 'late') {
      refuse(name, POLICY_PACKS_VARIABLE, `did not finish loading within ${loadLimitMs / 1000} s`, {
        hint: 'Make the module settle as it loads: give what its top-level `await` waits for (a request) a time-out of its own, or wait for it in a check instead (docs/policy.md#operator-rule-packs).',
      });
    }
    const module = loaded.value as { rules?: unknown; default?: { rules?: unknown } };
    const rules = module.rules ?? module.default?.rules;
    if (!Array.isArray(rules)) refuse(name, POLICY_PACKS_VARIABLE, 'exports no `rules` list');
    // Refused as it loads, before anything else runs (operatorRules holds every pack to the same shape again).
    const pack = { name, rules: rules.map((rule, index) => asRule(name, POLICY_PACKS_VARIABLE, rule, index)) };
    packsOfTheVariable.add(pack);
    packs.push(pack);
  }
  return packs;
}
