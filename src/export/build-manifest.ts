/**
 * Live agents → a manifest that plans to no changes (pure: the caller reads and writes). Read-only
 * fields are left out and noted above the agent. Secrets (headers, credentials, URL query values and
 * user info, values an apply filled from `${env:…}`) never go into a file meant for git: a value of a
 * variable an apply read (the deploy ledger names it) that the operator has set becomes the
 * `${env:NAME}` reference that put it there; any other
 * secret becomes a reference named after its place, listed for the user; a secret that is not text
 * cannot be one (a reference loads as text), so its field is left out and noted. Text that looks like
 * a reference is escaped, so it loads back as written.
 */
import { Document, isMap, isScalar, Pair, Scalar, YAMLMap } from 'yaml';
import { formatDocument, generatedManifestText, manifestTags } from '../format/format-manifest.js';
import { promptFileFits } from '../format/prompt-file.js';
import { schemaNode, stripToShape } from '../schema/introspect.js';
import { configSecretSet } from '../secrets/schema-paths.js';
import { envPolicyOf } from '../secrets/env-policy.js';
import { escapeEnvReferences, referencedNames } from '../secrets/env-reference.js';
import { decodeQueryPart, mapUrlTokens, splitTokenUrl, splitUserInfo } from '../secrets/url-tokens.js';
import { isPhoneNumber } from '../manifest/names.js';
import { DiagnosticList } from '../manifest/diagnostics.js';
import { interpolateString } from '../manifest/interpolate.js';
import { MIN_SEARCHABLE_SECRET } from '../secrets/redact.js';
import { VoxformError } from '../errors.js';
import { heldValues, type HeldVariable } from '../secrets/trusted.js';
import { formatDotted, type PatternCursor } from '../util/field-path.js';
import { setOwn } from '../util/json-object.js';
import type { Agent, Phone } from '../schema/types.gen.js';
import { SCHEMA_MODELINE } from '../schema/load.js';

interface ExportInput {
  agents: readonly Agent[];
  /** The account's phones; bindings to exported agents are kept. */
  phones: readonly Phone[];
  /** Written as `region:` when not the default. */
  region?: 'us' | 'eu' | undefined;
  /** The command line, for the header comment. */
  command: string;
  /** What is known of the values `${env:…}` put on the service (src/secrets/trusted.ts answers). */
  deployed?: DeployedSecrets | undefined;
  /** Whether the operator's `VOXFORM_ENV_ALLOW` refuses a variable: plan refuses the manifest then, and the header says so. */
  refusesVariable?: ((name: string) => boolean) | undefined;
}

/** The trusted evidence of deployed `${env:…}` values (`TrustedSecrets`). */
interface DeployedSecrets {
  /**
   * Where `text` holds the value of a variable set here that an apply read (the deploy ledger names it), by its name, in text order, never overlapping;
   * a value several variables hold is named by the first of `recorded` holding it, else by the first by name.
   */
  variablesIn(text: string, recorded?: readonly string[]): ReadonlyArray<{ start: number; end: number; name: string }>;
  /** The config places (dotted) the deploy ledger recorded as filled from `${env:…}` for the agent. */
  ledgerPlaces(agentId: string): readonly string[];
  /** The variables the deploy ledger recorded at a config place (dotted) of the agent, the latest apply's first. */
  ledgerVariablesAt(agentId: string, place: string): readonly string[];
  /** The values the deploy ledger recorded at a config place (dotted) of the agent, references as written (`Code ${env:PROMO}.`). */
  ledgerValuesAt(agentId: string, place: string): readonly string[];
  /** The agent's names as the deploy ledger recorded them when filled from `${env:…}` (with the references); none when never. */
  ledgerNamesOf(agentId: string): readonly string[];
}

const NOTHING_DEPLOYED: DeployedSecrets = { variablesIn: () => [], ledgerPlaces: () => [], ledgerVariablesAt: () => [], ledgerValuesAt: () => [], ledgerNamesOf: () => [] };

export interface ExportedSecret {
  /** The environment variable the manifest reads. */
  name: string;
  /** Where the value goes, e.g. `agents.booking.config.tools[0].header.authorization`. */
  path: string;
  /** The live value is under MIN_SEARCHABLE_SECRET characters: the plan warns of it (`env_value_short`). */
  short?: true;
}

export interface ExportResult {
  manifest: string;
  /** Prompt files, relative to the manifest's folder. */
  prompts: Array<{ path: string; content: string }>;
  /** Local name of each exported agent, by id. */
  localNames: Map<string, string>;
  phones: string[];
  /** Phones bound to an exported agent that the manifest cannot hold (not E.164). */
  skippedPhones: string[];
  /** The references named after their place: the user sets each to its live value. */
  secrets: ExportedSecret[];
  /** The values of variables set here, written back as the references that put them there. */
  references: ExportedSecret[];
  /** Read-only fields left out, by local name (`voice.provider=elevenlabs`). */
  readOnly: Map<string, string[]>;
  /** Fields left out because they hold secrets that are not text, by local name. */
  withheld: Map<string, WithheldField[]>;
}

