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
  const oldestFirst = [...records].sort((a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id));
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

/** Top-level keys whose values differ between two configs, sorted. */
export function changedTopLevelFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((key) => canonicalJson(before[key] ?? null) !== canonicalJson(after[key] ?? null)).sort();
}

/** Distinct configs remembered at once; past this the least recently used is forgotten (memory stays bounded). */
const CACHE_LIMIT = 256;

interface HashGroup {
  maskPaths: string[];
  promptLength: number | undefined;
}

/**
 * Labels calls with their version. Calls of one version share one `agent_config`, so the hash is
 * computed once per distinct config text (cached, least recently used first out).
 */
export class VersionResolver {
  private readonly cache = new Map<string, string>();
  private readonly groups = new Map<string, HashGroup[]>();

  constructor(private readonly deployed: ReturnType<typeof deployedVersions>) {
    for (const [agentId, versions] of deployed) {
      const groups = new Map<string, HashGroup>();
      for (const version of versions) {
        const groupKey = `${version.promptLength ?? ''}\0${[...version.maskedPaths].sort().join('\0')}`;
        if (!groups.has(groupKey)) groups.set(groupKey, { maskPaths: version.maskedPaths, promptLength: version.promptLength });
      }
      this.groups.set(agentId, [...groups.values()]);
    }
  }

  /** The version a call of `agentId` at `ts` (Unix seconds) with this `agent_config` ran with. */
  resolve(agentId: string, config: unknown, ts: number): ConfigVersion {
    const hash = this.matchedHash(agentId, isPlainObject(config) ? config : {});
    const candidates = (this.deployed.get(agentId) ?? []).filter((version) => version.configHash === hash);
    if (candidates.length === 0) return { key: `outside:${hash.replace(/^sha256:/, '').slice(0, 12)}`, agentId, configHash: hash };
    // The same configuration deployed again later (a rollback) is a new version: the latest deploy
    // before the call; a call just before its deploy's record was written counts to the earliest.
    const before = candidates.filter((version) => Date.parse(version.deployed?.at ?? '') <= ts * 1000);
    return before[before.length - 1] ?? (candidates[0] as ConfigVersion);
  }

  private matchedHash(agentId: string, config: Record<string, unknown>): string {
    const cacheKey = `${agentId}\0${JSON.stringify(config)}`;
    const cached = this.cache.get(cacheKey);
    if (cached !== undefined) {
      this.cache.delete(cacheKey);
      this.cache.set(cacheKey, cached);
      return cached;
    }
    const hash = this.computeHash(agentId, config);
    this.cache.set(cacheKey, hash);
    if (this.cache.size > CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
    return hash;
  }

  private computeHash(agentId: string, config: Record<string, unknown>): string {
    const known = new Set((this.deployed.get(agentId) ?? []).map((version) => version.configHash));
    for (const group of this.groups.get(agentId) ?? []) {
      for (const candidate of withoutExtraPrompt(config, group.promptLength)) {
        const hash = configurationHash(candidate, { maskPaths: group.maskPaths });
        if (known.has(hash)) return hash;
      }
    }
    return configurationHash(config);
  }
}

/**
 * The config as the call ran it, then (when the prompt is longer than the deployed one and the
 * rest starts with the blank line the service puts before it) with a prefetch webhook's
 * `extra_prompt` cut off. A prompt that was empty becomes the extra prompt alone.
 */
export function withoutExtraPrompt(config: Record<string, unknown>, promptLength: number | undefined): Array<Record<string, unknown>> {
  const out = [config];
  const prompt = config.prompt;
  if (promptLength === undefined || typeof prompt !== 'string' || prompt.length <= promptLength) return out;
  if (promptLength === 0) out.push({ ...config, prompt: '' });
  else if (prompt.startsWith('\n\n', promptLength)) out.push({ ...config, prompt: prompt.slice(0, promptLength) });
  return out;
}
