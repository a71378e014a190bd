/**
 * An agent's records across a rename of its manifest key (`front-desk:` became `reception:`, the same
 * `id:`): the records before the rename hold it under its old name. Asked by the name it has now, a
 * record gives the agent under either name, so history, rollback and report follow it.
 */

/** A history record or a test run: what each holds of an agent, by local name. */
interface AgentHolder<V extends { id: string }> {
  agents: Record<string, V>;
}

export class AgentNames {
  /** Each agent id's names in the newest record holding it (two keys may name one agent). */
  private readonly current = new Map<string, string[]>();
  /** Every name some agent has in the newest record holding it: a name in use, never an old one. */
  private readonly inUse = new Set<string>();

  /** `records`: the workspace's, newest first; `manifestNames`: the keys the manifests give agents now, never an old name. */
  constructor(records: readonly AgentHolder<{ id: string }>[], manifestNames: Iterable<string> = []) {
    for (const record of records) {
      const found = new Map<string, string[]>();
      for (const [name, version] of Object.entries(record.agents)) {
        if (!this.current.has(version.id)) found.set(version.id, [...(found.get(version.id) ?? []), name]);
      }
      for (const [id, names] of found) this.current.set(id, names);
    }
    for (const names of this.current.values()) for (const name of names) this.inUse.add(name);
    for (const name of manifestNames) this.inUse.add(name);
  }

  /** The agent named `name` now, as `record` holds it: under that name, else under an earlier name of its id. */
  versionIn<V extends { id: string }>(record: AgentHolder<V>, name: string): V | undefined {
    // Own names only, as `toString` is a legal agent name.
    if (Object.hasOwn(record.agents, name)) return record.agents[name];
    for (const [recorded, version] of Object.entries(record.agents)) {
      if (this.nameNow(recorded, version) === name) return version;
    }
    return undefined;
  }

  /**
   * The name now of the agent a record holds as `recorded`: that name while some agent has it, else
   * the one name its id has in the newest record (with several, which one it became is unknown).
   */
  nameNow(recorded: string, version: { id: string }): string {
    const names = this.current.get(version.id) ?? [];
    return this.inUse.has(recorded) || names.length !== 1 ? recorded : (names[0] as string);
  }
}
