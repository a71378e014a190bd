/**
 * What `drift --heal` applies: each field changed outside voxform (`outside` or `both`) back to its
 * value in the agent's last recorded configuration — the newest ledger record holding it — read again
 * as rollback reads a record (`desiredFromRecord`), never what the manifests hold; every other field
 * as the service holds it. Only agents changed outside voxform are in it. The records are chosen
 * from the ledger walked newest first (`HealRecordChooser`, on summaries), and only the chosen ones
 * are read whole (`healPlan`).
 */
import { VoxformError } from '../errors.js';
import { desiredFromRecord, type RestoreOptions } from '../history/restore.js';
import { AgentNames, versionOfAgent } from '../history/agent-names.js';
import type { HistoryRecord, LedgerRecord } from '../history/types.js';
import type { DesiredAgent, DesiredState } from '../manifest/types.js';
import { desiredAgentFields } from '../plan/agent-fields.js';
import { isDottedAtOrUnder, parseDotted, setAtPath } from '../util/field-path.js';
import { hashValue } from '../util/hash.js';
import { cloneJson, type JsonObject } from '../util/json-object.js';
import { pluralNoun } from '../util/plural.js';
import { hashApplied } from '../state/types.js';
import type { DriftedField, DriftedResource, DriftReport, NotComparedField } from './types.js';
import { healsField, notLastApplied } from './classify.js';
import { addToList } from '../util/map-lists.js';

export interface HealPlan {
  /** The desired state of the healed agents: their recorded configurations. */
  desired: DesiredState;
  /** Ids of the records whose configurations are put back, newest first. */
  records: string[];
  /** The fields of the healed agents that differ and are left as the service holds them: not changed outside voxform, or knowledge files. */
  left: Array<{ address: string; field: DriftedField }>;
  /** The state's record the heal was decided on (`stateDigest`): its apply is refused if another run wrote the state since. */
  decidedOn?: string | undefined;
}

/** The records a heal puts back (`HealRecordChooser`). */
interface HealChoice<R> {
  /** The chosen records, newest first. */
  records: R[];
  /** Each healable agent in the report's order: its local name now, its id, the index in `records` of the newest record holding it, and its report. */
  agents: Array<{ name: string; id: string; record: number; resource: DriftedResource }>;
}

/** A healable agent: its report, its local name and the id it has now; `record`, once found, indexes the chosen records. */
interface HealedAgent {
  resource: DriftedResource;
  name: string;
  id: string | undefined;
  record?: number | undefined;
}

/**
 * Chooses, for each healable agent of a report, the newest record holding it, from records added
 * newest first (whole, or their summaries): `add` says when every agent has its record, so the walk
 * stops there and the older records are never read.
 */
export class HealRecordChooser<R extends LedgerRecord> {
  private readonly agents: HealedAgent[];
  private readonly chosen: R[] = [];
  private missing: number;

  /** `applyCommand`: the `voxform apply` line, with this run's options, a refusal suggests (src/cli/next-command.ts). */
  constructor(
    report: DriftReport,
    private readonly applyCommand: string,
  ) {
    this.agents = report.resources.filter((resource) => resource.healable).map((resource) => ({ resource, name: resource.address.slice('agent.'.length), id: resource.change.id }));
    this.missing = this.agents.length;
  }

  /** Whether every healable agent has its record (at once when none is healable). */
  get complete(): boolean {
    return this.missing === 0;
  }

  /** Takes the next older record; true once every healable agent has its record. */
  add(record: R): boolean {
    let holdsOne = false;
    for (const agent of this.agents) {
      // The agent by its id, under whatever key the record holds it (a key renamed since): a record of another agent under this name is not its configuration.
      if (agent.record !== undefined || agent.id === undefined || versionOfAgent(record, agent.name, agent.id) === undefined) continue;
      agent.record = this.chosen.length;
      holdsOne = true;
      this.missing--;
    }
    if (holdsOne) this.chosen.push(record);
    return this.complete;
  }

  /** The records chosen; an agent no record added holds stops the heal before anything is changed. */
  choice(): HealChoice<R> {
    const unrecorded = this.agents.filter((agent) => agent.record === undefined).map((agent) => agent.resource.address);
    if (unrecorded.length > 0) {
      throw new VoxformError('drift_heal_unrecorded', `Cannot heal ${unrecorded.join(', ')}: no history record of this workspace holds the configuration voxform last applied to ${pluralNoun(unrecorded.length, 'it', 'them')}; nothing was changed.`, {
        hint: `Only what an apply recorded can be put back. Run \`${this.applyCommand}\` to make the agents match the manifests instead.`,
      });
    }
    return { records: [...this.chosen], agents: this.agents.map((agent) => ({ name: agent.name, id: agent.id as string, record: agent.record as number, resource: agent.resource })) };
  }
}

