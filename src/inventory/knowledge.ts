/**
 * The knowledge files voxform can see. The service cannot list knowledge files nor read one, so they
 * are gathered from three sources — the files the manifests name, the files voxform's state records
 * (their ids, names on the service and content hashes), and the files the manifests' live agents
 * attach (`knowledge_base.files`) — and the report says so.
 */
import type { ApiClient } from '../api/index.js';
import { agentIfExists } from '../api/agent-if-exists.js';
import { liveKnowledgeFiles } from '../plan/fingerprint.js';
import { byCodeUnits } from '../util/compare.js';
import { INVENTORY_FORMAT_VERSION } from './inventory.js';
import { stateSourceJson, type InventoryState, type StateSourceJson } from './state-records.js';

type KnowledgeReader = Pick<ApiClient, 'getAgent'>;

type KnowledgeSource = 'manifest' | 'state' | 'agent';

/** A knowledge file the manifests name: its local name and the file as the user names it. */
interface ManagedKnowledgeFile {
  localName: string;
  file: string;
}

export interface LiveKnowledgeFile {
  /** The file's id on the service; null for a file of the manifests voxform has not uploaded yet. */
  id: string | null;
  /** The name voxform gave it on the service (a secret one as its keyed hash); null when the state does not record it. */
  name: string | null;
  /** The document of the manifest entry, relative to the working directory; null when no manifest names it. */
  file: string | null;
  /** `sha256:` of the content voxform uploaded; null when the state does not record it. */
  content_hash: string | null;
  /** The address of the manifest entry that manages the file (`knowledge.faq`), or null. */
  managed_by: string | null;
  /** The live agents that attach the file: their ids and the address of the manifest entry of each. */
  agents: Array<{ id: string; managed_by: string | null }>;
  /** How the file was found, in this order: a manifest names it, the state records it, an agent attaches it. */
  found_through: KnowledgeSource[];
}

export interface KnowledgeReport {
  format_version: number;
  kind: 'knowledge';
  files: LiveKnowledgeFile[];
  /** Where the files were looked for: the service cannot list them. */
  sources: { manifest_files: number; state: StateSourceJson & { files: number }; agents_read: number };
}

/**
 * The knowledge files the manifests, the state and the manifests' live agents name. `agents` maps the
 * manifests' agent local names to ids; an agent the service does not have attaches nothing.
 */
export async function readKnowledge(
  client: KnowledgeReader,
  managed: { files: readonly ManagedKnowledgeFile[]; agents: ReadonlyMap<string, string> },
  state: InventoryState,
): Promise<KnowledgeReport> {
  interface Entry {
    id: string | null;
    localName: string | null;
    file: string | null;
    record: { name: string; contentHash: string } | undefined;
    sources: Set<KnowledgeSource>;
    agents: Set<string>;
  }
  // Keyed by file id once known; a manifest file never uploaded is keyed by its address.
  const entries = new Map<string, Entry>();
  const byAddress = new Map<string, Entry>();
  for (const [address, record] of Object.entries(state.knowledge)) {
    const entry: Entry = { id: record.fileId, localName: null, file: null, record: { name: record.name, contentHash: record.contentHash }, sources: new Set(['state']), agents: new Set() };
    entries.set(record.fileId, entry);
    byAddress.set(address, entry);
  }
  for (const { localName, file } of managed.files) {
    const entry = byAddress.get(`knowledge.${localName}`) ?? { id: null, localName: null, file: null, record: undefined, sources: new Set<KnowledgeSource>(), agents: new Set<string>() };
    entry.localName = localName;
    entry.file = file;
    entry.sources.add('manifest');
    if (entry.id === null) entries.set(`knowledge.${localName}`, entry);
  }

  const agentIds = [...new Set(managed.agents.values())];
  const attached = await Promise.all(agentIds.map((id) => agentFiles(client, id)));
  let agentsRead = 0;
  agentIds.forEach((agentId, i) => {
    const files = attached[i];
    if (files === undefined) return;
    agentsRead++;
    for (const fileId of files) {
      const entry = entries.get(fileId) ?? { id: fileId, localName: null, file: null, record: undefined, sources: new Set<KnowledgeSource>(), agents: new Set<string>() };
      entry.sources.add('agent');
      entry.agents.add(agentId);
      entries.set(fileId, entry);
    }
  });

  const agentAddress = new Map([...managed.agents].map(([local, id]) => [id, `agent.${local}`]));
  const order: KnowledgeSource[] = ['manifest', 'state', 'agent'];
  const files = [...entries.values()].map(
    (entry): LiveKnowledgeFile => ({
      id: entry.id,
      name: entry.record?.name ?? null,
      file: entry.file,
      content_hash: entry.record?.contentHash ?? null,
      managed_by: entry.localName === null ? null : `knowledge.${entry.localName}`,
      agents: [...entry.agents].sort(byCodeUnits).map((id) => ({ id, managed_by: agentAddress.get(id) ?? null })),
      found_through: order.filter((source) => entry.sources.has(source)),
    }),
  );
  return {
    format_version: INVENTORY_FORMAT_VERSION,
    kind: 'knowledge',
    // Managed first (by address), then the rest by id, as `get agents` orders them.
    files: files.sort((a, b) => Number(a.managed_by === null) - Number(b.managed_by === null) || byCodeUnits(a.managed_by ?? a.id ?? '', b.managed_by ?? b.id ?? '')),
    sources: {
      manifest_files: managed.files.length,
      state: { ...stateSourceJson(state), files: Object.keys(state.knowledge).length },
      agents_read: agentsRead,
    },
  };
}

/** The file ids an agent attaches; undefined when the service has no agent of this id (404). */
async function agentFiles(client: KnowledgeReader, id: string): Promise<string[] | undefined> {
  // Only a 404 says the agent is gone; any other refusal is the service's answer to give (a key refused, a bad id).
  const agent = await agentIfExists(client, id);
  if (agent === undefined) return undefined;
  // The agent's config is the service's answer: anything but a list of ids attaches nothing.
  const files: unknown = liveKnowledgeFiles(agent.config);
  return Array.isArray(files) ? files.filter((file): file is string => typeof file === 'string' && file !== '') : [];
}
