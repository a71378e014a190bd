/**
 * Which configuration version each call ran with: a call's `agent_config` is hashed as the apply
 * history hashed the live agent and matched against its deploys. A configuration the history does
 * not hold was changed outside voxform and is its own version, by its hash.
 */
import { configurationHash } from '../history/config-hash.js';
import { ledgerOrder, ledgerTimes } from '../history/ledger-order.js';
import { configFieldKeys, type AgentSummary, type AgentVersion, type LedgerRecord } from '../history/types.js';
import { shortHash } from '../util/hash.js';
import { isPlainObject } from '../util/json-object.js';
import { objectsEqualExcept } from '../util/json-equal.js';

/** A configuration of one agent, as deployed by voxform or as found in calls. */
export interface ConfigVersion {
  /** The history record id that deployed it, or `outside:<hash prefix>`. */
  key: string;
  agentId: string;
  configHash: string;
  deployed?: DeployInfo | undefined;
  /** Heals (`drift --heal`) that put this configuration back after a change outside voxform, oldest first. */
  heals?: DeployInfo[] | undefined;
}

export interface DeployInfo {
  recordId: string;
  /**
   * ISO 8601: when the apply ended, as its record says; or, when the applying machine's clock put it
   * before a record appended earlier, that record's time (`ledgerTimes`): deploys keep the ledger's order.
   */
  at: string;
  by: string;
  outcome: string;
  commit?: string | undefined;
  branch?: string | undefined;
  pullRequest?: number | undefined;
  ciJobUrl?: string | undefined;
  /** The work tree held changes `commit` does not when it was deployed (see DeploySource). */
  uncommitted?: boolean | undefined;
  /** On a promotion: the source's workspace and record (see DeploySource). */
  promotedFrom?: { workspace: string; record: string } | undefined;
  /**
   * On a rollback: the record whose configuration it restored, and the commit that configuration was
   * deployed from (through a rollback to a rollback): the rollback's own commit is only the one
   * checked out when it ran.
   */
  rollbackOf?: { record: string; commit?: string | undefined; uncommitted?: boolean | undefined } | undefined;
  /** The local name the manifests give the agent. */
  agentName: string;
  /**
   * Top-level config fields that differ from the version deployed before (names only, never values);
   * null when the configuration before is not in the history: the agent's first deploy in it, or a
   * heal, which replaced a configuration changed outside voxform.
   */
  changedFields: string[] | null;
  /** The commit of the version before, when known (for a link to the diff). */
  previousCommit?: string | undefined;
}

/** Agents' deployed versions from the history (whole records or summaries), oldest first per agent id (in the ledger's order). */
export function deployedVersions(records: readonly LedgerRecord[]): Map<string, Array<ConfigVersion & { maskedPaths: string[]; promptLength?: number | undefined; liveFrom?: string | undefined }>> {
  const byAgent = new Map<string, Array<ConfigVersion & { maskedPaths: string[]; promptLength?: number | undefined; liveFrom?: string | undefined; fields: Record<string, string> }>>();
  const oldestFirst = [...records].sort(ledgerOrder);
  const times = ledgerTimes(oldestFirst);
  const byId = new Map(records.map((record) => [record.id, record]));
  for (const [index, record] of oldestFirst.entries()) {
    const at = times.get(record.id) as string;
    // The deploy began after the record before it, whoever's apply wrote that one: its calls came no earlier.
    const liveFrom = index === 0 ? undefined : times.get((oldestFirst[index - 1] as LedgerRecord).id);
    if (record.outcome === 'nothing_to_do') continue;
    for (const [agentName, agent] of Object.entries(record.agents)) {
      if (typeof agent?.id !== 'string' || typeof agent.configHash !== 'string') continue;
      const versions = byAgent.get(agent.id) ?? [];
      const previous = versions[versions.length - 1];
      if (previous?.configHash === agent.configHash) {
        // Not a new version, but a heal changed the agent: back from a configuration changed outside voxform.
        if (record.source.healOf && previous.deployed) (previous.heals ??= []).push({ ...deployInfo(record, at, agentName, byId), changedFields: null });
        continue;
      }
      const fields = fieldKeysOf(agent);
      versions.push({
        key: record.id,
        agentId: agent.id,
        configHash: agent.configHash,
        maskedPaths: Array.isArray(agent.maskedPaths) ? agent.maskedPaths : [],
        promptLength: typeof agent.promptLength === 'number' ? agent.promptLength : undefined,
        liveFrom,
        fields,
        deployed: {
          ...deployInfo(record, at, agentName, byId),
          changedFields: previous ? changedFieldKeys(previous.fields, fields) : null,
          previousCommit: previous?.deployed?.commit,
        },
      });
      byAgent.set(agent.id, versions);
    }
  }
  return byAgent;
}

