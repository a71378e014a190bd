/**
 * Which live values are secret, decided from evidence a pull request cannot edit. The manifests of
 * a pull request may stop referencing `${env:PROMO_CODE}` while the live agent still holds its
 * value; a committed state file may have had its list of variables emptied. Neither may unmask
 * anything, so the secret places of a live configuration are the union of:
 *   - the places the schemas mark secret (schema-paths.ts);
 *   - the places whose live value holds the value of a variable the operator lets a manifest read
 *     (the operator's environment and policy, compared with what the service holds: only
 *     `${env:…}` can have put it there);
 *   - the places the deploy ledger recorded as filled from `${env:…}` at the last apply (an agent's
 *     name too, recorded as the reference), and the
 *     values of the variables the state recorded. A state file or ledger inside the checkout is the
 *     pull request's: what it lists is added, and nothing it leaves out is relied on;
 *   - the places the pull request's own manifests fill from `${env:…}` (they add, never remove).
 * What the ledger's places hold is searched for in all output only as the service holds it and as
 * evidence beyond the checkout reads it (`noteLedgerPlace`): the live text `--local` serves from a
 * tracked file (`LiveSource`), and a ledger record the checkout alone holds, may be the pull request's.
 * Every command asks here (plan, drift, apply, test, test capture, diff, export, report, logs, chat, get, emulator traffic,
 * webhook send), each live agent told to `noteLiveAgent` (or `livePaths`) as it is read, a whole call
 * record to `noteCallRecord`: none derives secret places on its own.
 */
import { writtenByAuthor } from './author-variables.js';
import { envPolicyOf } from './env-policy.js';
import { hasEnvReference, literalParts, referencedNames } from './env-reference.js';
import { formatDotted, placePath, valueAtPath, type FieldPath } from '../util/field-path.js';
import { isPlainObject } from '../util/json-object.js';
import { jsonEqual } from '../util/json-equal.js';
import { MIN_SEARCHABLE_SECRET, type SecretRegistry } from './redact.js';
import { isSecretKeyName, sensitiveConfigPatterns } from './schema-paths.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where the live agents a run reads come from: the service, or the checkout (`--local`'s embedded
 * emulator serving a data file that holds the commit's bytes, which a pull request may have written).
 */
export type LiveSource = 'service' | 'checkout';

/**
 * What a deploy record of the ledger tells of secrets: each agent version's id and its places filled
 * from `${env:…}` (the ledger's records have this shape; a committed one is read defensively).
 */
interface LedgerSecrets {
  readonly agents?: Readonly<Record<string, { readonly id?: unknown; readonly name?: unknown; readonly config?: unknown; readonly maskedPaths?: unknown } | undefined>>;
}

/** What is known, from trusted evidence, about the secrets of one workspace. */
export class TrustedSecrets {
  /** Each value a manifest may read, with the names of the variables holding it. */
  private readonly variables: ReadonlyMap<string, readonly string[]>;
  private readonly candidates: readonly string[];
  /** The candidates long enough to search for that no live value has shown yet: each is searched for until found once. */
  private readonly unfound: Set<string>;
  /**
   * Each agent's places filled from `${env:…}` at its applies, by agent id, each with its values as
   * the applies recorded them, references written back (`Code ${env:PROMO}.`), the latest apply's last.
   */
  private readonly ledgerEnvPlaces: LedgerPlaces = new Map();
  /**
   * The same, from the records evidence beyond the checkout holds (`noteLedger`'s `vouched`): only
   * their recorded values say which part of a live value is secret.
   */
  private readonly vouchedEnvPlaces: LedgerPlaces = new Map();
  /** Each agent's names as applies recorded them holding a `${env:…}` reference, by agent id, the latest apply's last. */
  private readonly ledgerNames = new Map<string, Set<string>>();
  /** The same, from the records evidence beyond the checkout holds: only these say which part of a live name is secret. */
  private readonly vouchedNames = new Map<string, Set<string>>();
  /** The variables the deploy ledger names in the values it recorded: an apply read them. */
  private readonly ledgerVariables = new Set<string>();
  /** Those of them a manifest may read here and the operator has set: each value with the names holding it (in name order), and the values longest first. Only these does `variablesIn` find. */
  private applied: { variables: ReadonlyMap<string, readonly string[]>; candidates: readonly string[] } = { variables: new Map(), candidates: [] };

