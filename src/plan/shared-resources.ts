/**
 * One account, several environments: agents differ per environment (the overlay gives them other
 * ids), but a phone number, a campaign id and a credential provider are one of each on the account,
 * and so is an agent an overlay leaves on the base's id. When two environments of the same service
 * both name one, each apply would undo the other's (staging rebinding production's numbers, or
 * editing production's agent). This check compares what a plan would write with what the other
 * workspaces of the same service recorded at their last apply, and refuses the plan before anything
 * is sent. One rule for every kind: an environment claims only what its apply sent; a value it found
 * live as its manifests want, and left, is not its own (`foundLive` in the state).
 *
 * A campaign or a credential cannot be read back, so the state tells which environment wrote it last
 * (`SharedWrite.writeOrder`): when another one did, this environment plans against that environment's
 * values, not its own stale ones, and is refused where its manifests differ.
 *
 * Which workspace wrote a campaign last is looked up by its id in every workspace, this one's
 * included, never by its manifest key: renaming the key (`recall:` became `recall-2026:`) neither
 * loses this environment's claim nor brings back one another environment lost since.
 *
 * Knowledge files are not shared: every upload makes a new file, so each environment has its own.
 */
import type { DesiredState } from '../manifest/types.js';
import { isVoxformError, VoxformError } from '../errors.js';
import type { StateBackend } from '../state/backend.js';
import { followedWorkspace } from '../state/moved-resources.js';
import { BASE_ENVIRONMENT_NAME, hashApplied, splitWorkspaceKey, workspaceKey, type CampaignState, type CredentialState, type SharedWrite, type UnreadEnvironment, type WorkspaceState } from '../state/types.js';
import { shellWord } from '../util/shell-word.js';
import { wordList } from '../util/plural.js';
import { didYouMean } from '../util/did-you-mean.js';
import { internationalNumber } from '../manifest/names.js';
import { fingerprintKeyId, hashedWithAnotherKey, isKeyedHash } from '../util/hash.js';
import { isDottedAtOrUnder, parseDotted, valueAtPath } from '../util/field-path.js';
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
  /** What the other environment's last apply set (`(sensitive)` for a secret; `(not shown)` for an agent's field). */
  theirs: string;
  /** What this plan would write (`(sensitive)` for a secret; `(not shown)` for an agent's field). */
  ours: string;
}

/** The workspaces of `serviceId` other than `ownKey` (keys are `ENV@SERVICE`), read one after the other. */
export async function readOtherWorkspaces(backend: StateBackend, ownKey: string, serviceId: string): Promise<OtherWorkspace[]> {
  const others: OtherWorkspace[] = [];
  for (const { key, environment } of await otherWorkspaceKeys(backend, ownKey, serviceId)) others.push({ environment, workspace: (await backend.readWorkspace(key)).workspace });
  return others;
}

/**
 * The workspaces of `serviceId` other than `ownKey`, each read on its own, for a command that stands
 * without them (a listing, a report): one that cannot be read is said in `unread`, and leaves the
 * rest. Only voxform's own errors are kept as the problem: their messages name a database without its
 * password (`StateBackend.display`); any other error is thrown on, to be said as every error is.
 */
export async function readOtherEnvironments(backend: StateBackend, ownKey: string, serviceId: string): Promise<{ workspaces: OtherWorkspace[]; unread: UnreadEnvironment[] }> {
  const workspaces: OtherWorkspace[] = [];
  const unread: UnreadEnvironment[] = [];
  const problemOf = (error: unknown): string => {
    if (!isVoxformError(error)) throw error;
    return error.message;
  };
  let listed;
  try {
    listed = await otherWorkspaceKeys(backend, ownKey, serviceId);
  } catch (error) {
    return { workspaces, unread: [{ environment: null, problem: problemOf(error) }] };
  }
  for (const { key, environment } of listed) {
    try {
      workspaces.push({ environment, workspace: (await backend.readWorkspace(key)).workspace });
    } catch (error) {
      unread.push({ environment, problem: problemOf(error) });
    }
  }
  return { workspaces, unread };
}