/** Each top-level field's hash of a version's configuration: a summary keeps them; a whole record's are taken here. */
function fieldKeysOf(agent: AgentVersion | AgentSummary): Record<string, string> {
  if ('fieldKeys' in agent) return agent.fieldKeys;
  return configFieldKeys(isPlainObject(agent.config) ? agent.config : {});
}

/** What a record says of a deploy of one agent, at its time on the ledger's timeline, but for what it changed. */
function deployInfo(record: LedgerRecord, at: string, agentName: string, byId: ReadonlyMap<string, LedgerRecord>): Omit<DeployInfo, 'changedFields' | 'previousCommit'> {
  return {
    recordId: record.id,
    at,
    by: record.by,
    outcome: record.outcome,
    commit: record.source.commit,
    branch: record.source.branch,
    pullRequest: record.source.pullRequest,
    ciJobUrl: record.source.ciJobUrl,
    uncommitted: record.source.uncommitted,
    promotedFrom: record.source.promotedFrom,
    rollbackOf: record.source.rollbackOf === undefined ? undefined : { record: record.source.rollbackOf, ...restoredSource(record, byId) },
    agentName,
  };
}

/**
 * The commit a rollback's configuration was deployed from: the restored record's, followed through
 * a rollback to a rollback; none when a record on the way is not in the history, or they loop.
 */
function restoredSource(rollback: LedgerRecord, byId: ReadonlyMap<string, LedgerRecord>): { commit?: string | undefined; uncommitted?: boolean | undefined } {
  const followed = new Set<string>();
  let record = rollback;
  for (let restoredId = record.source.rollbackOf; restoredId !== undefined; restoredId = record.source.rollbackOf) {
    const restored = byId.get(restoredId);
    // A ledger is untrusted input: a record restored twice on the way is a loop.
    if (!restored || followed.has(restoredId)) return {};
    followed.add(restoredId);
    record = restored;
  }
  return { commit: record.source.commit, uncommitted: record.source.uncommitted };
}

/** Top-level keys whose values differ between two configs' `configFieldKeys` (a key absent is null), sorted. */
function changedFieldKeys(before: Record<string, string>, after: Record<string, string>): string[] {
  // A field absent counts as null, as in the config.
  const absent = configFieldKeys({ field: null }).field;
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((key) => (Object.hasOwn(before, key) ? before[key] : absent) !== (Object.hasOwn(after, key) ? after[key] : absent)).sort();
}

/** Hash outcomes remembered at once; when full, the cache starts again empty. */
const CACHE_LIMIT = 1024;
/** Configs changed outside voxform told apart per agent; further ones share one version. */
const OUTSIDE_LIMIT = 50;

interface HashGroup {
  maskPaths: string[];
  promptLength: number | undefined;
}

/**
 * One deploy of a version and the window it can have served calls in (ms): applies run one at a
 * time, each recording before the next begins, so it was live from the ledger's record before its
 * deploy (any apply's) to the record of the agent's next version.
 */
interface DeployedRun {
  version: ConfigVersion;
  fromMs: number;
  untilMs: number;
}

