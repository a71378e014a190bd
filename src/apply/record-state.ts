/** What the state keeps once a request succeeded: facts the service cannot return, keyed hashes for drift; never a secret. */
import type { DesiredAgent } from '../manifest/types.js';
import { desiredAgentFields } from '../plan/agent-fields.js';
import type { SharedView } from '../plan/shared-resources.js';
import type { PlannedRequest, ResourceChange } from '../plan/types.js';
import { appliedValue, hashApplied, type AgentState, type CampaignState, type SharedWrite, type WorkspaceState } from '../state/types.js';
import type { DesiredIndex } from './resources.js';
import type { RequestResult } from './send-request.js';
import type { RefusedFile } from './refused-files.js';
import { fingerprintKeyId, hashedWithAnotherKey } from '../util/hash.js';

export type StateChange = (workspace: WorkspaceState) => void;

/** Hashes of the desired managed values: what "voxform last applied" means for drift detection. */
function appliedHashes(agent: DesiredAgent, key: string): Record<string, string> {
  const applied: Record<string, string> = {};
  for (const [path, value] of desiredAgentFields(agent)) applied[path] = hashApplied(key, value);
  return applied;
}

/**
 * What the state knew of `change`'s agent (service id `id`) before this change: its entry under its
 * address, or under the one it was renamed from. An entry there of another agent (the key's `id:`
 * changed) is not its own.
 */
function previousAgent(ws: WorkspaceState, change: ResourceChange, id: string): AgentState | undefined {
  return [change.address, change.movedFrom].map((at) => (at === undefined ? undefined : ws.agents[at])).find((entry) => entry?.id === id);
}

/**
 * The paths of `applied` this environment found live and never sent (`AgentState.foundLive`): not
 * in `sent`, nor sent by an earlier apply of it whose value they still hold.
 */
function foundLivePaths(previous: AgentState | undefined, applied: Record<string, string>, sent: ReadonlySet<string>, key: string): string[] {
  const same = previous !== undefined && !hashedWithAnotherKey(previous.fingerprintKeyId, fingerprintKeyId(key));
  // A set, not the list: every path of the agent may be asked about, and every one may be on it.
  const foundBefore = new Set(same ? previous.foundLive : undefined);
  const sentBefore = (path: string) => same && previous.applied[path] === applied[path] && !foundBefore.has(path);
  return Object.keys(applied).filter((path) => !sentAtOrAbove(sent, path) && !sentBefore(path));
}

/** Whether `sent` holds `path` or a place above it: a place the service held in another shape is sent whole, its leaves with it. */
function sentAtOrAbove(sent: ReadonlySet<string>, path: string): boolean {
  if (sent.has(path)) return true;
  for (let at = path.lastIndexOf('.'); at > 0; at = path.lastIndexOf('.', at - 1)) if (sent.has(path.slice(0, at))) return true;
  return false;
}

/**
 * Writes an agent's state under its address: its hashes beside the id of the key they are made with
 * (so drift can tell when that key is no longer the one in use), and which of them `sent` wrote. A
 * renamed agent (`ResourceChange.movedFrom`) leaves its old key: the entry moved with it, so one agent never has two.
 */
function recordAgent(ws: WorkspaceState, change: ResourceChange, agent: { id: string; applied: Record<string, string>; key: string; sent: ReadonlySet<string> }): void {
  const { id, applied, key } = agent;
  const foundLive = foundLivePaths(previousAgent(ws, change, id), applied, agent.sent, key);
  // None found: no member at all, which a reader takes as every path sent.
  const state: AgentState = { id, applied, fingerprintKeyId: fingerprintKeyId(key), ...(foundLive.length > 0 ? { foundLive } : {}) };
  ws.agents[change.address] = state;
  const from = change.movedFrom;
  if (from !== undefined && from !== change.address && ws.agents[from]?.id === state.id) delete ws.agents[from];
}

/**
 * What the state keeps of the files attached to an agent whose update does not set them: what it knew
 * of them, if hashed with this key. Under another (the API key rotated since), the files the run leaves
 * as they are, hashed with this key — without them the next plan could not tell a file the service
 * lost: the desired ones when the plan found them attached (`before`); for an agent a rollback restores
 * (`keptKnowledge`), the ones the state records for the manifests' list, which a plan under another
 * key takes as attached (src/plan/recorded-files.ts). Files the plan sets anew are left to their own request.
 */
