/**
 * Which agent a local name stands for across the history. An agent is the service agent its id
 * names; a key is only its name now. Asked for "the agent NAME" in an older record, history finds
 * the agent with the id NAME has now, under whatever name that record holds it: its records from
 * before a renamed key (`front-desk:` became `reception:`, the same `id:`) or two swapped keys are
 * its own, and a record where NAME was another agent (before its `id:` changed) does not hold it.
 */
import { addToList } from '../util/map-lists.js';

/** A history record or a test run: what each holds of an agent, by local name. */
interface AgentHolder<V extends { id: string }> {
  agents: Record<string, V>;
}

/**
 * Each holder's keys by agent id, made once per holder: a lookup by id is asked of every older
 * record for every agent, and a record (a pull request may plant one) can hold thousands of agents.
 */
const keysById = new WeakMap<AgentHolder<{ id: string }>, Map<string, string[]>>();

/** The keys `holder` holds agent `id` under (two keys may hold one agent). */
export function keysOfAgent(holder: AgentHolder<{ id: string }>, id: string): readonly string[] {
  let index = keysById.get(holder);
  if (!index) {
    index = new Map();
    for (const [key, version] of Object.entries(holder.agents)) addToList(index, version.id, key);
    keysById.set(holder, index);
  }
  return index.get(id) ?? [];
}

/** The version of agent `id` in `holder`: under `name` when it holds it there, else under its one other key. */
export function versionOfAgent<V extends { id: string }>(holder: AgentHolder<V>, name: string, id: string): V | undefined {
  // Own names only, as `toString` is a legal agent name.
  const own = Object.hasOwn(holder.agents, name) ? holder.agents[name] : undefined;
  if (own?.id === id) return own;
  const keys = keysOfAgent(holder, id);
  return keys.length === 1 ? holder.agents[keys[0] as string] : undefined;
}

export class AgentNames {
  /** Each name some agent has now, with that agent's id. */
  private readonly ids = new Map<string, string>();
  /** Each agent id's names now (two keys may name one agent). */
  private readonly names = new Map<string, string[]>();

  /**
   * `records`: the workspace's, newest first; `manifestAgents`: the manifests' keys now, each with its
   * agent's id. A key of the manifests has its `id:`; any other name, the id it has in the newest
   * record holding that agent, unless the manifests name that agent or give that name to another.
   */
  constructor(records: readonly AgentHolder<{ id: string }>[], manifestAgents: Iterable<readonly [string, string]> = []) {
    for (const [name, id] of manifestAgents) this.ids.set(name, id);
    const seen = new Set(this.ids.values());
    for (const record of records) {
      const found: Array<[string, string]> = [];
      for (const [name, version] of Object.entries(record.agents)) if (!seen.has(version.id) && !this.ids.has(name)) found.push([name, version.id]);
      for (const version of Object.values(record.agents)) seen.add(version.id);
      for (const [name, id] of found) this.ids.set(name, id);
    }
    for (const [name, id] of this.ids) addToList(this.names, id, name);
  }

  /** The id of the agent `name` stands for now; undefined for a name no agent has now (an old name). */
  idNow(name: string): string | undefined {
    return this.ids.get(name);
  }

  /**
   * Why a record holding `name` as agent `idThen` does not hold the agent `name` stands for now, for
   * an error to end with: `billing` given another `id:` since. Empty when that is not why.
   */
  anotherAgentNote(name: string, idThen: string | undefined): string {
    const now = this.ids.get(name);
    if (idThen === undefined || now === undefined || idThen === now) return '';
    return ` ("${name}" is agent ${now} now; the "${name}" recorded is another agent, ${idThen}: its \`id:\` changed since, and a rollback returns an agent to its own earlier configuration only)`;
  }

  /**
   * The agent `name` stands for now, as `record` holds it: the version of its id, under that name or
   * another. A name no agent has now (an old name) is looked up as the record spells it.
   */
  versionIn<V extends { id: string }>(record: AgentHolder<V>, name: string): V | undefined {
    const id = this.ids.get(name);
    // Own names only, as `toString` is a legal agent name.
    if (id === undefined) return Object.hasOwn(record.agents, name) ? record.agents[name] : undefined;
    return versionOfAgent(record, name, id);
  }

  /**
   * The names now of the agent a record holds as `recorded`: that name while it still stands for it,
   * else every name its id has now; none when no name stands for it (its name given to another agent).
   */
  namesNow(recorded: string, version: { id: string }): readonly string[] {
    const names = this.namesOf(version.id);
    return names.includes(recorded) ? [recorded] : names;
  }

  /**
   * Each name of `wanted`, with the newest of `records` (newest first) holding the agent it stands
   * for now (`versionIn`), found in one walk: asked name by name, a ledger of many records that do not
   * hold them cost their number for each name.
   */
  newestHolding<R extends AgentHolder<{ id: string }>>(records: Iterable<R>, wanted: Iterable<string>): Map<string, R> {
    const pending = new Set(wanted);
    const found = new Map<string, R>();
    for (const record of records) {
      if (pending.size === 0) break;
      // A record holds the agent a name stands for under that name or under a key of the agent's id.
      for (const [key, version] of Object.entries(record.agents)) {
        for (const name of [key, ...this.namesOf(version.id)]) {
          if (!pending.has(name) || this.versionIn(record, name) === undefined) continue;
          found.set(name, record);
          pending.delete(name);
        }
      }
    }
    return found;
  }

  /** Every name agent `id` has now (two keys may name one agent). */
  namesOf(id: string): readonly string[] {
    return this.names.get(id) ?? [];
  }
}