interface AgentVersions {
  groups: HashGroup[];
  /** Deployed hashes, each with its deploys oldest first. */
  byHash: Map<string, DeployedRun[]>;
}

/** What is known of one config text (the config without its prompt): the outcome per group and prompt. */
interface CacheEntry {
  byGroup: Array<Map<unknown, string | null>>;
  outside: Map<unknown, string>;
}

/**
 * Labels calls with their version: the one whose configuration it ran with exactly, else, with a
 * prefetch webhook's extra prompt cut off, one live at the call's time (a deploy that appended to
 * the prompt looks like the one before plus an extra prompt). Hashes are cached by the config's
 * text without the prompt, then by the prompt.
 */
export class VersionResolver {
  private readonly agents = new Map<string, AgentVersions>();
  private readonly cache = new Map<string, Map<string, CacheEntry>>();
  private cacheSize = 0;
  private readonly outside = new Map<string, Set<string>>();
  /** Per agent, the last config looked up and its entry: most calls differ from it only in the prompt. */
  private readonly lastConfig = new Map<string, { config: Record<string, unknown>; entry: CacheEntry }>();

  constructor(deployed: ReturnType<typeof deployedVersions>) {
    for (const [agentId, versions] of deployed) {
      const groups = new Map<string, HashGroup>();
      const byHash = new Map<string, DeployedRun[]>();
      for (const [index, version] of versions.entries()) {
        const groupKey = `${version.promptLength ?? ''}\0${[...version.maskedPaths].sort().join('\0')}`;
        if (!groups.has(groupKey)) groups.set(groupKey, { maskPaths: version.maskedPaths, promptLength: version.promptLength });
        const list = byHash.get(version.configHash) ?? [];
        const next = versions[index + 1]?.deployed?.at;
        list.push({ version, fromMs: version.liveFrom === undefined ? -Infinity : Date.parse(version.liveFrom), untilMs: next === undefined ? Infinity : Date.parse(next) });
        byHash.set(version.configHash, list);
      }
      this.agents.set(agentId, { groups: [...groups.values()], byHash });
    }
  }

  /** The version a call of `agentId` at `ts` (Unix seconds) with this `agent_config` ran with. */
  resolve(agentId: string, agentConfig: unknown, ts: number): ConfigVersion {
    const agent: AgentVersions = this.agents.get(agentId) ?? { groups: [], byHash: new Map() };
    const config = isPlainObject(agentConfig) ? agentConfig : {};
    const prompt = config.prompt;
    const atMs = ts * 1000;
    let rest: Record<string, unknown> | undefined;
    const restOf = (): Record<string, unknown> => (rest ??= withoutPrompt(config));
    const entry = this.entryOfConfig(agentId, config, restOf, agent.groups.length);
    const deployedHash = (groupIndex: number, candidate: unknown): string | null => {
      const group = agent.groups[groupIndex] as HashGroup;
      const known = entry.byGroup[groupIndex] as Map<unknown, string | null>;
      let hash = known.get(candidate);
      if (hash === undefined) {
        const value = configurationHash(candidate === undefined ? restOf() : { ...restOf(), prompt: candidate }, { maskPaths: group.maskPaths });
        hash = agent.byHash.has(value) ? value : null;
        this.remember(known, candidate, hash);
      }
      return hash;
    };

    for (const [index, group] of agent.groups.entries()) {
      if (!couldBeExact(prompt, group)) continue;
      const hash = deployedHash(index, prompt);
      if (hash === null) continue;
      const deploys = agent.byHash.get(hash) as DeployedRun[];
      // A rollback redeploys a hash as a new version: a call goes to the first deploy of its hash
      // not yet replaced at its time, else (put back outside voxform) to the latest.
      return (deploys.find((deploy) => atMs < deploy.untilMs) ?? (deploys[deploys.length - 1] as DeployedRun)).version;
    }

    // No exact match: the extra prompt cut off, towards a version live at the call's time; of two
    // (a call during an apply), the longer deployed prompt.
    let best: { version: ConfigVersion; promptLength: number } | undefined;
    for (const [index, group] of agent.groups.entries()) {
      const cut = extraPromptCut(prompt, group.promptLength);
      if (cut === undefined || group.promptLength === undefined || (best && best.promptLength >= group.promptLength)) continue;
      const hash = deployedHash(index, cut);
      const live = hash === null ? undefined : agent.byHash.get(hash)?.find((deploy) => deploy.fromMs <= atMs && atMs < deploy.untilMs);
      if (live) best = { version: live.version, promptLength: group.promptLength };
    }
    if (best) return best.version;

    // Not deployed by voxform: hashed with what looks like an extra prompt cut off, so per-call
    // extra prompts do not split it.
    const cut = extraPromptCut(prompt, agent.groups.find((group) => group.promptLength !== undefined)?.promptLength) ?? prompt;
    let hash = entry.outside.get(cut);
    if (hash === undefined) {
      hash = configurationHash(cut === undefined ? restOf() : { ...restOf(), prompt: cut });
      this.remember(entry.outside, cut, hash);
    }
    return this.outsideVersion(agentId, hash);
  }