function keptFilesHash(ws: WorkspaceState, change: ResourceChange, agent: DesiredAgent, key: string): string | undefined {
  const previous = previousAgent(ws, change, agent.id);
  if (!hashedWithAnotherKey(previous?.fingerprintKeyId, fingerprintKeyId(key))) return previous?.applied.knowledge;
  if (change.fieldChanges.some((field) => field.path === 'knowledge')) return undefined;
  if (agent.knowledge !== undefined) return hashApplied(key, change.before?.knowledge ?? []);
  if (previous?.applied.knowledge === undefined || agent.keptKnowledge === undefined) return undefined;
  const fileIds = agent.keptKnowledge.map((localName) => ws.knowledge[`knowledge.${localName}`]?.fileId);
  return fileIds.every((fileId) => fileId !== undefined) ? hashApplied(key, fileIds) : undefined;
}

/** The state forgets a recorded file the service does not know (`refusedRecordedFiles`): the next plan uploads it again. */
export function stateAfterRefusedFiles(refused: readonly RefusedFile[]): StateChange | undefined {
  if (refused.length === 0) return undefined;
  return (ws) => {
    for (const { address, fileId } of refused) if (ws.knowledge[address]?.fileId === fileId) delete ws.knowledge[address];
  };
}

/** What the state keeps of a campaign request's body: the values, secret ones as keyed hashes. */
function campaignValues(body: Record<string, unknown>, secretFields: readonly string[], key: string): CampaignState['applied'] {
  const applied: CampaignState['applied'] = {};
  const kept = (field: string, value: string) => appliedValue(key, value, secretFields.includes(field));
  if (typeof body.name === 'string') applied.name = kept('name', body.name);
  if (typeof body.include_metadata_in_prompt === 'boolean') applied.include_metadata_in_prompt = body.include_metadata_in_prompt;
  if (typeof body.caller === 'string') applied.caller = kept('caller', body.caller);
  return applied;
}

/**
 * Whether a request's answer holds what the service cannot give back later: a knowledge file's id (the
 * service cannot list its files, so an upload whose id is lost is uploaded again and the first copy
 * stays for good). Such an answer is stored at once, before the request counts as done; what the
 * service shows again (agents, phones) or what a later write replaces under the same key (credentials,
 * campaigns) waits for the paced write.
 */
export function answerOnlyStateKeeps(request: PlannedRequest): boolean {
  return request.operation === 'upload_knowledge_file';
}

/** The state change a successful request makes (undefined for a read). `body` is the body as sent. */
export function stateAfterRequest(
  request: PlannedRequest,
  change: ResourceChange,
  body: Record<string, unknown>,
  result: RequestResult,
  context: { resources: DesiredIndex; key: string; shared?: SharedView | undefined },
): StateChange | undefined {
  const address = change.address;
  const { resources, key: salt } = context;
  // Which environment wrote a campaign or credential last (see `SharedWrite`).
  const writeOrder = context.shared?.nextWriteOrders.get(address);
  const order = writeOrder === undefined ? {} : { writeOrder };
  switch (request.operation) {
    case 'set_credential': {
      const credential = resources.of(address, 'credential');
      const fingerprint = hashApplied(salt, credential.fingerprint);
      return (ws) => (ws.credentials[address] = { fingerprint, fingerprintKeyId: fingerprintKeyId(salt), ...order });
    }
    case 'upload_knowledge_file': {
      const file = resources.of(address, 'knowledge');
      const fileId = result && 'fileId' in result ? result.fileId : '';
      const secret = (field: string) => file.sensitivePaths.includes(field);
      const name = appliedValue(salt, file.name, secret('name'));
      const description = appliedValue(salt, file.description, secret('description'));
      return (ws) => {
        ws.knowledge[address] = { fileId, contentHash: file.contentHash, name, description };
        leaveOldKey(ws, change);
      };
    }
    case 'update_agent': {
      const agent = resources.of(address, 'agent');
      const sent = new Set(change.fieldChanges.map((field) => field.path).filter((path) => path !== 'knowledge'));
      return (ws) => {
        const knowledge = keptFilesHash(ws, change, agent, salt);
        const applied = appliedHashes(agent, salt);
        if (knowledge) applied.knowledge = knowledge;
        recordAgent(ws, change, { id: agent.id, applied, key: salt, sent });
      };
    }
    case 'set_agent_files': {
      // Sent only once the agent's update (if any) succeeded: its fields are the desired ones.
      const agent = resources.of(address, 'agent');
      return (ws) => {
        const applied = appliedHashes(agent, salt);
        applied.knowledge = hashApplied(salt, body.files);
        recordAgent(ws, change, { id: agent.id, applied, key: salt, sent: new Set(['knowledge']) });
      };
    }
    case 'import_phone':
      return (ws) => (ws.phones[address] = { agentId: undefined, imported: true });
    case 'set_phone_agent':
      return (ws) => (ws.phones[address] = { agentId: body.agent_id as string, imported: ws.phones[address]?.imported ?? false });
    case 'edit_campaign_info':
    case 'set_campaign_caller': {
      const id = change.id ?? '';
      const values = campaignValues(body, resources.of(address, 'campaign').sensitivePaths, salt);
      // Kept beside the values sent: those the plan found applied (another environment's, when it
      // wrote them last) and those an earlier request of this run wrote.
      const planned = context.shared?.workspace.campaigns[address];
      const found = planned?.id === id ? planned.applied : {};
      return (ws) => {
        const previous = ws.campaigns[entryAddress(ws, change)];
        const earlier = previous?.id === id && (planned === undefined || previous.writeOrder === writeOrder) ? previous.applied : {};
        ws.campaigns[address] = { id, applied: { ...found, ...earlier, ...values }, ...order };
        leaveOldKey(ws, change);
      };
    }
    case 'read_agent':
      return undefined;
  }
}

