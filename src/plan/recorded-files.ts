/**
 * Whether the knowledge files the state records are still on the service. The service can neither
 * list nor read a file: the one place a file id shows is an agent's `knowledge_base.files`, which the
 * plan reads anyway. So a recorded file is checked where voxform attached it — an agent of the
 * manifests that attaches it had exactly the recorded files set at its last apply (the state's keyed
 * hash of them says so, or was made under another API key and cannot say) — and is gone when no agent read lists it any more: the service lost it
 * (deleted in the dashboard, an account reset), and attaching its id again could only be refused.
 * A file voxform never attached (uploaded, then its agent failed) is not checked: its id is kept.
 */
import type { DesiredAgent, DesiredKnowledgeFile, DesiredState } from '../manifest/types.js';
import type { Agent } from '../schema/types.gen.js';
import { hashApplied, type WorkspaceState } from '../state/types.js';
import { fingerprintKeyId, hashedWithAnotherKey } from '../util/hash.js';
import { liveKnowledgeFiles } from './fingerprint.js';
import { addToList } from '../util/map-lists.js';

export class RecordedFileCheck {
  /** The checks not decided yet, by file local name: the recorded id, and the attaching agents not read yet. */
  private readonly open = new Map<string, { fileId: string; unread: Set<string> }>();
  /** The local names of the files open checks are of, by recorded id. */
  private readonly byFileId = new Map<string, string[]>();

  /** `files`: the files whose state entry the manifests still match (one that changed is uploaded anyway). */
  constructor(context: { desired: DesiredState; state: WorkspaceState; salt: string }, files: Iterable<DesiredKnowledgeFile>) {
    const attaching = new Map<string, DesiredAgent[]>();
    for (const agent of context.desired.agents.values()) {
      for (const localName of agent.knowledge ?? []) addToList(attaching, localName, agent);
    }
    const attached = new Map<DesiredAgent, boolean>();
    const attachedAsRecorded = (agent: DesiredAgent) => {
      let known = attached.get(agent);
      if (known === undefined) attached.set(agent, (known = filesAsRecorded(agent, context)));
      return known;
    };
    for (const file of files) {
      const fileId = context.state.knowledge[file.address]?.fileId;
      const agents = attaching.get(file.localName) ?? [];
      if (fileId === undefined || !agents.some(attachedAsRecorded)) continue;
      this.open.set(file.localName, { fileId, unread: new Set(agents.map((agent) => agent.localName)) });
      addToList(this.byFileId, fileId, file.localName);
    }
  }

  /** Whether the file's check waits for more agents' answers. */
  isOpen(localName: string): boolean {
    return this.open.has(localName);
  }

  /** Notes an agent's answer; returns the checks it decided: each file's local name and whether it is gone. */
  agentRead(agent: DesiredAgent, live: Agent): Array<{ localName: string; gone: boolean }> {
    // Nothing open (no file to check, or all decided; diffStates tells every answer again): nothing to read.
    if (this.open.size === 0) return [];
    const decided: Array<{ localName: string; gone: boolean }> = [];
    for (const fileId of liveKnowledgeFiles(live.config)) {
      // Settled once seen: each id's names are walked once, whatever the agents (the state's, may be planted) repeat.
      const names = this.byFileId.get(fileId);
      if (!names) continue;
      this.byFileId.delete(fileId);
      for (const localName of names) if (this.open.delete(localName)) decided.push({ localName, gone: false });
    }
    for (const localName of agent.knowledge ?? []) {
      const check = this.open.get(localName);
      if (!check) continue;
      check.unread.delete(agent.localName);
      if (check.unread.size > 0) continue;
      this.open.delete(localName);
      decided.push({ localName, gone: true });
    }
    return decided;
  }

  /** Ends the checks still open, as not gone: an agent attaching the file went unread (the plan reports it). */
  close(): string[] {
    const names = [...this.open.keys()];
    this.open.clear();
    return names;
  }
}

/**
 * Whether the agent's last apply set exactly the files the state records for its manifest's list.
 * Hashed under another API key (rotated since), the hash cannot say: taken as set, so a file the
 * service lost is uploaded again by the first apply under the new key (at worst one the agent never
 * got is uploaded once more), rather than attached by its old id and refused.
 */
function filesAsRecorded(agent: DesiredAgent, context: { desired: DesiredState; state: WorkspaceState; salt: string }): boolean {
  const entry = context.state.agents[agent.address];
  const applied = entry?.applied.knowledge;
  if (applied === undefined) return false;
  const recorded = recordedFileIds(agent.knowledge ?? [], context);
  if (recorded === undefined) return false;
  return hashedWithAnotherKey(entry?.fingerprintKeyId, fingerprintKeyId(context.salt)) || applied === hashApplied(context.salt, recorded);
}

/** The file ids the state records for these local names; undefined when one has none. */
export function recordedFileIds(localNames: readonly string[], context: { desired: DesiredState; state: WorkspaceState }): string[] | undefined {
  const ids: string[] = [];
  for (const localName of localNames) {
    const file = context.desired.knowledge.get(localName);
    const fileId = file && context.state.knowledge[file.address]?.fileId;
    if (fileId === undefined) return undefined;
    ids.push(fileId);
  }
  return ids;
}
