import { VoxformError } from '../../errors.js';
import { readCampaigns } from '../../inventory/campaigns.js';
import { readLiveAgents, readLivePhones, type ManagedResources } from '../../inventory/inventory.js';
import { readKnowledge } from '../../inventory/knowledge.js';
import { renderAgentsText, renderCampaignsText, renderInventoryJson, renderKnowledgeText, renderPhonesText, type TableText } from '../../inventory/render.js';
import { readInventoryState, type InventoryState } from '../../inventory/state-records.js';
import type { ApiClient } from '../../api/index.js';
import type { StateBackend } from '../../state/backend.js';
import { readTrustedSecrets } from '../../state/trusted-secrets.js';
import type { LiveSource } from '../../secrets/trusted.js';
import { workspaceKey, type WorkspaceState } from '../../state/types.js';
import { didYouMean } from '../../util/did-you-mean.js';
import { printable } from '../../util/printable.js';
import { manifestAgentNames, resolveAgentArgument } from '../agent-argument.js';
import { resolveConnection } from '../connection.js';
import type { CommandContext } from '../context.js';
import { manifestProject, type ManifestProject } from '../load-manifests.js';
import { openOperatorBackend, type ProjectOptions } from '../project.js';

interface GetOptions extends ProjectOptions {
  format?: 'text' | 'json';
  /** `phones`, `agents`, `campaigns` or `knowledge` (commander checks), then an optional NAME. */
  args: string[];
}

/** `voxform get phones|agents|campaigns|knowledge [NAME]`: what is live, each entry marked with its manifest address or as unmanaged. */
export async function run(options: GetOptions, ctx: CommandContext): Promise<number> {
  const [kind, name] = options.args;
  // What the state records answers for what the service cannot return, and its ledger says which live names are secrets; its password is registered before anything is printed.
  const backend = await openOperatorBackend(options, ctx);
  const project = await manifestProject(options, ctx);
  const connection = await resolveConnection({ ...options, manifest: project.service }, ctx);
  const { client } = connection;
  const otherEnvironments = new Map([...project.environmentAgents].filter(([environment]) => environment !== options.env));
  const managed: ManagedResources = { agents: project.names, phones: project.phones, otherEnvironments };
  const json = options.format === 'json';
  // On a terminal the table is cut to its width, as `logs` cuts its own; a pipe gets every cell whole.
  const tableText: TableText = { redact: (text) => ctx.secrets.redact(text), maxWidth: ctx.stdout.columns };

  // Numbers and campaigns are the account's, so the other environments' workspaces say whose each is; a knowledge file is each environment's own.
  const workspace = workspaceKey(options.env, connection.serviceId);
  if (kind === 'campaigns' || kind === 'knowledge') {
    const state = await readInventoryState(backend, workspace, { otherEnvironments: kind !== 'knowledge' });
    const listed = kind === 'campaigns' ? await getCampaigns(client, project, state, name) : await getKnowledge(client, project, state, name);
    ctx.stdout.write(json ? renderInventoryJson(listed.report) : listed.render(tableText));
    return 0;
  }

  if (kind === 'phones') {
    // The phones too: a number another environment's apply bound is that environment's.
    const state = await readInventoryState(backend, workspace, { otherEnvironments: true });
    // A state that cannot be read is said under the table; which names are secrets is then not known, so none is shown.
    const own = state.problem === undefined && state.unreadEnvironments.length === 0 ? state.workspaces[0]?.workspace : undefined;
    const secretName = own === undefined ? () => true : await secretNames(backend, workspace, ctx, connection.liveSource, own);
    const report = await readLivePhones(client, managed, state, secretName);
    if (name !== undefined) {
      const phones = report.phones.filter((phone) => phone.number === name);
      if (phones.length === 0) {
        const suggestion = didYouMean(name, report.phones.map((phone) => phone.number));
        throw new VoxformError('phone_unknown', `The service has no phone number "${printable(name)}".`, {
          hint: suggestion ? `Did you mean ${suggestion}?` : 'Numbers are E.164 (+, country code, number); `voxform get phones` lists them.',
        });
      }
      report.phones = phones;
    }
    ctx.stdout.write(json ? renderInventoryJson(report) : renderPhonesText(report, tableText));
    return 0;
  }

  // NAME: an agent id, or the local name or name on the service of an agent of the manifests, as `logs --agent` takes.
  const id = name === undefined ? undefined : await resolveAgentArgument(name, manifestAgentNames(project), client, { label: 'agent' });
  const secretName = await secretNames(backend, workspace, ctx, connection.liveSource);
  const report = await readLiveAgents(client, managed, secretName, id === undefined ? [] : [id]);
  if (id !== undefined) report.agents = report.agents.filter((agent) => agent.id === id);
  ctx.stdout.write(json ? renderInventoryJson(report) : renderAgentsText(report, { ...tableText, filtered: id !== undefined }));
  return 0;
}

/**
 * Whether a live agent's name is a secret (`TrustedSecrets.hidesName`), from the workspace's evidence.
 * `own`: the workspace's state, when the command has read it already.
 */
async function secretNames(backend: StateBackend, workspace: string, ctx: CommandContext, liveSource: LiveSource, own?: WorkspaceState): Promise<(agent: { id: string; name: string }) => boolean> {
  const trusted = await readTrustedSecrets(backend, workspace, ctx.env, ctx.secrets, liveSource, own);
  return (agent) => trusted.hidesName(agent);
}

/** The campaigns, or the one NAME names (a manifest name or a campaign id), with their table. */
async function getCampaigns(client: ApiClient, project: ManifestProject, state: InventoryState, name: string | undefined) {
  const report = await readCampaigns(client, project.campaigns, state);
  if (name !== undefined) {
    const id = project.campaigns.get(name) ?? name;
    const all = report.campaigns;
    report.campaigns = all.filter((campaign) => campaign.id === id);
    if (report.campaigns.length === 0) throw unknownName('campaign', name, [...project.campaigns.keys(), ...all.map((campaign) => campaign.id)]);
  }
  return { report, render: (table: TableText) => renderCampaignsText(report, { ...table, filtered: name !== undefined }) };
}

/** The knowledge files, or the one NAME names (a manifest name or a file id), with their table. */
async function getKnowledge(client: ApiClient, project: ManifestProject, state: InventoryState, name: string | undefined) {
  const files = [...project.knowledge].map(([localName, file]) => ({ localName, file }));
  const report = await readKnowledge(client, { files, agents: project.names }, state);
  if (name !== undefined) {
    const all = report.files;
    report.files = all.filter((file) => file.managed_by === `knowledge.${name}` || file.id === name);
    if (report.files.length === 0) throw unknownName('knowledge file', name, [...project.knowledge.keys(), ...all.flatMap((file) => (file.id === null ? [] : [file.id]))]);
  }
  return { report, render: (table: TableText) => renderKnowledgeText(report, { ...table, filtered: name !== undefined }) };
}

/** NAME of `get campaigns|knowledge` is neither a manifest name nor an id voxform found. */
function unknownName(what: 'campaign' | 'knowledge file', name: string, candidates: string[]): VoxformError {
  const suggestion = didYouMean(name, candidates);
  const kind = what === 'campaign' ? 'campaigns' : 'knowledge';
  return new VoxformError(what === 'campaign' ? 'campaign_unknown' : 'knowledge_unknown', `${what} "${printable(name)}" is neither a ${what} of the manifests nor an id voxform found (\`voxform get ${kind}\` lists where it looks).`, {
    hint: suggestion ? `Did you mean ${suggestion}?` : `Give a manifest name or an id that \`voxform get ${kind}\` lists.`,
  });
}