  /**
   * `env` is the operator's environment; `registry` hears every secret value found, for the scrub
   * of all output; `liveSource`, where the live agents this run reads come from.
   */
  constructor(
    readonly env: Env,
    private readonly registry: SecretRegistry,
    private readonly liveSource: LiveSource,
  ) {
    this.variables = manifestReadableVariables(env);
    // Longest first: where one value holds another, `variablesIn` names the longer.
    this.candidates = [...this.variables.keys()].sort((a, b) => b.length - a.length);
    this.unfound = new Set(this.candidates.filter((candidate) => candidate.length >= MIN_SEARCHABLE_SECRET));
  }

  /** The names of the variables an apply read (the state's list): their values are secrets. */
  noteRecordedVariables(names: readonly string[] | undefined): void {
    const policy = envPolicyOf(this.env);
    for (const name of names ?? []) {
      if (policy.check(name) === 'allowed' && !writtenByAuthor(name)) this.registry.add(this.env[name]);
    }
  }

  /**
   * The deploy ledger: each agent's places filled from `${env:…}` at its applies, by agent id.
   * `vouched`: false for records only the checkout holds while the base revision's ledger is read
   * too (src/state/trusted-secrets.ts); their places count, what they read off a live value does not.
   */
  noteLedger(records: readonly LedgerSecrets[], vouched = true): void {
    for (const record of records) {
      for (const version of Object.values(record.agents ?? {})) {
        if (typeof version?.id !== 'string') continue;
        // The ledger records a name as the manifest wrote it: one holding a reference took a value from the environment.
        if (hasEnvReference(version.name)) {
          addShape(this.ledgerNames, version.id, version.name as string);
          if (vouched) addShape(this.vouchedNames, version.id, version.name as string);
          for (const name of referencedNames(version.name as string)) this.ledgerVariables.add(name);
        }
        if (!Array.isArray(version.maskedPaths)) continue;
        for (const place of version.maskedPaths) {
          if (typeof place !== 'string') continue;
          const written = valueAtPlace(version.config, place);
          const shape = hasEnvReference(written) ? (written as string) : undefined;
          recordPlace(this.ledgerEnvPlaces, version.id, place, shape);
          if (vouched) recordPlace(this.vouchedEnvPlaces, version.id, place, shape);
          for (const name of referencedNames(shape ?? '')) this.ledgerVariables.add(name);
        }
      }
    }
    const variables = manifestReadableVariables(this.env, this.ledgerVariables);
    this.applied = { variables, candidates: [...variables.keys()].sort((a, b) => b.length - a.length) };
  }

  /**
   * A value read from the service (a live config, a plan's `before`): every operator value it holds
   * is registered for the scrub, so nothing prints it whatever the manifests now say.
   */
  noteLive(value: unknown): void {
    if (this.unfound.size === 0) return;
    forEachString(value, [], (text) => {
      for (const candidate of this.unfound) {
        if (!text.includes(candidate)) continue;
        this.registry.add(candidate);
        this.unfound.delete(candidate);
      }
    });
  }

  /**
   * A call record as the service logged it, whole (`webhook send --call`): every string under a
   * secret key (`isSecretKeyName`: webhook and tool headers, credentials) is registered for the
   * scrub, and every operator value it holds (`noteLive`). A record the checkout serves (`LiveSource`)
   * registers no string for being under a secret key: the pull request may have written it there, and
   * searched for it would hide words of its choosing from every output; its secret keys' values stay
   * masked where they stand, as everywhere.
   */
  noteCallRecord(record: unknown): void {
    if (this.liveSource !== 'checkout') forEachUnderSecretKey(record, (text) => this.registry.add(text));
    this.noteLive(record);
  }

  /**
   * An agent as the service holds it (read live, or as a call record carries its config): what its
   * name and config hold at the places the deploy ledger recorded for the agent, and every operator
   * value in them, are registered for the scrub. Every command that reads a live agent tells it here
   * before it prints, writes or sends anything, so the ledger's places stay secret in a job without
   * the variable: an agent may say its own name in a call, and a name is printed beside every record.
   */
  noteLiveAgent(agent: { readonly id: string; readonly name?: unknown; readonly config: unknown }): void {
    if (isPlainObject(agent.config)) this.noteLedgerPlaces(agent.id, agent.config);
    if (typeof agent.name === 'string') this.noteRecordedValue(this.vouchedNames.get(agent.id), this.ledgerNames.get(agent.id), agent.name);
    this.noteLive(agent.config);
    this.noteLive(agent.name);
  }

