/**
 * One account, several environments: agents differ per environment, but a phone number, a campaign
 * id and a credential provider are one of each on the account. When two environments of the same
 * service both name one, each apply would undo the other's (staging rebinding production's numbers).
 * This check compares what a plan would write with what the other workspaces of the same service
 * recorded at their last apply, and refuses the plan before anything is sent.
 *
 * Knowledge files are not shared: every upload makes a new file, so each environment has its own.
 */
import type { DesiredState } from '../manifest/types.js';
import { VoxformError } from '../errors.js';
import type { StateBackend } from '../state/backend.js';
import { hashApplied, type WorkspaceState } from '../state/types.js';
import { fingerprintKeyId, isKeyedHash } from '../util/hash.js';
import type { ResourceChange } from './types.js';

/** Another environment's workspace of the same service, as its last apply left it. */
export interface OtherWorkspace {
  /** `default` for the workspace of runs without `--env`. */
  environment: string;
  workspace: WorkspaceState;
}

/** A value this plan would write over one another environment's last apply set. */
export interface SharedResourceConflict {
  address: string;
  environment: string;
  field: string;
  /** What the other environment's last apply set (`(sensitive)` for a secret). */
  theirs: string;
  /** What this plan would write (`(sensitive)` for a secret). */
  ours: string;
}

/** The workspaces of `serviceId` other than `ownKey` (keys are `ENV@SERVICE`), read one after the other. */
export async function readOtherWorkspaces(backend: StateBackend, ownKey: string, serviceId: string): Promise<OtherWorkspace[]> {
  const others: OtherWorkspace[] = [];
  for (const { key } of await backend.listWorkspaces()) {
    const at = key.indexOf('@');
    if (key === ownKey || at < 0 || key.slice(at + 1) !== serviceId) continue;
    const { workspace } = await backend.readWorkspace(key);
    others.push({ environment: key.slice(0, at), workspace });
  }
  return others;
}

const SENSITIVE = '(sensitive)';

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Whether `other` was applied with the API key of this run: under another key its hashes cannot be compared. */
function sameKey(other: WorkspaceState, salt: string): boolean {
  const id = fingerprintKeyId(salt);
  return Object.values(other.agents).some((agent) => agent.fingerprintKeyId === id);
}

/**
 * The values of `changes` that would undo another environment's last apply: a number bound now to the
 * agent another environment bound it to, rebound elsewhere; a campaign field or a credential another
 * environment set to something else. `takeOver`: addresses the operator lets this plan take.
 */
export function findSharedConflicts(changes: readonly ResourceChange[], others: readonly OtherWorkspace[], salt: string, takeOver: readonly string[] = []): SharedResourceConflict[] {
  const conflicts: SharedResourceConflict[] = [];
  for (const change of changes) {
    if (change.action === 'no-op' || takeOver.includes(change.address)) continue;
    for (const { environment, workspace } of others) {
      const add = (field: string, theirs: string, ours: string) => conflicts.push({ address: change.address, environment, field, theirs, ours });
      if (change.kind === 'phone') {
        const rebind = change.fieldChanges.find((f) => f.path === 'agent_id');
        const theirs = workspace.phones[change.address]?.agentId;
        // Only while the number still answers with their agent: a binding changed since is not theirs any more.
        if (rebind && change.before !== null && theirs !== undefined && rebind.before === theirs) add('agent_id', theirs, shown(rebind.after));
      } else if (change.kind === 'campaign') {
        const entry = Object.values(workspace.campaigns).find((c) => c.id === change.id);
        if (!entry) continue;
        for (const field of change.fieldChanges) {
          const theirs = (entry.applied as Record<string, unknown>)[field.path];
          if (theirs === undefined || theirs === field.after) continue;
          // Either side may have been a secret: the state keeps a secret as its keyed hash.
          const theirsSecret = isKeyedHash(theirs);
          if ((field.sensitive || theirsSecret) && theirs === hashApplied(salt, field.after)) continue;
          add(field.path, field.sensitive || theirsSecret ? SENSITIVE : shown(theirs), field.sensitive ? SENSITIVE : shown(field.after));
        }
      } else if (change.kind === 'credential') {
        const theirs = workspace.credentials[change.address]?.fingerprint;
        if (theirs !== undefined && theirs !== change.after?.api_key && sameKey(workspace, salt)) add('api_key', SENSITIVE, SENSITIVE);
      }
    }
  }
  return conflicts;
}

/** `--take-over` names a phone, campaign or credential of the manifests: anything else is the flag's mistake. */
export function checkTakeOver(desired: DesiredState, takeOver: readonly string[]): void {
  const known = sharedResources(desired).map((resource) => resource.address);
  for (const address of takeOver) {
    if (known.includes(address)) continue;
    throw new VoxformError('invalid_option', `--take-over ${address} names no phone, campaign or credential of the manifests.`, {
      hint: `Name one of: ${known.join(', ') || '(the manifests define none)'}.`,
    });
  }
}

function sharedResources(desired: DesiredState) {
  return [desired.phones, desired.campaigns, desired.credentials].flatMap((map) => [...map.values()]);
}

function environmentName(environment: string): string {
  return environment === 'default' ? 'the default environment (no --env)' : `environment ${environment}`;
}

function describe(conflict: SharedResourceConflict): string {
  const by = `the last apply of ${environmentName(conflict.environment)}`;
  if (conflict.field === 'agent_id') return `${conflict.address}: ${by} bound it to agent ${conflict.theirs}; this plan would bind it to ${conflict.ours}.`;
  if (conflict.field === 'api_key') return `${conflict.address}: ${by} set another key for this provider; this plan would replace it.`;
  return `${conflict.address}: ${by} set ${conflict.field} to ${conflict.theirs}; this plan would set ${conflict.ours}.`;
}

/** The refusal: every conflict, at the first one's place in the manifests. */
export function sharedConflictError(conflicts: readonly SharedResourceConflict[], desired: DesiredState): VoxformError {
  const first = conflicts[0]!;
  const source = sharedResources(desired).find((resource) => resource.address === first.address)?.source;
  const rest = conflicts.slice(1).map((c) => `\n  ${describe(c)}`).join('');
  const addresses = [...new Set(conflicts.map((c) => c.address))];
  return new VoxformError('shared_resource_conflict', `${describe(first)} A number, a campaign or a credential is one per account: this plan would undo another environment's apply of the same service. Nothing was sent.${rest}`, {
    hint: `Give each environment its own numbers and campaigns, or name the resource only in a manifest that just the environment owning it applies (its own file or folder, passed with -f). To move it to this environment on purpose, plan or apply with --take-over ${addresses.join(' --take-over ')}.`,
    ...(source ? { location: source } : {}),
    details: conflicts,
  });
}