/** The state's entries of a kind the service cannot show back (campaigns, credentials); undefined for another kind. */
function unreadableEntries(ws: WorkspaceState, kind: ResourceChange['kind']): Record<string, SharedWrite> | undefined {
  if (kind === 'campaign') return ws.campaigns;
  if (kind === 'credential') return ws.credentials;
  return undefined;
}

/** Whether the state's entry at `at` is of `change`'s campaign or knowledge file: the same id, the same content. */
function holdsResource(ws: WorkspaceState, change: ResourceChange, at: string): boolean {
  if (change.kind === 'campaign') return ws.campaigns[at]?.id === change.id;
  if (change.kind === 'knowledge') return ws.knowledge[at]?.contentHash === change.after?.content_hash;
  return false;
}

/**
 * Where the state holds `change`'s entry: under the key it was renamed from (`ResourceChange.movedFrom`,
 * src/state/moved-resources.ts) until the apply moves it, else under its address.
 */
function entryAddress(ws: WorkspaceState, change: ResourceChange): string {
  const from = change.movedFrom;
  return from !== undefined && !holdsResource(ws, change, change.address) && holdsResource(ws, change, from) ? from : change.address;
}

/** A renamed campaign or knowledge file leaves its old key once its entry is written under the new one: one resource never has two. */
function leaveOldKey(ws: WorkspaceState, change: ResourceChange): void {
  const from = change.movedFrom;
  if (from === undefined || from === change.address || !holdsResource(ws, change, from)) return;
  if (change.kind === 'campaign') delete ws.campaigns[from];
  else delete ws.knowledge[from];
}

/** A renamed campaign or knowledge file nothing is sent for: its entry moves to the new key all the same. */
function movedUnchanged(change: ResourceChange): StateChange | undefined {
  if (change.movedFrom === undefined) return undefined;
  const entries = (ws: WorkspaceState): Record<string, unknown> => (change.kind === 'campaign' ? ws.campaigns : ws.knowledge);
  return (ws) => {
    const from = entryAddress(ws, change);
    if (from === change.address) return;
    entries(ws)[change.address] = entries(ws)[from];
    delete entries(ws)[from];
  };
}

/**
 * The campaigns and credentials the plan writes whose entry the state holds, by that entry's mark.
 * The service cannot show them back, so an entry left as it was would pass its old values for the
 * service's should a write land unrecorded (the run killed, or its lock lost): each `unmarked` one must
 * be marked `writeUnrecorded` before any write is sent. A `marked` one holds an earlier run's write
 * whose outcome is unknown, and stays marked until this run has recorded every write of it.
 */
export function unreadableWrites(changes: readonly ResourceChange[], ws: WorkspaceState): { unmarked: ResourceChange[]; marked: ResourceChange[] } {
  const unmarked: ResourceChange[] = [];
  const marked: ResourceChange[] = [];
  for (const change of changes) {
    const entry = change.action === 'no-op' ? undefined : unreadableEntries(ws, change.kind)?.[entryAddress(ws, change)];
    if (entry !== undefined) (entry.writeUnrecorded === undefined ? unmarked : marked).push(change);
  }
  return { unmarked, marked };
}