/** The keys of the workspaces of `serviceId` the state holds, other than `ownKey`, each with its environment. */
async function otherWorkspaceKeys(backend: StateBackend, ownKey: string, serviceId: string): Promise<Array<{ key: string; environment: string }>> {
  return (await backend.listWorkspaces()).flatMap(({ key }) => {
    const theirs = splitWorkspaceKey(key);
    return key !== ownKey && theirs?.serviceId === serviceId ? [{ key, environment: theirs.environment }] : [];
  });
}

/**
 * What the workspaces of the service say of this environment's campaigns and credentials: the
 * workspace to plan against, which environment wrote each last, and the order this one's next write takes.
 */
export interface SharedView {
  /** The environment of the view: `default` for runs without `--env`. */
  environment: string;
  /**
   * This environment's workspace as the manifests read it: each entry followed to its renamed key
   * (`followedWorkspace`), and each campaign or credential another environment wrote last as that environment recorded it.
   */
  workspace: WorkspaceState;
  /** The renamed resources: new address → the address this environment's state kept each under. */
  moves: ReadonlyMap<string, string>;
  /** Address → the environment whose apply wrote it last (this one's included); absent when unknown (a state older than `writeOrder`). */
  lastWriters: Map<string, string>;
  /** Address → the `writeOrder` an apply of this environment records when it writes the resource. */
  nextWriteOrders: Map<string, number>;
}

interface SharedEntry<T extends SharedWrite> {
  environment: string;
  entry: T | undefined;
}

/** Of the entries, the one written last and the order a next write takes: an entry without an order counts as written before any with one. */
function lastWrite<T extends SharedWrite>(entries: ReadonlyArray<SharedEntry<T>>): { last: SharedEntry<T> | undefined; next: number } {
  const order = (e: SharedEntry<T>) => e.entry?.writeOrder ?? 0;
  const highest = Math.max(0, ...entries.map(order));
  const written = entries.filter((e) => highest > 0 && order(e) === highest);
  // Applies hold the service's lock while they plan and write, so each takes an order above all the
  // others' (docs/state.md); a state written by a voxform without that lock may hold a tie: which was last is not known.
  return { last: written.length === 1 ? written[0] : undefined, next: highest + 1 };
}

/** A workspace's claim on the campaign `id`: its entry of that id written last, under whatever key. */
function campaignClaim(campaigns: Record<string, CampaignState>, id: string): CampaignState | undefined {
  let claim: CampaignState | undefined;
  for (const entry of Object.values(campaigns)) if (entry.id === id && (claim === undefined || (entry.writeOrder ?? 0) > (claim.writeOrder ?? 0))) claim = entry;
  return claim;
}

/**
 * Of the workspaces of a service, the environment whose apply wrote the campaign `id` last, with what
 * it recorded and under which address; undefined when that is not known (no order recorded, or a tie).
 */
export function campaignLastWrite(id: string, workspaces: readonly OtherWorkspace[]): { environment: string; address: string; entry: CampaignState } | undefined {
  const { last } = lastWrite(workspaces.map((o) => ({ environment: o.environment, entry: campaignClaim(o.workspace.campaigns, id) })));
  const written = last && workspaces.find((o) => o.environment === last.environment);
  const address = written && Object.entries(written.workspace.campaigns).find(([, entry]) => entry === last.entry)?.[0];
  return last?.entry && address !== undefined ? { environment: last.environment, address, entry: last.entry } : undefined;
}

/** The agent `workspace`'s last apply bound the number `address` to; none for a number it found bound and left (`foundLive`): that one is not its own. */
function phoneClaim(workspace: WorkspaceState, address: string): string | undefined {
  const entry = workspace.phones[address];
  return entry?.foundLive ? undefined : entry?.agentId;
}