/** A config field left out of the manifest: it holds a secret that is not text. */
interface WithheldField {
  /** The field, from the config: `app_functions`, `session_data_webhook.headers`. */
  field: string;
  /** Where the values that are not text are (`app_functions[0].credentials.pin`); never the values. */
  places: string[];
}

export function buildExport(input: ExportInput): ExportResult {
  const run: ExportRun = {
    localNames: new Map(),
    agentNames: new Set(),
    secretNames: new Set(),
    secrets: [],
    references: [],
    deployed: input.deployed ?? NOTHING_DEPLOYED,
    readOnly: new Map(),
    withheld: new Map(),
    prompts: [],
    made: new Map(),
    hidden: [],
    unnamable: [],
  };
  // Every value export makes a reference of is known before any name is made: no name is made of one.
  const values = input.agents.map((agent) => secretValuesOf(agent, run));
  run.hidden = values.flatMap(({ made }) => made);
  run.unnamable = values.flatMap(({ made, deployed }) => [...made, ...deployed]);
  // Every agent's references are made before any text is written: a token of one agent's header
  // quoted in another's prompt is written as its reference there too.
  const drafts = input.agents.map((agent) => draftAgent(agent, run));
  const agentsMap = new YAMLMap();
  for (const draft of drafts) agentsMap.items.push(writeAgent(draft, run));
  const { phonesMap, phones, skippedPhones } = phoneBindings(input.phones, run.localNames);

  const root = new YAMLMap();
  root.items.push(new Pair(new Scalar('version'), new Scalar(1)));
  if (input.region && input.region !== 'us') root.items.push(new Pair(new Scalar('region'), new Scalar(input.region)));
  root.items.push(new Pair(new Scalar('agents'), agentsMap));
  if (phonesMap.items.length > 0) root.items.push(new Pair(new Scalar('phones'), phonesMap));

  const doc = new Document(undefined, { customTags: manifestTags });
  doc.contents = root;
  const refused = run.secrets.map((secret) => secret.name).filter((name) => input.refusesVariable?.(name) === true);
  doc.commentBefore = header(input.command, run, refused);
  formatDocument(doc);
  for (const pair of agentsMap.items) if (isScalar(pair.key) && pair !== agentsMap.items[0]) pair.key.spaceBefore = true;
  const { localNames, secrets, references, readOnly, withheld, prompts } = run;
  return { manifest: generatedManifestText(doc), prompts, localNames, phones, skippedPhones, secrets, references, readOnly, withheld };
}

/** What the agents of one export share: the names taken, and what each agent adds to the result. */
interface ExportRun {
  localNames: Map<string, string>;
  agentNames: Set<string>;
  secretNames: Set<string>;
  secrets: ExportedSecret[];
  references: ExportedSecret[];
  deployed: DeployedSecrets;
  readOnly: Map<string, string[]>;
  withheld: Map<string, WithheldField[]>;
  prompts: Array<{ path: string; content: string }>;
  /**
   * The values export writes as references of its own (header values, URL tokens, places the ledger
   * recorded), by the name of the first reference made of each: found in any other text too.
   */
  made: Map<string, string>;
  /**
   * The values export writes as references of its own in any of the agents, found before any name is
   * made: no local name or variable name is made of a text holding one.
   */
  hidden: readonly string[];
  /**
   * `hidden` and the deployed values the agents' configs hold: no name is made of a text holding one
   * as names are compared (`foldsInSecret`), nor written where it would show one so.
   */
  unnamable: readonly string[];
}

/** An agent read, its secrets named (`draftAgent`), its text not written yet (`writeAgent`). */
interface AgentDraft {
  agent: Agent;
  local: string;
  nameShown: boolean;
  nameRecorded: string[];
  live: Record<string, unknown>;
  config: Record<string, unknown>;
  dropped: string[];
  withheld: WithheldField[];
  /** The references made of the config's secrets, by `secretKey`; each listed in `run.secrets` where the manifest writes it. */
  secrets: Map<string, ExportedSecret>;
}