  private noteLedgerPlaces(agentId: string, liveConfig: Record<string, unknown>): void {
    for (const place of this.ledgerEnvPlaces.get(agentId)?.keys() ?? []) this.noteLedgerPlace(agentId, place, valueAtPlace(liveConfig, place));
  }

  /**
   * The secret places of an agent's live config, dotted and concrete (`prompt`, `tools.0.header`),
   * beside the patterns the schema marks: the ledger's places for the agent, and every place whose
   * value holds an operator value (a short one only where it is the whole value). Registers what it
   * finds, as `noteLive` does.
   */
  livePaths(agentId: string, liveConfig: Record<string, unknown>): string[] {
    this.noteLedgerPlaces(agentId, liveConfig);
    const found = new Set(this.ledgerEnvPlaces.get(agentId)?.keys() ?? []);
    forEachString(liveConfig, [], (text, at) => {
      for (const candidate of this.candidates) {
        const holds = candidate.length >= MIN_SEARCHABLE_SECRET ? text.includes(candidate) : text === candidate;
        if (!holds) continue;
        found.add(formatDotted(at));
        this.registry.add(candidate);
      }
    });
    return [...found];
  }

  /**
   * The places of a live agent that a printed configuration shows `(sensitive)` whole, dotted from
   * the agent's entry (`config.first_message`, `name`): those trusted evidence says hold a secret the
   * scrub cannot find in text, a value under MIN_SEARCHABLE_SECRET characters (a short value is
   * masked where it stands, never searched for). They are a place the deploy ledger recorded whose
   * references took such a value (or whose live value, no longer of a recorded shape, is that
   * short), and a place whose whole value is a short value of a variable a manifest may read. At
   * the other secret places the scrub hides the secret, and the rest of the value is shown.
   */
  unsearchablePlaces(agent: { readonly id: string; readonly name?: unknown; readonly config: Record<string, unknown> }): string[] {
    const places = new Set<string>();
    const holdsShort = (shapes: ReadonlySet<string> | undefined, live: unknown) =>
      typeof live === 'string' && live !== '' && valuesReadOff(shapes, live).some((value) => value.length < MIN_SEARCHABLE_SECRET);
    for (const [place, shapes] of this.ledgerEnvPlaces.get(agent.id) ?? []) {
      if (holdsShort(shapes, valueAtPlace(agent.config, place))) places.add(`config.${place}`);
    }
    if (holdsShort(this.ledgerNames.get(agent.id), agent.name)) places.add('name');
    forEachString(agent.config, [], (text, at) => {
      if (text.length < MIN_SEARCHABLE_SECRET && this.variables.has(text)) places.add(`config.${formatDotted(at)}`);
    });
    return [...places];
  }

  /**
   * The values the references took at a place the ledger recorded as filled from `${env:…}`, read
   * off what the service holds there by the recorded value's literal text (`Code ${env:PROMO}.`
   * against `Code SPRING-26.` → `SPRING-26`), are registered, so a job without the variable still
   * scrubs them wherever the agent says them. When no recorded value has the live value's shape (it
   * changed since), which part is secret is unknown: the whole live value is registered.
   * What only the checkout vouches for is registered for nothing, its place still among `livePaths`
   * (withheld where a value is withheld by its place): live text the checkout serves, which the pull
   * request may have written; and a value read by a record only the checkout's ledger holds, unless it
   * holds one a vouched record reads there. Either would let the pull request hide words of its
   * choosing from every output (`You are the ${env:X}.` read `receptionist` off the live prompt);
   * a record of its own may widen what is hidden around a secret, never hide text without one.
   */
  private noteLedgerPlace(agentId: string, place: string, live: unknown): void {
    this.noteRecordedValue(this.vouchedEnvPlaces.get(agentId)?.get(place), this.ledgerEnvPlaces.get(agentId)?.get(place), live);
  }