/** What `healPlan` reads records with, and the run's fingerprint key: a recorded value is put back only when it hashes to what the state says was last applied. */
interface HealOptions extends Omit<RestoreOptions, 'agents' | 'names' | 'withholdUnsetEnv'> {
  fingerprintKey: string;
  /** The `voxform apply` line, with this run's options, a refusal suggests (src/cli/next-command.ts). */
  applyCommand: string;
  /** The report's places not compared (`DriftReport.notCompared`): each healed agent keeps the service's value there. */
  notCompared?: readonly NotComparedField[] | undefined;
}

/** Sets a managed field (`name`, or a dotted path under `config`) of an agent being built; undefined leaves it out. */
function setField(agent: DesiredAgent, path: string, value: unknown): void {
  if (path === 'name') agent.name = value as string | undefined;
  else setAtPath(agent.config, parseDotted(path).slice(1), cloneJson(value));
}

/**
 * The agent a heal writes: the manifests' agent (what the service holds wherever nothing differs)
 * with each field changed outside voxform set to its recorded value, and every other field that
 * differs as the service holds it. One in git, not applied yet, stays for `voxform apply`, and one
 * another environment's apply set is not this heal's to undo; a secret whose variable this run does
 * not have (the cron job holds no token) is kept as well (`keepNotCompared`). A recorded value that is not what the
 * state says was last applied there (an apply since was not recorded) stops the heal: it would put
 * back an older configuration.
 */
function healedAgent(recorded: DesiredAgent, current: DesiredAgent, resource: DriftedResource, record: HistoryRecord, options: HealOptions): DesiredAgent {
  const key = options.fingerprintKey;
  const recordedFields = desiredAgentFields(recorded);
  const references = { ...current.envReferences };
  const healed: DesiredAgent = { ...current, id: recorded.id, config: cloneJson(current.config), knowledge: undefined, sensitivePaths: [...new Set([...current.sensitivePaths, ...recorded.sensitivePaths])], envReferences: references };
  const recordedOlder: string[] = [];
  for (const drifted of resource.fields) {
    if (drifted.valueNotShown !== undefined) continue;
    const { path } = drifted.field;
    if (path === 'knowledge') continue;
    if (!healsField(drifted)) {
      setField(healed, path, drifted.field.before);
      // The ledger records the service's value there. Where the state says it is what the last apply
      // wrote, it was read from that apply's references, not the manifests' (a change in git not
      // applied yet); otherwise the manifests' stay, so a secret there is never written out as a value.
      const asLastApplied = drifted.field.before !== undefined && drifted.lastApplied === hashApplied(key, drifted.field.before);
      if (asLastApplied) referencesAt(references, path, recorded.envReferences);
      continue;
    }
    const value = drifted.lastAppliedLeaves ? recordedSubtree(recordedFields, path, drifted.lastAppliedLeaves, key) : recordedFields.get(path);
    if (value === undefined || (!drifted.lastAppliedLeaves && drifted.lastApplied !== hashApplied(key, value))) recordedOlder.push(path);
    setField(healed, path, value);
    // The ledger records the reference the put-back value was read from, not the manifests'.
    referencesAt(references, path, recorded.envReferences);
  }
  keepNotCompared(healed, resource, options);
  if (recordedOlder.length > 0) {
    throw new VoxformError('drift_heal_unrecorded', `Cannot heal ${resource.address}: history record ${record.id}, the newest holding it, does not hold what voxform last applied at ${recordedOlder.join(', ')}; nothing was changed.`, {
      hint: `An apply since was not recorded (its read-back failed, or its record could not be written), or a variable the record reads (\${env:…}) is not set as it was then. Set it and heal again, or run \`${options.applyCommand}\` to make the agent match the manifests.`,
    });
  }
  return healed;
}

/** `references` with those at or under `path` replaced by `from`'s there (none when `from` is undefined). */
function referencesAt(references: Record<string, string>, path: string, from: Readonly<Record<string, string>> | undefined): void {
  for (const at of Object.keys(references)) if (isDottedAtOrUnder(at, path)) delete references[at];
  for (const [at, reference] of Object.entries(from ?? {})) if (isDottedAtOrUnder(at, path)) references[at] = reference;
}

/**
 * The recorded leaves under `path` as one object, for a place the service holds in another shape than
 * the one voxform applied (a webhook as a plain URL): undefined unless they are the very leaves the
 * state says were last applied there, each with its hash.
 */