/** Marks the entries of `changes` as holding a write whose outcome the state does not know (`SharedWrite.writeUnrecorded`). */
export function stateWritesUnrecorded(changes: readonly ResourceChange[]): StateChange {
  return (ws) => {
    for (const change of changes) {
      const entries = unreadableEntries(ws, change.kind);
      const address = entryAddress(ws, change);
      const entry = entries?.[address];
      if (entries && entry) entries[address] = { ...entry, writeUnrecorded: true };
    }
  };
}

/** Clears the mark of `change`'s entry: each of its writes is recorded, or was never sent. */
export function stateWritesSettled(change: ResourceChange): StateChange {
  return (ws) => {
    const entries = unreadableEntries(ws, change.kind);
    const address = entryAddress(ws, change);
    const entry = entries?.[address];
    if (!entries || !entry?.writeUnrecorded) return;
    const { writeUnrecorded: _settled, ...settled } = entry;
    entries[address] = settled;
  };
}

/** What `stateWhenUnchanged` needs: `shared` and `takeOver` as for the run's writes (`ExecuteOptions`). */
interface UnchangedContext {
  resources: DesiredIndex;
  key: string;
  shared?: SharedView | undefined;
  /** As a set: asked of every unchanged campaign and credential of the plan. */
  takeOver?: ReadonlySet<string> | undefined;
}

/** Remember what is applied even when nothing had to change, so later drift can be told apart. */
export function stateWhenUnchanged(change: ResourceChange, context: UnchangedContext): StateChange | undefined {
  const address = change.address;
  if (change.kind === 'campaign') {
    const takenOver = takenOverUnchanged(change, context);
    const moved = movedUnchanged(change);
    return takenOver && moved ? (ws) => (takenOver(ws), leaveOldKey(ws, change)) : (takenOver ?? moved);
  }
  if (change.kind === 'credential') return takenOverUnchanged(change, context);
  if (change.kind === 'knowledge') return movedUnchanged(change);
  if (change.kind === 'agent') {
    const agent = context.resources.of(address, 'agent');
    const applied = appliedHashes(agent, context.key);
    // Unchanged, so the attached files are the desired ones: remember them for drift too.
    if (agent.knowledge !== undefined) applied.knowledge = hashApplied(context.key, change.before?.knowledge ?? []);
    return (ws) => {
      // A rollback leaves them as they are: what the state knew of them stays.
      const kept = agent.keptKnowledge !== undefined ? keptFilesHash(ws, change, agent, context.key) : undefined;
      recordAgent(ws, change, { id: agent.id, applied: kept === undefined ? applied : { ...applied, knowledge: kept }, key: context.key, sent: new Set() });
    };
  }
  if (change.kind === 'phone') {
    const phone = context.resources.of(address, 'phone');
    if (!phone.agent) return undefined;
    const agentId = phone.agent.id;
    return (ws) => {
      const previous = ws.phones[address];
      // Found bound as wanted: a binding this environment sent stays its own; any other is only kept.
      const sentBefore = previous?.agentId === agentId && previous.foundLive === undefined;
      ws.phones[address] = { agentId, imported: previous?.imported ?? false, ...(sentBefore ? {} : { foundLive: true as const }) };
    };
  }
  return undefined;
}

/**
 * A campaign or credential `--take-over` names that already holds this environment's values: nothing
 * is sent, yet the take-over is recorded as this environment's write (`SharedWrite`), so the
 * environment it was taken from is refused from then on, as after a take-over that sent something.
 * Already this environment's, it is left as recorded.
 */
function takenOverUnchanged(change: ResourceChange, context: UnchangedContext): StateChange | undefined {
  const { address } = change;
  const { shared } = context;
  const writeOrder = shared?.nextWriteOrders.get(address);
  if (!shared || writeOrder === undefined || !context.takeOver?.has(address)) return undefined;
  if (shared.lastWriters.get(address) === shared.environment) return undefined;
  if (change.kind === 'credential') {
    const planned = shared.workspace.credentials[address];
    // Unchanged: the fingerprint planned against is the one made with this run's key.
    return planned && ((ws) => (ws.credentials[address] = { fingerprint: planned.fingerprint, fingerprintKeyId: fingerprintKeyId(context.key), writeOrder }));
  }
  const planned = shared.workspace.campaigns[address];
  if (!planned || planned.id !== change.id) return undefined;
  return (ws) => (ws.campaigns[address] = { id: planned.id, applied: { ...planned.applied }, writeOrder });
}