/**
 * Of the workspaces of a service, the environments whose last apply bound the number `address` to
 * `agentId`, the agent it answers with now: one bound elsewhere since is not theirs.
 */
export function phoneHolders(address: string, agentId: string, workspaces: readonly OtherWorkspace[]): string[] {
  return workspaces.flatMap(({ environment, workspace }) => (phoneClaim(workspace, address) === agentId ? [environment] : []));
}

/** The view of `own` (the workspace of `environment`) among `others` for the campaigns and credentials of `desired`. */
export function sharedView(desired: DesiredState, own: WorkspaceState, others: readonly OtherWorkspace[]): SharedView {
  const environment = desired.environment ?? BASE_ENVIRONMENT_NAME;
  const followed = followedWorkspace(own, desired);
  const workspace: WorkspaceState = { ...followed.workspace, campaigns: { ...followed.workspace.campaigns }, credentials: { ...own.credentials } };
  const view: SharedView = { environment, workspace, moves: followed.moves, lastWriters: new Map(), nextWriteOrders: new Map() };
  const settle = <T extends SharedWrite>(address: string, entries: ReadonlyArray<SharedEntry<T>>, take: (entry: T) => void) => {
    const { last, next } = lastWrite(entries);
    view.nextWriteOrders.set(address, next);
    if (!last) return;
    view.lastWriters.set(address, last.environment);
    if (last.environment !== environment && last.entry) take(last.entry);
  };
  for (const campaign of desired.campaigns.values()) {
    const claims = (o: OtherWorkspace) => ({ environment: o.environment, entry: campaignClaim(o.workspace.campaigns, campaign.id) });
    const entries = [claims({ environment, workspace: own }), ...others.map(claims)];
    settle(campaign.address, entries, (entry) => (workspace.campaigns[campaign.address] = entry));
  }
  for (const credential of desired.credentials.values()) {
    const entries = [{ environment, entry: own.credentials[credential.address] }, ...others.map((o) => ({ environment: o.environment, entry: o.workspace.credentials[credential.address] }))];
    settle(credential.address, entries, (entry) => (workspace.credentials[credential.address] = entry));
  }
  return view;
}

/**
 * The other workspaces of the service, and `own` (the workspace of `desired`'s environment) as
 * `sharedView` sees it among them. `unseen`: what a plan that writes a shared resource warns of (`unseenEnvironmentsWarning`).
 */
export async function readSharedView(backend: StateBackend, desired: DesiredState, serviceId: string, own: WorkspaceState): Promise<{ view: SharedView; others: OtherWorkspace[]; unseen: UnseenEnvironments | undefined }> {
  const others = await readOtherWorkspaces(backend, workspaceKey(desired.environment, serviceId), serviceId);
  return { view: sharedView(desired, own, others), others, unseen: unseenEnvironments(desired, serviceId, others, backend.display) };
}

/** The environments the manifests put on the service, when the state holds a workspace of none of them, and that state. */
interface UnseenEnvironments {
  environments: string[];
  state: string;
}

/**
 * The other environments the manifests put on this service (with `--local`, every one), when the
 * state holds no workspace of any of them: their applies were made with another state (or not yet),
 * so what they set on the shared resources is not seen, and undoing it is not refused.
 */
function unseenEnvironments(desired: DesiredState, serviceId: string, others: readonly OtherWorkspace[], state: string): UnseenEnvironments | undefined {
  // The embedded emulator (`--local`) is one service whatever the manifests' base_url.
  const placedAlike = serviceId === 'local' ? [undefined, ...desired.environments] : (desired.environmentsPlacedAlike ?? []);
  const environments = [...new Set(placedAlike.filter((name) => name !== desired.environment).map((name) => name ?? BASE_ENVIRONMENT_NAME))];
  if (environments.length === 0 || others.some((other) => environments.includes(other.environment))) return undefined;
  return { environments, state };
}

