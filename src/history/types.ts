/**
 * The deploy ledger: one record per apply, kept by the state backend (the file backend under
 * `.voxform/history/`, PostgreSQL in a table). It answers "who deployed what, from which commit",
 * gives `voxform rollback` the configurations to return to, and gives the call report each
 * configuration's commit (through `AgentVersion.configHash`, see src/history/config-hash.ts).
 * A record never holds a secret: values filled from `${env:…}` are kept as their references.
 */
import { hashValue } from '../util/hash.js';

/** Where the change came from, as far as the CI environment or `git` tells. */
export interface DeploySource {
  /** The full commit id of the work tree (or the CI's commit). */
  commit?: string | undefined;
  branch?: string | undefined;
  /** The pull/merge request number, when the CI names it. */
  pullRequest?: number | undefined;
  /** A link to the CI job that ran the apply, when known. */
  ciJobUrl?: string | undefined;
  /**
   * The work tree held changes `commit` does not (edited, staged or new files) when the apply ran:
   * what was deployed is that commit with those changes. Unknown (absent) without `git`, and in
   * records written before voxform asked.
   */
  uncommitted?: boolean | undefined;
  /** Set on a rollback: the id of the history record whose configuration was restored. */
  rollbackOf?: string | undefined;
}

/** One agent as an apply left it. */
export interface AgentVersion {
  /** The live agent's id. */
  id: string;
  /** The display name voxform manages, when it does. */
  name?: string | undefined;
  /**
   * The fields the manifest owns, as applied (the update shape, prompt text inline), with every
   * value filled from `${env:NAME}` written back as `${env:NAME}`. What rollback applies again.
   */
  config: Record<string, unknown>;
  /** Knowledge files attached, by local name, when the manifest manages them. */
  knowledge?: string[] | undefined;
  /** `configurationHash` of the agent's whole live configuration after the apply (env paths masked). */
  configHash: string;
  /** The `maskPaths` the hash was taken with (config paths filled from `${env:…}`). */
  maskedPaths: string[];
  /**
   * Characters of the live prompt after apply. A prefetch webhook's `extra_prompt` is appended to
   * a call's prompt; the report cuts the call's prompt back to this length before hashing.
   */
  promptLength?: number | undefined;
  /**
   * Paths (from the agent entry, `config.tools.0.header.authorization`) of secrets the manifest
   * wrote literally instead of as `${env:…}`: recorded as `(sensitive)`, so a rollback cannot
   * restore them and refuses the agent.
   */
  unrecordedSecrets?: string[] | undefined;
}

export interface HistoryRecord {
  /** Unique and sortable by time: `20261123T120501Z-3f9a2c`. */
  id: string;
  /** The workspace (`ENV@SERVICE`) the apply ran against. */
  workspace: string;
  /** ISO 8601: when the apply ended. */
  at: string;
  /** `user@host` of the run. */
  by: string;
  /** The command as typed, without secrets. */
  command: string;
  /** How the apply ended: `applied`, `failed` (some changes failed or were skipped), `interrupted`, `nothing_to_do`. */
  outcome: string;
  source: DeploySource;
  summary: DeploySummary;
  /** Every agent of the workspace's manifests, by local name, as the apply left it. */
  agents: Record<string, AgentVersion>;
}

/**
 * What an apply did: its plan's counts (the plan's `PlanSummary`) and how many of its changes
 * applied, failed, were skipped. Records are stored and read back by later versions of voxform, so
 * their fields are written out here rather than taken from the plan's in-memory types: a field added
 * to a plan does not change what a record holds.
 */
export interface DeploySummary {
  create: number;
  update: number;
  unchanged: number;
  drifted: number;
  applied: number;
  failed: number;
  skipped: number;
}

/** A stored record that is not a history record (src/history/check-record.ts): skipped, and said why. */
export interface SkippedRecord {
  /** Where it is kept: the file, or the record's id. */
  where: string;
  /** `field: what is wrong`. */
  problem: string;
}

export interface HistoryQuery {
  workspace: string;
  /** Only records that hold that agent. */
  agent?: string | undefined;
  limit?: number | undefined;
  /** Hears each stored record that is skipped because it is damaged or foreign. */
  onSkipped?: ((skipped: SkippedRecord) => void) | undefined;
}

/** Where history records are kept: implemented by each state backend. */
export interface HistoryStore {
  /** Appends a record; its id is assigned here. Resolves once the record is stored. */
  append(record: Omit<HistoryRecord, 'id'>): Promise<HistoryRecord>;
  /**
   * Records of a workspace, newest first; with `agent`, only records that hold that agent. Each is
   * checked whole (check-record.ts): one that holds no record is skipped and told to `onSkipped`.
   */
  list(query: HistoryQuery): Promise<HistoryRecord[]>;
}

/**
 * The agent a record holds under a local name, if it holds one. Only the record's own names count:
 * `toString` and `constructor` are legal agent names, and a plain lookup would find them on every
 * record.
 */
export function recordedAgent(record: Pick<HistoryRecord, 'agents'>, name: string): AgentVersion | undefined {
  return Object.hasOwn(record.agents, name) ? record.agents[name] : undefined;
}

/** A deploy's commit as people read it: `3f9a2c1`, or `3f9a2c1 with uncommitted changes` (see `DeploySource.uncommitted`). */
export function shortCommit(commit: string, uncommitted: boolean | null | undefined): string {
  return `${commit.slice(0, 7)}${uncommitted ? ' with uncommitted changes' : ''}`;
}

/**
 * What tells two versions of an agent apart: the live hash (which masks secrets), and the recorded
 * configuration (which holds a secret's reference: a change of `${env:…}` alone is a new version).
 */
export function agentVersionKey(version: AgentVersion): string {
  return `${version.configHash} ${hashValue({ name: version.name ?? null, config: version.config })}`;
}