/** One agent's local name and config to write, its secrets named, each value of one noted in `run.made`. */
function draftAgent(agent: Agent, run: ExportRun): AgentDraft {
  const nameRecorded = run.deployed.ledgerNamesOf(agent.id).flatMap((written) => referencedNames(written));
  // A name the service sent as something else than text (null, a number) is no name: the agent gets the local name of a nameless one (`agent`), and no name is written.
  const liveName = typeof agent.name === 'string' ? agent.name : undefined;
  // A name holding a secret in another case or with other separators than its reference would take is a reference whole.
  const nameShown = nameMayShow(agent, nameRecorded, run) && !foldsInSecret(literalText(liveName ?? '', nameRecorded, run), run);
  const madeOf = nameWithoutSecrets(liveName, nameRecorded, run) ?? '';
  // Nothing is made of a name that holds an environment value or a secret, in any case or with any separators (the
  // slug and the variable names fold them): its local name (hence its prompt file, phone bindings and variables) comes from the id.
  const named = nameShown && !holdsHidden(madeOf, run) && !foldsInSecret(madeOf, run);
  const local = uniqueName([...(named ? [slugify(madeOf)] : []), slugify(`agent ${agent.id}`)], run.agentNames, '-', agent.id, run);
  run.localNames.set(agent.id, local);

  const { live, shaped, config, found } = managedConfig(agent);
  const dropped = droppedFields(live, shaped, stripToShape(schemaNode('AgentConfigRead'), live, false));
  run.readOnly.set(local, dropped);
  const withheld = [...found.values()].map(({ path, places }) => ({ field: renderField(path), places }));
  run.withheld.set(local, withheld);
  const draft: AgentDraft = { agent, local, nameShown, nameRecorded, live, config, dropped, withheld, secrets: new Map() };
  // Only the references it makes count here: its text is written once every agent's are known.
  protectValues(configSecretSet().start(), config, [], protectHooks(draft, run, false));
  return draft;
}

/** The agent's live config, its update shape, and that shape as the manifest holds it: without the fields holding secrets that are not text (`found`). */
function managedConfig(agent: Agent): { live: Record<string, unknown>; shaped: Record<string, unknown>; config: Record<string, unknown>; found: ReturnType<typeof nonTextSecrets> } {
  const live = (agent.config ?? {}) as Record<string, unknown>;
  const shaped = stripToShape(schemaNode('AgentConfigUpdate'), live) as Record<string, unknown>;
  const found = nonTextSecrets(configSecretSet().start(), shaped, []);
  const config = withoutFields(shaped, [...found.values()].map(({ path }) => path)) as Record<string, unknown>;
  return { live, shaped, config, found };
}

/** The values `protectValues` makes references of in the agent's config (`made`) and writes back as the references that put them there (`deployed`), before any variable is named. */
function secretValuesOf(agent: Agent, run: ExportRun): { made: string[]; deployed: string[] } {
  const made: string[] = [];
  const deployed: string[] = [];
  const hooks = protectHooks({ agent, local: '', secrets: new Map() }, run, false);
  const collect = (value: string) => {
    // An empty value is in no text.
    if (value !== '') made.push(value);
    return '';
  };
  const found: ProtectHooks['deployed'] = (text, path) => {
    const held = hooks.deployed(text, path);
    for (const { start, end } of held) deployed.push(text.slice(start, end));
    return held;
  };
  protectValues(configSecretSet().start(), managedConfig(agent).config, [], { ...hooks, secret: collect, deployed: found });
  return { made, deployed };
}

/** Whether `text` holds a value export makes a reference of (`run.hidden`), found as `withMadeSecrets` finds it. */
function holdsHidden(text: string, run: ExportRun): boolean {
  return heldValues(text, run.hidden, () => '').length > 0;
}

/**
 * Whether `text` holds a value of `run.unnamable` as names are compared (`NAME_FOLDS`): a slug or a
 * variable name made of it would show the value. A value folding to under MIN_SEARCHABLE_SECRET
 * characters counts only where it is all of `text`, as a short value does.
 */
function foldsInSecret(text: string, run: ExportRun): boolean {
  return NAME_FOLDS.some((fold) => {
    const folded = fold(text);
    return run.unnamable.some((value) => {
      const secret = fold(value);
      return secret !== '' && (secret.length < MIN_SEARCHABLE_SECRET ? folded === secret : folded.includes(secret));
    });
  });
}

/**
 * A name as each maker of names keeps it, lower-cased: `slugify` drops accents and every letter
 * past ASCII (`ß`, `ı`), `envName` upper-cases first (`ß` as `SS`, `ı` as `I`) and drops what is
 * then past ASCII (`é`). A value either keeps is a value a name made of the text would show.
 */
const NAME_FOLDS: ReadonlyArray<(text: string) => string> = [
  (text) => text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, ''),
  (text) => text.toUpperCase().replace(/[^A-Z0-9]+/g, '').toLowerCase(),
];

/** `text` without the values `writeBack` writes as references (those of `run.hidden`, and deployed ones): what of it is written as it is. */
function literalText(text: string, recorded: readonly string[], run: ExportRun): string {
  let out = '';
  let from = 0;
  for (const { start, end } of heldValues(text, run.hidden, () => '', run.deployed.variablesIn(text, recorded))) {
    out += `${text.slice(from, start)} `;
    from = end;
  }
  return out + text.slice(from);
}