/**
 * Whether `change` puts back what environments share — a number's binding, a campaign, a credential —
 * that changed on the service since this environment's last apply: what another environment's apply
 * with another state looks like from here. A first apply, or a change of the manifests', is no sign
 * of one, and warning of every such write would teach a new project to ignore the line.
 */
function undoesSharedChange(change: ResourceChange): boolean {
  if (change.action === 'no-op') return false;
  const changedOnService = change.reason === 'drift' || change.fieldChanges.some((field) => field.drift);
  if (!changedOnService) return false;
  if (change.kind === 'phone') return change.fieldChanges.some((field) => field.path === 'agent_id');
  return change.kind === 'campaign' || change.kind === 'credential';
}

/** The warning of a plan that puts back a shared resource changed on the service while the state holds no workspace of the other environments of its service; undefined otherwise. */
export function unseenEnvironmentsWarning(unseen: UnseenEnvironments | undefined, changes: readonly ResourceChange[]): string | undefined {
  if (!unseen || !changes.some(undoesSharedChange)) return undefined;
  const which = wordList(unseen.environments.map((environment) => environmentName(environment, (name) => name)), 'or');
  return `the state ${unseen.state} holds no workspace of ${which} on this service: a change another environment applied with another state to a shared resource (a number's agent, a campaign, a credential) cannot be seen, and this plan would undo it unrefused; every environment of a service must use one state (docs/state.md#environments-of-one-service-apply-one-at-a-time).`;
}

const SENSITIVE = '(sensitive)';
/** An agent's values in a conflict: the plan shows them, with its own hiding. */
const NOT_SHOWN = '(not shown)';

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Whether `credential` of `other` was applied with the API key of this run: under another key its
 * fingerprint cannot be compared. A state older than the credential's own key id is judged by its agents'.
 */
function sameKey(other: WorkspaceState, credential: CredentialState, salt: string): boolean {
  const id = fingerprintKeyId(salt);
  if (credential.fingerprintKeyId !== undefined) return credential.fingerprintKeyId === id;
  return Object.values(other.agents).some((agent) => agent.fingerprintKeyId === id);
}

/**
 * The fields of an agent, by `other`'s paths, that `change` would set otherwise while their live
 * value is the one `other`'s last apply sent there: an agent the environments name by one id is one
 * agent on the account. A change is compared with each field it reaches: one `other` sent at its
 * place or below it (a whole `config.voice` replaced or cleared takes the `voice_id` they set), and
 * one above it that they cleared (a `null` sent for `config.voice`, still unset, which a
 * `config.voice.voice_id` of ours would undo). A cleared field counts as their value while the
 * service holds none there. Only the fields that apply sent (not those it found live) count, compared
 * by their keyed hashes: under another API key they cannot be.
 */
function agentFieldsTheySent(change: ResourceChange, other: WorkspaceState, salt: string): string[] {
  const entry = Object.values(other.agents).find((agent) => agent.id === change.id);
  if (!entry || hashedWithAnotherKey(entry.fingerprintKeyId, fingerprintKeyId(salt))) return [];
  // What a place holds, as a hash comparable with what apply recorded: unset is what a `null` sent leaves.
  const held = (value: unknown) => hashApplied(salt, value ?? null);
  const undone = new Set<string>();
  for (const [claimed, theirs] of Object.entries(entry.applied)) {
    if (entry.foundLive?.includes(claimed)) continue;
    for (const field of change.fieldChanges) {
      if (isDottedAtOrUnder(claimed, field.path)) {
        const below = parseDotted(claimed).slice(parseDotted(field.path).length);
        if (theirs === held(valueAtPath(field.before, below)) && theirs !== held(valueAtPath(field.after, below))) undone.add(claimed);
      } else if (isDottedAtOrUnder(field.path, claimed) && field.before === undefined && theirs === held(null)) {
        undone.add(claimed);
      }
    }
  }
  return [...undone];
}