  /** `noteLedgerPlace` for one live value and the shapes recorded for its place: those vouched for, and all. */
  private noteRecordedValue(vouchedShapes: ReadonlySet<string> | undefined, shapes: ReadonlySet<string> | undefined, live: unknown): void {
    if (typeof live !== 'string' || live === '' || this.liveSource === 'checkout') return;
    const vouched = valuesReadOff(vouchedShapes, live);
    for (const value of vouched) this.registry.add(value);
    const secrets = vouched.filter((value) => value.length >= MIN_SEARCHABLE_SECRET);
    if (secrets.length === 0) return;
    // What the vouched shapes read is registered already: only the checkout's own shapes are read off
    // here, and without a base revision every record is vouched, so the live text is read once.
    for (const written of shapes ?? []) {
      if (vouchedShapes?.has(written)) continue;
      for (const value of referencedValues(written, live) ?? []) {
        if (secrets.some((secret) => value.includes(secret))) this.registry.add(value);
      }
    }
  }

  /**
   * Where `text` holds the value of a variable an apply read (the deploy ledger names it in a value it
   * recorded, see `noteLedger`) that the operator lets a manifest read, by the variable's name:
   * longest values first, never overlapping, in text order; a short value only where it is the whole
   * text (as `livePaths`). Registers what it finds. `export` writes each back as the reference that
   * put it there. Any other variable set here is not found: its value on the service (`TZ`'s
   * `America/Chicago` as a timezone) is no evidence that an apply put it there. Where several hold a
   * value, the first of `recorded` that does names it (the variables the ledger recorded at the
   * text's place, see `ledgerVariablesAt`: they put it there), else the first by name.
   */
  variablesIn(text: string, recorded: readonly string[] = []): HeldVariable[] {
    const { variables, candidates } = this.applied;
    const nameOf = (value: string) => {
      const names = variables.get(value) as readonly string[];
      return recorded.find((name) => names.includes(name)) ?? (names[0] as string);
    };
    const held = heldValues(text, candidates, nameOf);
    for (const { start, end } of held) if (end - start >= MIN_SEARCHABLE_SECRET) this.registry.add(text.slice(start, end));
    return held;
  }

  /**
   * A live text at a place (dotted, in the config) the deploy ledger recorded as filled from
   * `${env:…}`, with what each reference put there replaced by `marker`: what keys a recorded live
   * exchange, so a change of the text around a secret is seen and the secret never is. Read by the
   * shapes a vouched record holds, which locate every value whether this run knows the variable or
   * not; undefined (hide the text whole) where none has the live text's shape. A shape only the
   * checkout vouches for is never used: one the pull request wrote could end its literal text inside
   * a secret, and the key would tell whether a guess at the secret's start was right.
   */
  maskedLiveText(agentId: string, place: string, text: string, marker: string): string | undefined {
    for (const shape of this.vouchedEnvPlaces.get(agentId)?.get(place) ?? []) {
      if (referencedValues(shape, text) !== undefined) return literalParts(shape).join(marker);
    }
    return undefined;
  }

  /** The places (dotted, in the config) the deploy ledger recorded as filled from `${env:…}` for the agent. */
  ledgerPlaces(agentId: string): string[] {
    return [...(this.ledgerEnvPlaces.get(agentId)?.keys() ?? [])];
  }

  /**
   * The variables the deploy ledger names in the values it recorded at a place (dotted, in the
   * config) of the agent, the latest apply's first: the ones that put the value there.
   */
  ledgerVariablesAt(agentId: string, place: string): string[] {
    return [...new Set(this.ledgerValuesAt(agentId, place).flatMap((value) => referencedNames(value)))];
  }

  /**
   * The values the deploy ledger recorded at a place (dotted, in the config) of the agent, references
   * as written (`Code ${env:PROMO}.`), the latest apply's first; none where it recorded no reference.
   */
  ledgerValuesAt(agentId: string, place: string): string[] {
    return [...(this.ledgerEnvPlaces.get(agentId)?.get(place) ?? [])].reverse();
  }

  /**
   * Whether a live agent's name is shown `(sensitive)` whole where it is listed: the deploy ledger
   * recorded it as filled from `${env:…}`, so it holds a variable's value, which a job without the
   * variable has nothing else to hide it by (a short one is not searched for in text). Told the
   * name as `noteLiveAgent` is, so what it holds of the operator's values is scrubbed everywhere.
   */
  hidesName(agent: { readonly id: string; readonly name: string }): boolean {
    this.noteLiveAgent({ ...agent, config: undefined });
    return this.ledgerNames.has(agent.id);
  }