/**
 * What `protectValues` does with the draft's config. `writing`: false while the secrets are named
 * (text is not written, nothing listed), true for the manifest's text, where each value of `run.made`
 * is its reference too.
 */
function protectHooks(draft: Pick<AgentDraft, 'agent' | 'local' | 'secrets'>, run: ExportRun, writing: boolean): ProtectHooks {
  const { agent, local } = draft;
  const recorded = run.deployed.ledgerPlaces(agent.id);
  // Where several variables hold a value, the one the ledger recorded at the place put it there.
  const recordedAt = (path: Path) => run.deployed.ledgerVariablesAt(agent.id, formatDotted(path));
  const made = writing ? madeLongestFirst(run) : new Map<string, string>();
  const isRecorded = (place: string) => recorded.some((at) => place === at || place.startsWith(`${at}.`));
  return {
    secret: (value, named, path, part) => {
      const key = secretKey(path, part, value);
      let secret = draft.secrets.get(key);
      if (secret === undefined) {
        // Named after the items' names, else (the name as made would show a value) after their positions.
        const tail = part ? [part] : [];
        const name = uniqueName([envName([local, ...named, ...tail]), envName([local, ...path, ...tail])], run.secretNames, '_', agent.id, run);
        secret = { name, path: `agents.${local}.config${renderPath(path)}${part ? ` (${part} in the URL)` : ''}` };
        // The plan warns of a value too short to hide in text (env_value_short): export says which up front.
        if (value.length < MIN_SEARCHABLE_SECRET) secret.short = true;
        draft.secrets.set(key, secret);
        // An empty value is in no text.
        if (value !== '' && !run.made.has(value)) run.made.set(value, name);
      }
      if (writing && !run.secrets.includes(secret)) run.secrets.push(secret);
      return `\${env:${secret.name}}`;
    },
    recorded: (path) => isRecorded(formatDotted(path)),
    // Export cannot tell which characters a variable it does not find filled: only a value the ledger
    // recorded whose every variable is found here accounts for all an apply put at the place.
    partlyUnset: (held, path) => {
      const place = formatDotted(path);
      if (!isRecorded(place)) return false;
      const found = new Set(held.map(({ name }) => name));
      return !run.deployed.ledgerValuesAt(agent.id, place).some((written) => referencedNames(written).every((name) => found.has(name)));
    },
    deployed: (text, path) => run.deployed.variablesIn(text, recordedAt(path)),
    // A name an apply took from the environment, or one holding a secret (in any case, with any separators), names no variable.
    names: (text, path) =>
      !isRecorded(formatDotted(path)) && run.deployed.variablesIn(text, recordedAt(path)).length === 0 && !holdsHidden(text, run) && !foldsInSecret(text, run),
    foldsInSecret: (text, path) => foldsInSecret(literalText(text, recordedAt(path), run), run),
    searched: (text, path) => withMadeSecrets(text, run.deployed.variablesIn(text, recordedAt(path)), made),
    writeBack: (text, path) =>
      writing ? writeBack(text, `agents.${local}.config${renderPath(path)}`, run, recordedAt(path), made) : withReferences(text, run.deployed.variablesIn(text, recordedAt(path))),
  };
}

/** Which reference of an agent's config a secret is: its place, its part of a URL and its value (a query may repeat a parameter). */
function secretKey(path: Path, part: string | undefined, value: string): string {
  return JSON.stringify([path, part ?? '', value]);
}

/** `run.made`, longest value first: where one value holds another, the longer is its reference. */
function madeLongestFirst(run: ExportRun): Map<string, string> {
  return new Map([...run.made].sort(([a], [b]) => b.length - a.length));
}

/**
 * `held` (the deployed values in `text`) and, where none of them is, each value of `made` in `text`
 * with the name of its reference, found as deployed values are (`heldValues`).
 */
function withMadeSecrets(text: string, held: readonly HeldVariable[], made: ReadonlyMap<string, string>): HeldVariable[] {
  return heldValues(text, [...made.keys()], (value) => made.get(value) as string, held);
}