/**
 * The values of `changes` that would undo another environment's last apply: a number bound now to the
 * agent another environment bound it to, rebound elsewhere; a campaign field or a credential another
 * environment set to something else. `lastWriters` (`SharedView`): a campaign or credential whose
 * last writer is known is compared with that writer's values alone (none when it is this
 * environment): the others' were undone since.
 */
export function findSharedConflicts(
  changes: readonly ResourceChange[],
  others: readonly OtherWorkspace[],
  salt: string,
  lastWriters: ReadonlyMap<string, string> = new Map(),
): SharedResourceConflict[] {
  const conflicts: SharedResourceConflict[] = [];
  for (const change of changes) {
    if (change.action === 'no-op') continue;
    const lastWriter = change.kind === 'phone' ? undefined : lastWriters.get(change.address);
    for (const { environment, workspace } of others) {
      if (lastWriter !== undefined && lastWriter !== environment) continue;
      const add = (field: string, theirs: string, ours: string) => conflicts.push({ address: change.address, environment, field, theirs, ours });
      if (change.kind === 'phone') {
        const rebind = change.fieldChanges.find((f) => f.path === 'agent_id');
        const theirs = phoneClaim(workspace, change.address);
        // Only while the number still answers with their agent: a binding changed since is not theirs any more.
        if (rebind && change.before !== null && theirs !== undefined && rebind.before === theirs) add('agent_id', theirs, shown(rebind.after));
      } else if (change.kind === 'agent') {
        // An agent's field may hold secrets below it (a tool's header inside `config.tools`), the other
        // environment's among them, which this run knows not to hide: its values are never carried.
        for (const field of agentFieldsTheySent(change, workspace, salt)) add(field, NOT_SHOWN, NOT_SHOWN);
      } else if (change.kind === 'campaign') {
        const entry = change.id === undefined ? undefined : campaignClaim(workspace.campaigns, change.id);
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
        const theirs = workspace.credentials[change.address];
        if (theirs && theirs.fingerprint !== change.after?.api_key && sameKey(workspace, theirs, salt)) add('api_key', SENSITIVE, SENSITIVE);
      }
    }
  }
  return conflicts;
}

/**
 * `changes` with each that `taken` (the conflicts `--take-over` lets this plan have) names marked with
 * those environments (`takesOverFrom`): the conflicts it would be refused for without the flag. A marked
 * change is a new object, so that what was made of it before (its text, prepared while reading) is
 * not taken for it.
 */
export function markTakenOver(changes: readonly ResourceChange[], taken: readonly SharedResourceConflict[]): ResourceChange[] {
  return changes.map((change) => {
    const from = [...new Set(taken.filter((conflict) => conflict.address === change.address).map((conflict) => conflict.environment))];
    return from.length > 0 ? { ...change, takesOverFrom: from } : change;
  });
}

/** `--take-over` names an agent, phone, campaign or credential of the manifests: anything else is the flag's mistake. */
export function checkTakeOver(desired: DesiredState, takeOver: readonly string[]): void {
  const known = sharedResources(desired).map((resource) => resource.address);
  for (const address of takeOver) {
    if (known.includes(address)) continue;
    const near = nearAddress(address, known);
    throw new VoxformError('invalid_option', `--take-over ${address} names no agent, phone, campaign or credential of the manifests${near ? `; did you mean ${near}?` : '.'}`, {
      hint: `Name one of: ${known.join(', ') || '(the manifests define none)'}.`,
    });
  }
}

/** The address of the manifests `address` was likely meant as: a number written with separators, as the manifests' keys are checked, else a typo. */
function nearAddress(address: string, known: readonly string[]): string | undefined {
  const number = address.startsWith('phone.') ? internationalNumber(address.slice('phone.'.length)) : undefined;
  if (number !== undefined && known.includes(`phone.${number}`)) return `phone.${number}`;
  return didYouMean(address, known);
}