  /** The agent's names as the deploy ledger recorded them when an apply filled them from `${env:…}` (`Staging ${env:PROMO}`), the latest apply's first; none when it never did. */
  ledgerNamesOf(agentId: string): string[] {
    return [...(this.ledgerNames.get(agentId) ?? [])].reverse();
  }
}

/**
 * The values the references of `written` (a value as recorded, `Code ${env:P}.`) took in `live`:
 * the text between its literal parts, each found leftmost; undefined when `live` does not have
 * their shape (it changed since). Linear in the text: a recorded value may come from a checkout.
 */
export function referencedValues(written: string, live: string): string[] | undefined {
  const literals = literalParts(written);
  const first = literals[0] as string;
  const last = literals[literals.length - 1] as string;
  const end = live.length - last.length;
  if (literals.length < 2 || !live.startsWith(first) || !live.endsWith(last) || end < first.length) return undefined;
  const values: string[] = [];
  let at = first.length;
  for (const literal of literals.slice(1, -1)) {
    const found = live.indexOf(literal, at);
    if (found === -1 || found + literal.length > end) return undefined;
    values.push(live.slice(at, found));
    at = found + literal.length;
  }
  values.push(live.slice(at, end));
  return values.filter((value) => value !== '');
}

/** A stretch of text that holds a variable's value: `text.slice(start, end)` is the value of `name`. */
export interface HeldVariable {
  readonly start: number;
  readonly end: number;
  readonly name: string;
}

/**
 * Where `text` holds each of `values` (longest first: where one value holds another, the longer is
 * found), named by `nameOf`, beside `taken` (stretches found already), none overlapping another, in
 * text order. A value under MIN_SEARCHABLE_SECRET characters only where it is all of `text` and
 * nothing else is found there, as the plan hides such a value only where it stands whole.
 */
export function heldValues(text: string, values: readonly string[], nameOf: (value: string) => string, taken: readonly HeldVariable[] = []): HeldVariable[] {
  let held = [...taken].sort(byStart);
  for (const value of values) {
    if (value.length < MIN_SEARCHABLE_SECRET) {
      if (text === value && held.length === 0) held.push({ start: 0, end: text.length, name: nameOf(value) });
      continue;
    }
    held = [...held, ...stretchesHolding(text, value, held, nameOf)].sort(byStart);
  }
  return held;
}

const byStart = (a: HeldVariable, b: HeldVariable) => a.start - b.start;

/**
 * The stretches of `text` that hold `value` and overlap neither `held` (by start) nor one another.
 * Found in text order, each is held against the one stretch of `held` it could overlap, found by
 * walking `held` once: checked against all, a text a pull request fills with one value took the
 * square of its length.
 */
function stretchesHolding(text: string, value: string, held: readonly HeldVariable[], nameOf: (value: string) => string): HeldVariable[] {
  const found: HeldVariable[] = [];
  let next = 0;
  for (let start = text.indexOf(value); start !== -1; start = text.indexOf(value, start + 1)) {
    const end = start + value.length;
    while (next < held.length && (held[next] as HeldVariable).end <= start) next++;
    const overlapsHeld = next < held.length && (held[next] as HeldVariable).start < end;
    if (!overlapsHeld && (found.at(-1)?.end ?? 0) <= start) found.push({ start, end, name: nameOf(value) });
  }
  return found;
}

/**
 * Every secret pattern of an agent's config (relative to the config): the schema's, the places
 * `livePaths` found (`livePlaces`, when the caller has them already), and the places the manifests fill from `${env:…}`.
 */
export function trustedSecretPaths(
  trusted: TrustedSecrets,
  agent: { id: string; sensitivePaths: readonly string[] },
  liveConfig: Record<string, unknown>,
  livePlaces: readonly string[] = trusted.livePaths(agent.id, liveConfig),
): string[] {
  return [...new Set([...sensitiveConfigPatterns(), ...livePlaces, ...agent.sensitivePaths])];
}

/**
 * The places of `livePlaces` (from `livePaths`) where `sent`, a config made from the live one, still
 * holds what the service holds: only there would the service's secret be sent. Where the manifests
 * set a text of their own, the place holds theirs (a reference of theirs is withheld as such), and
 * nothing of the service's is there to withhold.
 */
export function placesKeptLive(livePlaces: readonly string[], sent: object, liveConfig: Record<string, unknown>): string[] {
  return livePlaces.filter((place) => jsonEqual(valueAtPlace(sent, place), valueAtPlace(liveConfig, place)));
}