/** One agent as a manifest entry (`local-name: { id, name, config }`), its prompt and secrets recorded in `run`. */
function writeAgent(draft: AgentDraft, run: ExportRun): Pair {
  const { agent, local, nameShown, nameRecorded, live, dropped, withheld } = draft;
  const protectedConfig = protectValues(configSecretSet().start(), draft.config, [], protectHooks(draft, run, true)) as Record<string, unknown>;

  const prompt = live.prompt;
  // A prompt file is not interpolated: a prompt that holds a secret stays inline, as a reference. An empty one needs no file.
  if (typeof prompt === 'string' && prompt !== '' && promptFileFits(prompt) && protectedConfig.prompt === escapeEnvReferences(prompt)) {
    const file = `prompts/${local}.md`;
    // The loader drops one final newline from a prompt file, so writing one more keeps the prompt exact.
    run.prompts.push({ path: file, content: `${prompt}\n` });
    protectedConfig.prompt = { file };
  }

  const doc = new Document(undefined, { customTags: manifestTags });
  const entry = new YAMLMap();
  entry.items.push(new Pair(new Scalar('id'), new Scalar(agent.id)));
  if (typeof agent.name === 'string') {
    // A secret export makes a reference of elsewhere is that reference in the name too.
    const name = (nameShown ? writeBack(agent.name, `agents.${local}.name`, run, nameRecorded, madeLongestFirst(run)) : undefined) ?? secretName(local, agent.id, run);
    entry.items.push(new Pair(new Scalar('name'), new Scalar(name)));
  }
  entry.items.push(new Pair(new Scalar('config'), doc.createNode(protectedConfig)));
  const promptNode = entry.getIn(['config', 'prompt'], true);
  if (isMap(promptNode)) promptNode.flow = true;
  const key = new Scalar(local);
  key.commentBefore = agentComment(dropped, withheld);
  return new Pair(key, entry);
}

/**
 * Whether the agent's name may be written (its values of variables set here as their references):
 * always, unless the deploy ledger says an apply took it from `${env:…}`; then only when that writes
 * it as the ledger recorded it, so every value the apply put there is a reference again.
 */
function nameMayShow(agent: Agent, recorded: readonly string[], run: ExportRun): boolean {
  const applied = run.deployed.ledgerNamesOf(agent.id);
  if (applied.length === 0 || typeof agent.name !== 'string') return true;
  const written = withReferences(agent.name, run.deployed.variablesIn(agent.name, recorded));
  return written !== undefined && applied.includes(written);
}

/** A reference for an agent's name that holds a deployed value beside reference-like text, or that the ledger says came from the environment. */
function secretName(local: string, id: string, run: ExportRun): string {
  const name = uniqueName([envName([local, 'name']), envName(['agent', id, 'name'])], run.secretNames, '_', id, run);
  run.secrets.push({ name, path: `agents.${local}.name` });
  return `\${env:${name}}`;
}

