/**
 * Which configuration version each call ran with. The apply history gives, per agent, the runs of
 * deploys with one configuration hash (an apply that left an agent as it was does not start a new
 * version of it); a call's `agent_config` is hashed the way the history hashed the live agent
 * (src/history/config-hash.ts) and matched against them. A configuration the history does not hold
 * was changed outside voxform (the dashboard, another tool) and is its own version, by its hash.
 */
import { configurationHash } from '../history/config-hash.js';
import type { HistoryRecord } from '../history/types.js';
import { canonicalJson } from '../util/hash.js';
import { isPlainObject } from '../util/json-object.js';
import { objectsEqualExcept } from '../util/json-equal.js';

/** A configuration of one agent, as deployed by voxform or as found in calls. */
export interface ConfigVersion {
  /** The history record id that deployed it, or `outside:<hash prefix>`. */
  key: string;
  agentId: string;
  configHash: string;
  deployed?: DeployInfo | undefined;
}

export interface DeployInfo {
  recordId: string;
  /** ISO 8601: when the apply ended. */
  at: string;
  by: string;
  outcome: string;
  commit?: string | undefined;
  branch?: string | undefined;
  pullRequest?: number | undefined;
  ciJobUrl?: string | undefined;
  /** The work tree held changes `commit` does not when it was deployed (see DeploySource). */
  uncommitted?: boolean | undefined;
  /** The local name the manifests give the agent. */
  agentName: string;
  /** Top-level config fields that differ from the version deployed before (names only, never values). */
  changedFields: string[];
  /** The commit of the version before, when known (for a link to the diff). */
  previousCommit?: string | undefined;
}

/** Agents' deployed versions from the history, oldest first per agent id. */
export function deployedVersions(records: readonly HistoryRecord[]): Map<string, Array<ConfigVersion & { maskedPaths: string[]; promptLength?: number | undefined }>> {
  const byAgent = new Map<string, Array<ConfigVersion & { maskedPaths: string[]; promptLength?: number | undefined; config: Record<string, unknown> }>>();
  const oldestFirst = [...records].sort(historyOrder);
  for (const record of oldestFirst) {
    if (record.outcome === 'nothing_to_do') continue;
    for (const [agentName, agent] of Object.entries(record.agents)) {
      if (typeof agent?.id !== 'string' || typeof agent.configHash !== 'string') continue;
      const versions = byAgent.get(agent.id) ?? [];
      const previous = versions[versions.length - 1];
      if (previous?.configHash === agent.configHash) continue;
      versions.push({
        key: record.id,
        agentId: agent.id,
        configHash: agent.configHash,
        maskedPaths: Array.isArray(agent.maskedPaths) ? agent.maskedPaths : [],
        promptLength: typeof agent.promptLength === 'number' ? agent.promptLength : undefined,
        config: isPlainObject(agent.config) ? agent.config : {},
        deployed: {
          recordId: record.id,
          at: record.at,
          by: record.by,
          outcome: record.outcome,
          commit: record.source.commit,
          branch: record.source.branch,
          pullRequest: record.source.pullRequest,
          ciJobUrl: record.source.ciJobUrl,
          uncommitted: record.source.uncommitted,
          agentName,
          changedFields: previous ? changedTopLevelFields(previous.config, isPlainObject(agent.config) ? agent.config : {}) : [],
          previousCommit: previous?.deployed?.commit,
        },
      });
      byAgent.set(agent.id, versions);
    }
  }
  return byAgent;
}

/** The order records were written in: by time, then id. */
export function historyOrder(a: HistoryRecord, b: HistoryRecord): number {
  return a.at.localeCompare(b.at) || a.id.localeCompare(b.id);
}

/** Top-level keys whose values differ between two configs, sorted. */
export function changedTopLevelFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((key) => canonicalJson(before[key] ?? null) !== canonicalJson(after[key] ?? null)).sort();
}

/** Hash outcomes remembered at once; when full, the cache starts again empty (memory stays bounded). */
const CACHE_LIMIT = 1024;
/** Configs changed outside voxform told apart per agent; further ones share one version (memory stays bounded). */
const OUTSIDE_LIMIT = 50;

interface HashGroup {
  maskPaths: string[];
  promptLength: number | undefined;
}

/**
 * A deploy of a version and when the next version's deploy was recorded (ms; Infinity for the
 * latest). Applies of a workspace run one at a time under the state lock, and each writes its record
 * before the next begins, so the version ran from after the record before it until the next
 * version's update returned — before the next version's record.
 */