  private outsideVersion(agentId: string, hash: string): ConfigVersion {
    const seen = this.outside.get(agentId) ?? new Set<string>();
    this.outside.set(agentId, seen);
    if (!seen.has(hash) && seen.size >= OUTSIDE_LIMIT) return { key: 'outside:more', agentId, configHash: hash };
    seen.add(hash);
    return { key: `outside:${shortHash(hash)}`, agentId, configHash: hash };
  }

  /** The cache entry of the config's text without its prompt: the last one when the config is the last one's but for the prompt. */
  private entryOfConfig(agentId: string, config: Record<string, unknown>, restOf: () => Record<string, unknown>, groups: number): CacheEntry {
    const last = this.lastConfig.get(agentId);
    if (last && objectsEqualExcept(config, last.config, 'prompt')) return last.entry;
    const entry = this.entryFor(agentId, JSON.stringify(restOf()), groups);
    this.lastConfig.set(agentId, { config, entry });
    return entry;
  }

  private entryFor(agentId: string, restText: string, groups: number): CacheEntry {
    let byText = this.cache.get(agentId);
    if (!byText) this.cache.set(agentId, (byText = new Map()));
    let entry = byText.get(restText);
    if (!entry) {
      entry = { byGroup: Array.from({ length: groups }, () => new Map()), outside: new Map() };
      byText.set(restText, entry);
      this.cacheSize++;
    }
    return entry;
  }

  private remember<T>(map: Map<unknown, T>, key: unknown, value: T): void {
    if (this.cacheSize >= CACHE_LIMIT) {
      this.cache.clear();
      // The last entries too: one kept here would go on growing outside the limit.
      this.lastConfig.clear();
      this.cacheSize = 0;
    }
    map.set(key, value);
    this.cacheSize++;
  }
}

/**
 * Whether a call's prompt can be a group's deployed prompt: not one of another length (so unique
 * extra prompts are not hashed per call), unless the prompt is masked (from `${env:…}`).
 */
function couldBeExact(prompt: unknown, group: HashGroup): boolean {
  if (group.promptLength === undefined || typeof prompt !== 'string' || prompt.length === group.promptLength) return true;
  return group.maskPaths.includes('prompt');
}

function withoutPrompt(config: Record<string, unknown>): Record<string, unknown> {
  const { prompt: _prompt, ...rest } = config;
  return rest;
}

/**
 * The prompt with a prefetch webhook's `extra_prompt` cut off: the rest past the deployed length
 * starts with the blank line the service puts before it (or the deployed prompt was empty).
 */
export function extraPromptCut(prompt: unknown, promptLength: number | undefined): string | undefined {
  if (promptLength === undefined || typeof prompt !== 'string' || prompt.length <= promptLength) return undefined;
  if (promptLength === 0) return '';
  return prompt.startsWith('\n\n', promptLength) ? prompt.slice(0, promptLength) : undefined;
}