function recordedSubtree(recordedFields: ReadonlyMap<string, unknown>, path: string, lastApplied: Readonly<Record<string, string>>, key: string): JsonObject | undefined {
  const under = [...recordedFields].filter(([at]) => at !== path && isDottedAtOrUnder(at, path));
  if (under.length !== Object.keys(lastApplied).length || !under.every(([at, value]) => lastApplied[at] === hashApplied(key, value))) return undefined;
  const depth = parseDotted(path).length;
  const subtree: JsonObject = {};
  for (const [at, value] of under) setAtPath(subtree, parseDotted(at).slice(depth), cloneJson(value));
  return subtree;
}

/**
 * Sets each place of the agent at `address` not compared (its variable is not set) to the service's
 * value, so the heal writes nothing of its own there. Only a value the state says voxform last applied
 * there is kept: recording any other as applied would pass an edit outside voxform off as voxform's.
 */
function keepNotCompared(healed: DesiredAgent, resource: DriftedResource, options: HealOptions): void {
  const { address } = resource;
  const places = (options.notCompared ?? []).filter((place) => place.address === address);
  // A secret the report found changed outside voxform without its variable (`valueNotShown`) is one of them.
  const changed = resource.fields.flatMap((drifted) => (drifted.valueNotShown === undefined ? [] : [{ field: drifted.field, variables: drifted.valueNotShown }]));
  const unknown = [...changed, ...places.filter((place) => notLastApplied(place, options.fingerprintKey))];
  if (unknown.length > 0) {
    const variables = [...new Set(unknown.flatMap((place) => place.variables))].sort();
    const unset = variables.length > 0 ? variables.join(', ') : 'the variables they read';
    throw new VoxformError(
      'drift_heal_unrecorded',
      `Cannot heal ${address}: ${unknown.map((place) => place.field.path).join(', ')} ${unknown.length === 1 ? 'reads' : 'read'} ${unset}, not set in this run, and the service's value there is not what voxform last applied; nothing was changed.`,
      { hint: `Set ${unset} and heal again (the value is then compared and put back as recorded), or run \`${options.applyCommand}\` with ${variables.length === 1 ? 'it' : 'them'} set.` },
    );
  }
  for (const place of places) {
    setField(healed, place.field.path, place.field.before);
    for (const text of stringLeaves(place.field.before)) options.onSecret?.(text);
  }
}

/** Every string in `value`: what the service holds at a secret place, each one to redact. */
function stringLeaves(value: unknown): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(stringLeaves);
}

/**
 * The desired state that puts the chosen agents back; undefined when none is. `whole`: the chosen
 * records read whole, in the order of `choice.records`.
 */
export function healPlan(choice: HealChoice<unknown>, whole: readonly HistoryRecord[], options: HealOptions): HealPlan | undefined {
  // Grouped by record in the order of the report's agents: the agents come back in that order.
  const byRecord = new Map<HistoryRecord, Array<{ name: string; resource: DriftedResource }>>();
  // Each agent is read from a record by its id, under its name now (the record may hold it under an earlier key).
  const names = new AgentNames([], choice.agents.map(({ name, id }): [string, string] => [name, id]));
  for (const { name, record: index, resource } of choice.agents) {
    const record = whole[index] as HistoryRecord;
    addToList(byRecord, record, { name, resource });
  }
  if (byRecord.size === 0) return undefined;
  const agents = new Map<string, DesiredAgent>();
  const secrets = new Set<string>(options.current.secrets);
  const variables = new Set(options.current.environmentVariables);
  let restored: DesiredState | undefined;
  for (const [record, chosen] of byRecord) {
    // A variable not set reads as withheld: only the fields put back are taken from the record, each checked against the state's hash.
    restored = desiredFromRecord(record, { ...options, agents: chosen.map(({ name }) => name), names, withholdUnsetEnv: true });
    for (const { name, resource } of chosen) {
      const recorded = restored.agents.get(name) as DesiredAgent;
      agents.set(name, healedAgent(recorded, options.current.agents.get(name) ?? recorded, resource, record, options));
    }
    for (const value of restored.secrets) secrets.add(value);
    for (const name of restored.environmentVariables) variables.add(name);
  }
  const ids = whole.map((record) => record.id);
  return {
    records: ids,
    left: choice.agents.flatMap(({ resource }) => resource.fields.filter((field) => !healsField(field)).map((field) => ({ address: resource.address, field }))),
    desired: {
      ...(restored as DesiredState),
      manifestHash: hashValue({ healOf: ids, agents: [...agents.keys()] }),
      agents,
      secrets: [...secrets],
      environmentVariables: [...variables].sort(),
    },
  };
}