/** Each agent's places filled from `${env:…}`, by agent id, each with its values as recorded (`Code ${env:PROMO}.`), the latest apply's last. */
type LedgerPlaces = Map<string, Map<string, Set<string>>>;

/** Adds `shape` (a value as recorded; none when it holds no reference) at the agent's place. */
function recordPlace(places: LedgerPlaces, agentId: string, place: string, shape: string | undefined): void {
  let ofAgent = places.get(agentId);
  if (!ofAgent) places.set(agentId, (ofAgent = new Map()));
  let shapes = ofAgent.get(place);
  if (!shapes) ofAgent.set(place, (shapes = new Set()));
  if (shape !== undefined) addAsLatest(shapes, shape);
}

/** Adds `shape` (a name as recorded) to the agent's shapes, as its latest. */
function addShape(shapes: Map<string, Set<string>>, agentId: string, shape: string): void {
  let ofAgent = shapes.get(agentId);
  if (!ofAgent) shapes.set(agentId, (ofAgent = new Set()));
  addAsLatest(ofAgent, shape);
}

/** Whether every variable `shape` reads is one the change's author writes (author-variables.ts). */
function readsOnlyAuthorsText(shape: string): boolean {
  const names = referencedNames(shape);
  return names.length > 0 && names.every(writtenByAuthor);
}

/**
 * The values the references of `shapes` (a place's recorded values) took in `live`; `live` whole when
 * none has its shape; none when the place was not recorded. A shape that reads only variables the
 * change's author writes reads no secret: matched, it reads nothing off; recorded alone, nothing is.
 */
function valuesReadOff(shapes: ReadonlySet<string> | undefined, live: string): string[] {
  if (!shapes || [...shapes].every(readsOnlyAuthorsText)) return [];
  const readOff = (written: string) => (readsOnlyAuthorsText(written) ? referencedValues(written, live) && [] : referencedValues(written, live));
  const read = [...shapes].map(readOff).filter((values) => values !== undefined);
  return read.length === 0 ? [live] : read.flat();
}

/**
 * The value at a dotted place of a config (`tools.0.description`): its digits name an item of a list,
 * as `formatDotted` wrote the index (`parseDotted` keeps every segment a string).
 */
function valueAtPlace(config: unknown, place: string): unknown {
  return valueAtPath(config, placePath(place));
}

/**
 * The values of the variables a manifest may read under the operator's policy (`VOXFORM_ENV_ALLOW`
 * when set; never `VOXFORM_*`), each once, with the names (in name order) that hold it; with
 * `only`, of those variables alone. Never a variable the change's author writes (author-variables.ts):
 * its value in a live text is no secret, and searched for it would hide the author's chosen words.
 */
function manifestReadableVariables(env: Env, only?: ReadonlySet<string>): Map<string, string[]> {
  const policy = envPolicyOf(env);
  const variables = new Map<string, string[]>();
  for (const name of Object.keys(env).sort()) {
    if (only && !only.has(name)) continue;
    const value = env[name];
    if (!value || policy.check(name) !== 'allowed' || writtenByAuthor(name)) continue;
    const names = variables.get(value);
    if (names) names.push(name);
    else variables.set(value, [name]);
  }
  return variables;
}

/** Adds `item` to `set` as its last, moving it there when it is already in: the set keeps the order items were last seen in. */
function addAsLatest(set: Set<string>, item: string): void {
  set.delete(item);
  set.add(item);
}

/** Each string under a secret key (`isSecretKeyName`) of `value`, at any depth. */
function forEachUnderSecretKey(value: unknown, onString: (text: string) => void): void {
  if (Array.isArray(value)) value.forEach((item) => forEachUnderSecretKey(item, onString));
  else if (isPlainObject(value)) {
    for (const [key, inner] of Object.entries(value)) {
      if (isSecretKeyName(key)) forEachString(inner, [], onString);
      else forEachUnderSecretKey(inner, onString);
    }
  }
}

function forEachString(value: unknown, at: FieldPath, onString: (text: string, at: FieldPath) => void): void {
  if (typeof value === 'string') onString(value, at);
  else if (Array.isArray(value)) value.forEach((item, index) => forEachString(item, [...at, index], onString));
  else if (isPlainObject(value)) for (const [key, child] of Object.entries(value)) forEachString(child, [...at, key], onString);
}
