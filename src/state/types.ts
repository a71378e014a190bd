import { keyedHash } from '../util/hash.js';
import type { STATE_FORMAT_VERSION } from './format-version.js';
import { controlsAsQuestionMarks } from '../util/printable.js';

/**
 * The state keeps only what the service cannot tell: knowledge file ids, campaigns' last-applied
 * values, and hashes of what voxform applied (for drift). Never a secret: hashes are keyed
 * (`hashApplied`) with a key the file does not hold, so they cannot be tested against guesses offline.
 */
export interface StateFile {
  /** The format, as written (src/state/format-version.ts); a state of an older format is read as this one. */
  version: typeof STATE_FORMAT_VERSION;
  /** Increases on every write: a reader can tell two states apart at a glance. */
  serial: number;
  /** One workspace per environment and service: `default@https://api-west.millis.ai`. */
  workspaces: Record<string, WorkspaceState>;
}

export interface WorkspaceState {
  agents: Record<string, AgentState>;
  phones: Record<string, PhoneState>;
  campaigns: Record<string, CampaignState>;
  knowledge: Record<string, KnowledgeState>;
  credentials: Record<string, CredentialState>;
  /** Names (never values) of the variables the manifests read at the last apply, so a plan marks new ones. */
  environmentVariables?: string[];
  /** What the last apply to this workspace did, for `voxform status`. Absent until an apply records it. */
  lastApply?: LastApply;
}

/** The record of an apply, written when it ends (also when some changes failed). */
export interface LastApply {
  /** ISO 8601: when the apply ended. */
  at: string;
  /** `user@host` of the run. */
  by: string;
  /** The command as typed, without secrets (`voxform apply plan.json`). */
  command: string;
  /** `applied`, `failed` (some changes failed or were skipped), `interrupted` or `nothing_to_do`. */
  outcome: string;
  applied: number;
  /** Changes some of whose requests reached the service before the run stopped; absent in a state older than this field. */
  partlyApplied?: number;
  failed: number;
  skipped: number;
  /** Changes the run stopped before; absent in a state older than this field. */
  notApplied?: number;
}

export interface AgentState {
  id: string;
  /** Field path (`name`, `config.prompt`, …) → `sha256:` of the value voxform last applied there. */
  applied: Record<string, string>;
  /**
   * The `fingerprintKeyId` of the key `applied` is hashed with: under another key (the API key
   * rotated since) the hashes tell nothing. Absent in a state older than this field: taken to be the current key's.
   */
  fingerprintKeyId?: string;
  /**
   * The paths of `applied` this environment's applies found live as its manifests want and never
   * sent: it keeps those values, and claims them not from another environment sharing the agent
   * (`findSharedConflicts`). Absent (a state older than this field): every path counts as sent.
   */
  foundLive?: string[];
}

export interface PhoneState {
  /** The agent id voxform last bound the number to, or found it bound to as the manifests want. */
  agentId: string | undefined;
  imported: boolean;
  /**
   * Set when this environment's applies found the number bound to `agentId` and sent nothing: it
   * keeps the number where it is, and claims it not from another environment (`findSharedConflicts`).
   * Absent: an apply of this environment bound it (or a state older than this field).
   */
  foundLive?: true;
}

/**
 * A campaign or credential is one per account, and the service cannot show it back: which
 * environment of the service wrote it last is told by the order its applies recorded.
 */
export interface SharedWrite {
  /**
   * One more than the highest `writeOrder` any workspace of the same service held for the resource
   * when this workspace's apply wrote it: the workspace holding the highest wrote it last. Absent in
   * a state older than this field: that write's place is unknown.
   */
  writeOrder?: number;
  /**
   * Set before an apply sends a write of the resource, cleared once the service's answer is recorded
   * (or the write was never sent): still set, the write may have landed without the state knowing
   * (the run was killed or lost its lock), so the next plan takes what the service holds as unknown
   * and sends the values again. Absent in a state older than this field.
   */
  writeUnrecorded?: true;
}

export interface CampaignState extends SharedWrite {
  id: string;
  /** The values voxform last applied (campaigns cannot be read back); a secret one as its `hashApplied`. */
  applied: { name?: string; include_metadata_in_prompt?: boolean; caller?: string };
}

export interface KnowledgeState {
  fileId: string;
  contentHash: string;
  /** As applied, or its `hashApplied` when the manifest fills it from `${env:…}` (see `appliedValue`). */
  name: string;
  /** As applied, or its `hashApplied` when the manifest fills it from `${env:…}`. */
  description: string | undefined;
}

export interface CredentialState extends SharedWrite {
  /** `hashApplied` of the provider and key; never the key. */
  fingerprint: string;
  /** The `fingerprintKeyId` of the key `fingerprint` is hashed with, as for an agent (`AgentState`). Absent in a state older than this field: taken to be the current key's. */
  fingerprintKeyId?: string;
}

/** The hash kept for a value voxform applied: an HMAC under the fingerprint key, never written beside it. */
export function hashApplied(key: string, value: unknown): string {
  return keyedHash(key, value);
}

/** What the state keeps of an applied value: itself, so a plan shows what changed, or if secret its keyed hash. */
export function appliedValue<T extends string | undefined>(key: string, value: T, secret: boolean): T | string {
  return secret && value !== undefined ? hashApplied(key, value) : value;
}

export function emptyWorkspace(): WorkspaceState {
  return { agents: {}, phones: {}, campaigns: {}, knowledge: {}, credentials: {} };
}

/** The name the manifests without an overlay go by in workspaces, status, history and reports: a name voxform prints, not one `--env` takes. */
export const BASE_ENVIRONMENT_NAME = 'default';

/** An environment of the state as a sentence names it: `the default environment`, else its name written by `name`. */
export function environmentInProse(environment: string, name: (environment: string) => string = (text) => text): string {
  return environment === BASE_ENVIRONMENT_NAME ? 'the default environment' : name(environment);
}

export function workspaceKey(environment: string | undefined, baseUrl: string): string {
  return `${environment ?? BASE_ENVIRONMENT_NAME}@${baseUrl}`;
}

/** The environment and service of a workspace key (`staging@SERVICE`; no environment name holds an `@`); undefined for another key. */
export function splitWorkspaceKey(key: string): { environment: string; serviceId: string } | undefined {
  const at = key.indexOf('@');
  return at < 0 ? undefined : { environment: key.slice(0, at), serviceId: key.slice(at + 1) };
}

/** Another environment's workspace that could not be read; `environment` null when the service's workspaces could not even be listed. */
export interface UnreadEnvironment {
  environment: string | null;
  problem: string;
}

/** The note on an environment whose workspace could not be read: which one, what that costs (`cost`, of its name in prose), and why. */
export function unreadEnvironmentNote({ environment, problem }: UnreadEnvironment, cost: (environment: string) => string): string {
  const unread =
    environment === null
      ? `The service's other workspaces could not be listed, so ${cost('another environment')}`
      : `The state of ${environmentInProse(environment, (name) => `environment ${name}`)} could not be read, so ${cost(environmentInProse(environment))}`;
  return `${unread}: ${controlsAsQuestionMarks(problem)}`;
}