interface DeployedRun {
  version: ConfigVersion;
  nextAtMs: number;
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
 * Labels calls with their version. Hashing a config is the costly step, so its outcome is cached by
 * the config's text without the prompt, then by the prompt — with a prefetch webhook's extra prompt
 * (different on every call) already cut off, so all the calls of one version share one entry.
 */
export class VersionResolver {
  private readonly agents = new Map<string, AgentVersions>();
  private readonly cache = new Map<string, Map<string, CacheEntry>>();
  private cacheSize = 0;
  private readonly outside = new Map<string, Set<string>>();
  /**
   * Per agent, the last config looked up and its cache entry. An agent's calls nearly all share the
   * config but for the prompt: comparing with the last one finds the entry without serializing the
   * config (the per-call cost that dominated the report's CPU time after parsing).
   */
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
        list.push({ version, nextAtMs: next === undefined ? Infinity : Date.parse(next) });
        byHash.set(version.configHash, list);
      }
      this.agents.set(agentId, { groups: [...groups.values()], byHash });
    }
  }

  /** The version a call of `agentId` at `ts` (Unix seconds) with this `agent_config` ran with. */
  resolve(agentId: string, config: unknown, ts: number): ConfigVersion {
    const agent: AgentVersions = this.agents.get(agentId) ?? { groups: [], byHash: new Map() };
    const hash = this.matchedHash(agentId, agent, isPlainObject(config) ? config : {});
    const candidates = agent.byHash.get(hash);
    if (!candidates) return this.outsideVersion(agentId, hash);
    // The same configuration deployed again later (a rollback) is a new version. A deploy's calls
    // were made before the next version's record (its update returned before the record was
    // written); a later deploy of the same hash went live only after that record. So a call goes to
    // the first deploy of its hash still live at its time — also a call made while its own apply was
    // finishing, before its record — and, made after every one was replaced (the configuration put
    // back outside voxform), to the latest.
    const live = candidates.find((candidate) => ts * 1000 < candidate.nextAtMs) ?? (candidates[candidates.length - 1] as DeployedRun);
    return live.version;
  }

  private outsideVersion(agentId: string, hash: string): ConfigVersion {
    const seen = this.outside.get(agentId) ?? new Set<string>();
    this.outside.set(agentId, seen);
    if (!seen.has(hash) && seen.size >= OUTSIDE_LIMIT) return { key: 'outside:more', agentId, configHash: hash };
    seen.add(hash);
    return { key: `outside:${hash.replace(/^sha256:/, '').slice(0, 12)}`, agentId, configHash: hash };
  }

  /** The deployed hash the config matches (extra prompt cut, secrets masked), else its own hash. */
  private matchedHash(agentId: string, agent: AgentVersions, config: Record<string, unknown>): string {
    const prompt = config.prompt;
    // Copied without the prompt only when needed (a cache miss): most calls never need it.
    let rest: Record<string, unknown> | undefined;
    const restOf = (): Record<string, unknown> => (rest ??= withoutPrompt(config));
    const entry = this.entryOfConfig(agentId, config, restOf, agent.groups.length);
    // Every group's cut prompt before any prompt as it ran: a prompt with a per-call extra prompt
    // is unique, and hashing it (a cache miss each time) is what costs.
    for (const cutOnly of [true, false]) {
      for (const [index, group] of agent.groups.entries()) {
        const candidates = promptCandidates(prompt, group.promptLength);
        const candidate = cutOnly ? (candidates.length > 1 ? candidates[0] : undefined) : candidates[candidates.length - 1];
        if (cutOnly && candidates.length === 1) continue;
        const known = entry.byGroup[index] as Map<unknown, string | null>;
        let hash = known.get(candidate);
        if (hash === undefined) {
          const value = configurationHash(candidate === undefined ? restOf() : { ...restOf(), prompt: candidate }, { maskPaths: group.maskPaths });
          hash = agent.byHash.has(value) ? value : null;
          this.remember(known, candidate, hash);
        }
        if (hash !== null) return hash;
      }
    }
    // Not deployed by voxform: named by its hash, with what looks like an extra prompt (the blank
    // line at a deployed prompt's length) cut off, so per-call extra prompts do not split it.
    const cut = promptCandidates(prompt, agent.groups.find((group) => group.promptLength !== undefined)?.promptLength)[0];
    let hash = entry.outside.get(cut);
    if (hash === undefined) {
      hash = configurationHash(cut === undefined ? restOf() : { ...restOf(), prompt: cut });
      this.remember(entry.outside, cut, hash);
    }
    return hash;
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

function withoutPrompt(config: Record<string, unknown>): Record<string, unknown> {
  const { prompt: _prompt, ...rest } = config;
  return rest;
}

/**
 * The prompts to try, best first: with a prefetch webhook's `extra_prompt` cut off (when the prompt
 * is longer than the deployed one and the rest starts with the blank line the service puts before
 * it; a prompt that was empty becomes the extra prompt alone), then as the call ran it.
 */
export function promptCandidates(prompt: unknown, promptLength: number | undefined): unknown[] {
  if (promptLength === undefined || typeof prompt !== 'string' || prompt.length <= promptLength) return [prompt];
  if (promptLength === 0) return ['', prompt];
  if (prompt.startsWith('\n\n', promptLength)) return [prompt.slice(0, promptLength), prompt];
  return [prompt];
}