function sharedResources(desired: DesiredState) {
  return [desired.agents, desired.phones, desired.campaigns, desired.credentials].flatMap((map) => [...map.values()]);
}

/** How a sentence names `environment`: the default one by how it is run, another by `name` (`environment NAME` unless told). */
function environmentName(environment: string, name = (text: string) => `environment ${text}`): string {
  return environment === BASE_ENVIRONMENT_NAME ? 'the default environment (no --env)' : name(environment);
}

function describe(conflict: SharedResourceConflict): string {
  const by = `the last apply of ${environmentName(conflict.environment)}`;
  if (conflict.field === 'agent_id') return `${conflict.address}: ${by} bound it to agent ${conflict.theirs}; this plan would bind it to ${conflict.ours}.`;
  // An agent's values may be whole prompts: the field is named, the plan shows the values.
  if (conflict.address.startsWith('agent.')) return `${conflict.address}: ${by} set ${conflict.field} of this agent (both environments name it by one id); this plan would change it.`;
  if (conflict.field === 'api_key') return `${conflict.address}: ${by} set another key for this provider; this plan would replace it.`;
  return `${conflict.address}: ${by} set ${conflict.field} to ${conflict.theirs}; this plan would set ${conflict.ours}.`;
}

/**
 * The refusal's way out; `takeOver`: how this command moves the resources to its environment on
 * purpose; `retire`: how to forget the claims of environments the manifests may no longer use.
 */
export function sharedConflictHint(takeOver: string, retire = ''): string {
  return `Give each environment its own agents (an id in its overlay), numbers and campaigns, or name the resource only in a manifest that just the environment owning it applies (its own file or folder, passed with -f). To move it to this environment on purpose, ${takeOver}.${retire}`;
}

/** How a refusal's hint says to move the resources of `addresses` with this run's `plan` or `apply`. */
export function takeOverClause(addresses: readonly string[]): string {
  return `plan or apply with --take-over ${addresses.join(' --take-over ')}`;
}

/**
 * The environments of the conflicts that the manifests may no longer use, and how to retire their
 * workspaces: the default one (no --env) when this run applies an environment (a project that moved
 * to environments keeps the default workspace's claims until it is removed), and one the manifests
 * no longer define. Empty when every one is in use.
 */
function retireAdvice(conflicts: readonly SharedResourceConflict[], desired: Pick<DesiredState, 'environment' | 'environments'>, serviceId: string): string {
  const retired = [...new Set(conflicts.map((c) => c.environment))].filter((environment) =>
    environment === BASE_ENVIRONMENT_NAME ? desired.environment !== undefined : !desired.environments.includes(environment),
  );
  if (retired.length === 0) return '';
  const commands = retired.map((environment) => `\`voxform state rm ${shellWord(workspaceKey(environment, serviceId))}\``).join(', ');
  const which = retired.map((environment) => environmentName(environment)).join(' and ');
  return ` If no one applies ${which} any more, ${commands} forgets what its last apply set, claims included (its deploy history is kept; nothing on the service changes).`;
}

/** The refusal: every conflict, at the first one's place in the manifests; `serviceId`: the service of the plan's workspace. */
export function sharedConflictError(conflicts: readonly SharedResourceConflict[], desired: DesiredState, serviceId: string): VoxformError {
  const first = conflicts[0]!;
  const source = sharedResources(desired).find((resource) => resource.address === first.address)?.source;
  const rest = conflicts.slice(1).map((c) => `\n  ${describe(c)}`).join('');
  const addresses = [...new Set(conflicts.map((c) => c.address))];
  return new VoxformError('shared_resource_conflict', `${describe(first)} A number, a campaign, a credential and an agent named by one id are one per account: this plan would undo another environment's apply of the same service. Nothing was sent.${rest}`, {
    hint: sharedConflictHint(takeOverClause(addresses), retireAdvice(conflicts, desired, serviceId)),
    ...(source ? { location: source } : {}),
    details: conflicts,
  });
}
