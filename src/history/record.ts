/**
 * What the ledger keeps of an agent and an apply, never a secret: a `${env:…}` value is written back
 * as its reference (a rollback reads it again), a literal secret is redacted and listed in
 * `unrecordedSecrets`, other text that looks like a reference is escaped (`$${env:…}`).
 */
import type { DesiredAgent } from '../manifest/types.js';
import { configSecretSet } from '../secrets/schema-paths.js';
import { formatDotted, isDottedAtOrUnder, type PathSegment } from '../util/field-path.js';
import { isPlainObject } from '../util/json-object.js';
import { REDACTED } from '../secrets/redact.js';
import { configurationHash } from './config-hash.js';
import type { AgentVersion, DeploySource, DeploySummary, HistoryRecord } from './types.js';

/** Text that is not a reference stays that text when read again as a manifest value. */
function escapeReferences(text: string): string {
  // A function, not a replacement string: in one, `$$` would mean a single `$`.
  return text.replaceAll('${env:', () => '$${env:');
}

/** Config paths (dotted, from the config) whose values came from `${env:…}`: the hash's `maskPaths`. */
export function envConfigPaths(agent: DesiredAgent): string[] {
  if (!agent.envReferences) return [...agent.sensitivePaths];
  return Object.keys(agent.envReferences)
    .filter((path) => path.startsWith('config.'))
    .map((path) => path.slice('config.'.length))
    .sort();
}

/** Whether a place in a config holds a secret by the schema (src/secrets/schema-paths.ts). */
function isSchemaSecret(at: readonly PathSegment[]): boolean {
  return configSecretSet().covers(at);
}

/** The agent's managed config as the ledger records it, ignored paths left out, with the secrets not recorded. */
export function recordedAgentConfig(agent: DesiredAgent): { name: string | undefined; config: Record<string, unknown>; unrecordedSecrets: string[] } {
  const references = agent.envReferences ?? {};
  const envPaths = new Set(envConfigPaths(agent).map((path) => `config.${path}`));
  const unrecordedSecrets: string[] = [];
  const recordLeaf = (value: unknown, dotted: string, secret: boolean): unknown => {
    const reference = references[dotted];
    if (reference !== undefined) return reference;
    if (envPaths.has(dotted) || (secret && value !== null)) {
      unrecordedSecrets.push(dotted);
      return REDACTED;
    }
    return typeof value === 'string' ? escapeReferences(value) : value;
  };
  const walk = (value: unknown, at: PathSegment[]): unknown => {
    const dotted = formatDotted(['config', ...at]);
    if (agent.ignore.some((ignored) => isDottedAtOrUnder(dotted, ignored))) return undefined;
    if (Array.isArray(value)) return value.map((item, index) => walk(item, [...at, index]));
    if (isPlainObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value)) {
        const recorded = walk(child, [...at, key]);
        if (recorded !== undefined) out[key] = recorded;
      }
      return out;
    }
    return recordLeaf(value, dotted, isSchemaSecret(at));
  };
  const config = walk(agent.config, []) as Record<string, unknown>;
  const nameIgnored = agent.ignore.includes('name');
  const name = agent.name === undefined || nameIgnored ? undefined : (recordLeaf(agent.name, 'name', false) as string);
  return { name, config, unrecordedSecrets };
}

/**
 * One agent as an apply left it: its recorded config, and its live config's hash (secrets masked) and
 * prompt length. The recorded config is the manifest's: only for an agent that the apply changed, or
 * whose live config holds the manifest's values (src/apply/record-history.ts decides).
 */
export function agentVersion(agent: DesiredAgent, liveConfig: Record<string, unknown>): AgentVersion {
  const recorded = recordedAgentConfig(agent);
  const maskedPaths = envConfigPaths(agent);
  const prompt = liveConfig.prompt;
  const version: AgentVersion = {
    id: agent.id,
    name: recorded.name,
    config: recorded.config,
    knowledge: agent.knowledge === undefined ? undefined : [...agent.knowledge],
    configHash: configurationHash(liveConfig, { maskPaths: maskedPaths }),
    maskedPaths,
    promptLength: typeof prompt === 'string' ? prompt.length : undefined,
  };
  if (recorded.unrecordedSecrets.length > 0) version.unrecordedSecrets = recorded.unrecordedSecrets;
  return version;
}

interface RecordInput {
  workspace: string;
  at: Date;
  by: string;
  command: string;
  outcome: string;
  source: DeploySource;
  /** The plan's counts (its `summary`). */
  planned: Pick<DeploySummary, 'create' | 'update' | 'unchanged' | 'drifted'>;
  counts: Pick<DeploySummary, 'applied' | 'partlyApplied' | 'failed' | 'skipped' | 'notApplied'>;
  agents: Record<string, AgentVersion>;
}

/** The record of one apply, ready for `HistoryStore.append` (which gives it its id). */
export function historyRecord(input: RecordInput): Omit<HistoryRecord, 'id'> {
  // Field by field: a plan's summary is a wider in-memory type, and a record keeps these only.
  const { planned } = input;
  return {
    workspace: input.workspace,
    at: input.at.toISOString(),
    by: input.by,
    command: input.command,
    outcome: input.outcome,
    source: input.source,
    summary: { create: planned.create, update: planned.update, unchanged: planned.unchanged, drifted: planned.drifted, ...input.counts },
    agents: input.agents,
  };
}