/** The comment above an agent: what the manifest does not manage, and why (never a secret value). */
function agentComment(dropped: readonly string[], withheld: readonly WithheldField[]): string | undefined {
  const lines: string[] = [];
  if (dropped.length > 0) lines.push(` ${READ_ONLY_NOTE}${dropped.join(', ')}`);
  for (const { field, places } of withheld) {
    lines.push(` not managed here: ${field} holds secrets that are not text (${places.join(', ')}); a \${env:…} reference would make them text`);
  }
  // The service's values and keys may hold characters a reviewer cannot see: generatedManifestText escapes them.
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** The phone bindings of exported agents, by local name; numbers that are not E.164 are skipped. */
function phoneBindings(list: readonly Phone[], localNames: ReadonlyMap<string, string>): { phonesMap: YAMLMap; phones: string[]; skippedPhones: string[] } {
  const phonesMap = new YAMLMap();
  const phones: string[] = [];
  const skippedPhones: string[] = [];
  for (const phone of list) {
    const local = phone.agent_id === undefined ? undefined : localNames.get(phone.agent_id);
    if (local === undefined) continue;
    if (!isPhoneNumber(phone.id)) skippedPhones.push(phone.id);
    if (!isPhoneNumber(phone.id) || phones.includes(phone.id)) continue;
    phones.push(phone.id);
    const binding = new YAMLMap();
    binding.flow = true;
    binding.items.push(new Pair(new Scalar('agent'), new Scalar(local)));
    phonesMap.items.push(new Pair(new Scalar(phone.id), binding));
  }
  return { phonesMap, phones, skippedPhones };
}

/** `Front desk (staging)` → `front-desk-staging`: a local name of the manifest. */
export function slugify(name: string | undefined): string {
  const slug = (name ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug === '' ? 'agent' : slug;
}

/**
 * The first of `bases`, made unique with `-2`, `-3` (`separator`), that does not show a value of
 * `run.unnamable` as names are compared: a suffix or the joining of parts each holding none may make
 * one, so the name is checked as it is made. None may be written when every base's name shows one.
 */
function uniqueName(bases: readonly string[], taken: Set<string>, separator: string, agentId: string, run: ExportRun): string {
  for (const base of bases) {
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}${separator}${n}`;
    if (foldsInSecret(name, run)) continue;
    taken.add(name);
    return name;
  }
  // The names are not shown: each holds a secret.
  throw new VoxformError('export_name_shows_secret', `voxform export cannot name agent ${agentId} or a variable of its config without showing a secret: every name it would make holds one (case and separators folded).`, {
    hint: 'Rename the agent, the tool or the header key holding a secret value, then export again.',
  });
}

/** `['front-desk', 'session_data_webhook', 'headers', 'x-hook-token']` → `FRONT_DESK_SESSION_DATA_WEBHOOK_X_HOOK_TOKEN`. */
function envName(parts: ReadonlyArray<string | number>): string {
  const words = parts.filter((part) => part !== 'header' && part !== 'headers' && part !== 'credentials').map(String);
  const name = words.join('_').toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  // A name the loader refuses (a digit first; `VOXFORM_*`, voxform's own settings) gets a prefix.
  return /^[0-9]/.test(name) || envPolicyOf({}).check(name) === 'reserved' ? `AGENT_${name}` : name;
}

/** A path from the config, as the comments and messages show it: `app_functions[0].credentials.pin`. */
function renderField(path: ReadonlyArray<string | number>): string {
  return renderPath(path).replace(/^\./, '');
}

function renderPath(path: ReadonlyArray<string | number>): string {
  return path.map((part) => (typeof part === 'number' ? `[${part}]` : /^[A-Za-z0-9_]+$/.test(part) ? `.${part}` : `["${part}"]`)).join('');
}

interface ProtectHooks {
  /** The `${env:…}` reference for the secret `value` at `path`; `part` names the part of a URL (`token`, `password`). */
  secret: (value: string, namedPath: Array<string | number>, path: Array<string | number>, part?: string) => string;
  /** Whether the deploy ledger recorded the place as filled from `${env:…}`. */
  recorded: (path: Array<string | number>) => boolean;
  /**
   * Whether the deploy ledger recorded the place as filled from `${env:…}` by a variable not among
   * `held` (the deployed values its text holds): which part of the text that one filled is unknown.
   */
  partlyUnset: (held: ReadonlyArray<{ name: string }>, path: Array<string | number>) => boolean;
  /** Where `text`, at `path`, holds deployed values (`DeployedSecrets.variablesIn`). */
  deployed: (text: string, path: Array<string | number>) => ReadonlyArray<{ start: number; end: number; name: string }>;
  /** Whether `text`, an item's name at `path`, may name its variables: not taken from the environment, holding no secret. */
  names: (text: string, path: Array<string | number>) => boolean;
  /** Whether `text` at `path`, but for the values written as references, holds a secret as names are compared (`foldsInSecret`). */
  foldsInSecret: (text: string, path: Array<string | number>) => boolean;
  /** Where `text`, at `path`, holds deployed values or values of other references export makes: what `writeBack` writes as references. */
  searched: (text: string, path: Array<string | number>) => ReadonlyArray<{ start: number; end: number; name: string }>;
  /** `text` as manifest text, the deployed values it holds as their references (see `writeBack`); undefined when it cannot be. */
  writeBack: (text: string, path: Array<string | number>) => string | undefined;
}

/**
 * A copy of `value` where every string that holds a deployed variable's value has it written back as
 * its reference; every other string in a secret place is replaced by `hooks.secret` for its path (array
 * elements named by their `name`), and every other string has `${env:` escaped.
 */
function protectValues(at: PatternCursor, value: unknown, path: Array<string | number>, hooks: ProtectHooks, named: Array<string | number> = path): unknown {
  const isSecret = path.length > 0 && (at.covered || hooks.recorded(path));
  if (typeof value === 'string') {
    if (value === '') return value;
    const held = hooks.deployed(value, path);
    const wholly = isWholly(held, value) ? hooks.writeBack(value, path) : undefined;
    if (wholly !== undefined) return wholly;
    // A place the ledger recorded holding the value of a variable not set here is the secret whole, as when none is set.
    if (isSecret && (held.length === 0 || hooks.partlyUnset(held, path))) return hooks.secret(value, named, path);
    // An item's name holding a secret in another case or with other separators than its reference would take is the secret whole.
    if (typeof path.at(-2) === 'number' && path.at(-1) === 'name' && hooks.foldsInSecret(value, path)) return hooks.secret(value, named, path);
    // A deployed value (or one export makes a reference of) that runs from one part of a URL into the next: the whole URL is then the secret.
    if (isUrlWithSecrets(value) && hooks.searched(value, path).some(({ start, end }) => URL_SEPARATORS.test(value.slice(start, end)))) return hooks.secret(value, named, path);
    // A URL's every token, at a secret place too: what an apply put there written back, any other token one of its own.
    const url = protectUrl(
      value,
      (part, raw) => (isWholly(hooks.deployed(raw, path), raw) ? hooks.writeBack(raw, path) : undefined) ?? hooks.secret(raw, named, path, part),
      (text) => hooks.writeBack(text, path) ?? hooks.secret(text, named, path),
    );
    return url ?? hooks.writeBack(value, path) ?? hooks.secret(value, named, path);
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => {
      const itemName = item && typeof item === 'object' ? (item as { name?: unknown }).name : undefined;
      const label = typeof itemName === 'string' && hooks.names(itemName, [...path, index, 'name']) ? itemName : index;
      return protectValues(at.step(index), item, [...path, index], hooks, [...named, label]);
    });
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      setOwn(out, key, protectValues(at.step(key), child, [...path, key], hooks, [...named, key]));
    }
    return out;
  }
  return value;
}

type Path = Array<string | number>;

/**
 * The secrets of a config that are not text, by the field that must be left out for them (keyed by its
 * rendered path): the one above the first list on the way (an item cannot be left out alone), else the
 * secret place itself.
 */
function nonTextSecrets(at: PatternCursor, value: unknown, path: Path, found = new Map<string, { path: Path; places: string[] }>(), place?: Path): Map<string, { path: Path; places: string[] }> {
  const secretPlace = place ?? (path.length > 0 && at.covered ? path : undefined);
  if (Array.isArray(value)) value.forEach((item, index) => nonTextSecrets(at.step(index), item, [...path, index], found, secretPlace));
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) nonTextSecrets(at.step(key), child, [...path, key], found, secretPlace);
  } else if (secretPlace && value !== null && typeof value !== 'string') {
    const list = path.findIndex((segment) => typeof segment === 'number');
    const field = list === -1 ? secretPlace : path.slice(0, list);
    const key = renderPath(field);
    const entry = found.get(key) ?? { path: field, places: [] };
    entry.places.push(renderField(path));
    found.set(key, entry);
  }
  return found;
}

/** A copy of `value` without the fields at `paths` (object keys only; the rest shared, never changed). */
function withoutFields(value: unknown, paths: readonly Path[]): unknown {
  if (paths.length === 0 || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const below = paths.filter((p) => p[0] === key);
    if (below.some((p) => p.length === 1)) continue;
    setOwn(out, key, withoutFields(child, below.map((p) => p.slice(1))));
  }
  return out;
}

/** The characters where `protectUrl` splits a URL into parts. */
const URL_SEPARATORS = /[:/@?&=#]/;

/** Whether `protectUrl` makes references in `text`: a URL with user info or a query value. */
function isUrlWithSecrets(text: string): boolean {
  return splitTokenUrl(text) !== undefined;
}

/** Whether `held` is one value that is all of `text`. */
function isWholly(held: ReadonlyArray<{ start: number; end: number }>, text: string): boolean {
  return held.length === 1 && held[0]?.start === 0 && held[0].end === text.length;
}

/**
 * A URL with each user info and query value (where tokens ride) replaced by `reference(part, value)`,
 * named after the query parameter or `user` / `password`, and the rest written by `literal`; undefined
 * for other text. Values stay percent-encoded.
 */
function protectUrl(text: string, reference: (part: string, value: string) => string, literal: (text: string) => string): string | undefined {
  // A reference-like text may run from one part into the next: the whole URL is then the secret.
  if (text.includes('{env:') && isUrlWithSecrets(text)) return reference('', text);
  const userInfo = (written: string) => {
    const { user, password } = splitUserInfo(written);
    // The user is as much a token as the password (`https://sk_live_…:@host`): neither is written.
    return password === undefined ? reference('user', user) : `${reference('user', user)}:${reference('password', password)}`;
  };
  return mapUrlTokens(text, userInfo, (name, value) => reference(decodeQueryPart(name) || 'query', value), literal);
}

/**
 * `text` as manifest text: each value of a variable set here that it holds written as the
 * `${env:NAME}` reference that put it there (noted in `run.references` under `place`; the first of
 * `recorded`, the variables the ledger recorded there, that holds it), each value of `made` (a
 * secret export makes a reference of elsewhere) as that reference, the rest escaped. Undefined
 * when that would not load back as `text` (reference-like text running into a value): the caller
 * makes the whole text a secret then.
 */
function writeBack(text: string, place: string, run: ExportRun, recorded: readonly string[], made: ReadonlyMap<string, string> = new Map()): string | undefined {
  const deployed = run.deployed.variablesIn(text, recorded);
  const out = withReferences(text, withMadeSecrets(text, deployed, made));
  if (out === undefined) return undefined;
  for (const { name } of deployed) {
    if (!run.references.some((known) => known.name === name && known.path === place)) run.references.push({ name, path: place });
  }
  return out;
}

/** `text` with each `held` value as its reference and the rest escaped; undefined when that would not load back as `text`. */
function withReferences(text: string, held: ReadonlyArray<{ start: number; end: number; name: string }>): string | undefined {
  if (held.length === 0) return escapeEnvReferences(text);
  let out = '';
  let from = 0;
  for (const { start, end, name } of held) {
    out += `${escapeEnvReferences(text.slice(from, start))}\${env:${name}}`;
    from = end;
  }
  out += escapeEnvReferences(text.slice(from));
  const env = Object.fromEntries(held.map(({ start, end, name }) => [name, text.slice(start, end)]));
  return interpolateString(out, undefined, { env, diagnostics: new DiagnosticList(), onSecret: () => undefined }).value === text ? out : undefined;
}

/** An agent's name with the values of variables set here as their names: what its local name is made from. */
function nameWithoutSecrets(name: string | undefined, recorded: readonly string[], run: ExportRun): string | undefined {
  if (name === undefined) return undefined;
  let out = '';
  let from = 0;
  for (const { start, end, name: variable } of run.deployed.variablesIn(name, recorded)) {
    out += `${name.slice(from, start)} ${variable} `;
    from = end;
  }
  return out + name.slice(from);
}

/**
 * `voice.provider=elevenlabs` for every leaf of `live` that `kept` lacks. A field the schema does not
 * know (absent from `known`) is named without its text: voxform cannot tell whether it is a secret
 * (`webhook_secret`); a number or a boolean is shown.
 */
function droppedFields(live: unknown, kept: unknown, known: unknown, path = ''): string[] {
  if (Array.isArray(live)) {
    const keptList = Array.isArray(kept) ? kept : [];
    const knownList = Array.isArray(known) ? known : [];
    return live.flatMap((item, index) => droppedFields(item, keptList[index], knownList[index], `${path}[${index}]`));
  }
  if (!live || typeof live !== 'object') return [];
  const keptObject = kept && typeof kept === 'object' ? (kept as Record<string, unknown>) : {};
  const knownObject = known && typeof known === 'object' ? (known as Record<string, unknown>) : {};
  const found: string[] = [];
  for (const [key, value] of Object.entries(live as Record<string, unknown>)) {
    const at = path ? `${path}.${key}` : key;
    if (Object.hasOwn(keptObject, key)) found.push(...droppedFields(value, keptObject[key], knownObject[key], at));
    else if (Object.hasOwn(knownObject, key) || typeof value !== 'string') found.push(`${at}=${describeValue(value)}`);
    else found.push(at);
  }
  return found;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return /^[\w.:/@+-]{1,60}$/.test(value) ? value : JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? '[…]' : '{…}';
}

/** The lines of the header that do not change from one export to the next. */
const HEADER_LINES = {
  // Whether the live agents break mandatory policy is known only once the manifest is written and
  // loaded, after this header: said as the condition it is (export warns of each finding).
  noChanges: '`voxform plan` on it shows no changes, unless export warned of mandatory policy findings; edit it, review the plan, apply.',
  /** The words of exports before the condition was said. */
  noChangesBefore: '`voxform plan` on it shows no changes; edit it, review the plan, apply.',
  references: 'Values an apply took from the environment are read from it again, as they were deployed:',
  secrets: 'Secrets (headers, credentials, URL query values and user info) are not exported: the manifest',
  secretsRead: 'reads them from these environment variables; set each to its live value:',
} as const;
const READ_ONLY_NOTE = 'read-only on the service, not managed here: ';

/** `refused`: the variables the operator's VOXFORM_ENV_ALLOW refuses, for which plan refuses the manifest. */
function header(command: string, { secrets, references }: Pick<ExportRun, 'secrets' | 'references'>, refused: readonly string[]): string {
  const promise = refused.length > 0 ? `\`voxform plan\` refuses it until VOXFORM_ENV_ALLOW allows ${refused.join(', ')}; edit it, review the plan, apply.` : HEADER_LINES.noChanges;
  const lines = [` ${SCHEMA_MODELINE}`, ' ', ` Exported from the live service by \`${command}\`.`, ` ${promise}`];
  if (references.length > 0) {
    lines.push(` ${HEADER_LINES.references}`);
    for (const reference of references) lines.push(`   ${reference.name}  (${reference.path})`);
  }
  if (secrets.length > 0) {
    lines.push(` ${HEADER_LINES.secrets}`, ` ${HEADER_LINES.secretsRead}`);
    for (const secret of secrets) lines.push(`   ${secret.name}  (${secret.path})`);
  }
  return lines.join('\n');
}

/**
 * Whether a comment (its text after `#`, trimmed) is one export writes itself: a line of its header,
 * an agent's note of what it does not manage, or an empty one. Replacing such a line loses nothing
 * anybody wrote, however the new export words it.
 */
export function isExportComment(text: string): boolean {
  return (
    text === '' ||
    text === SCHEMA_MODELINE ||
    (Object.values(HEADER_LINES) as string[]).includes(text) ||
    /^Exported from the live service by `voxform export [^`]*`\.$/.test(text) ||
    /^`voxform plan` refuses it until VOXFORM_ENV_ALLOW allows [A-Z0-9_, ]+; edit it, review the plan, apply\.$/.test(text) ||
    // A secret's line: its place may end in its own parenthesis (`(query in the URL)`).
    /^[A-Z_][A-Z0-9_]* {2}\(agents\..*\)$/.test(text) ||
    text.startsWith(READ_ONLY_NOTE) ||
    /^not managed here: \S+ holds secrets that are not text \(.*\); a \$\{env:…\} reference would make them text$/.test(text)
  );
}
