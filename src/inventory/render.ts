/** The inventory as a table (text) or as versioned JSON. The service's names are data: control characters shown as `?`. */
import { REDACTED } from '../secrets/redact.js';
import { missingStateWarning } from '../state/missing-state.js';
import { unreadEnvironmentNote } from '../state/types.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import { renderTable } from '../util/table.js';
import type { AgentsReport, LiveAgent, LivePhone, PhonesReport } from './inventory.js';
import type { CampaignsReport, LiveCampaign } from './campaigns.js';
import type { KnowledgeReport, LiveKnowledgeFile } from './knowledge.js';
import type { StateSourceJson } from './state-records.js';
import { plural, pluralNoun } from '../util/plural.js';

const UNMANAGED = 'unmanaged';

/** The MANAGED BY cell of a phone, agent or campaign: its address in the manifests, after the other environment whose it is (`staging: agent.a`); `unmanaged` when none. */
function managedByCell(resource: { managed_by: string | null; environment: string | null }): string {
  if (resource.managed_by === null) return UNMANAGED;
  return resource.environment === null ? resource.managed_by : `${resource.environment}: ${resource.managed_by}`;
}

/**
 * How a text table is made: `redact` hides secret values before the columns are sized, so they stay
 * aligned and show no secret's length; `maxWidth`, a terminal's width (never a pipe's), to which the
 * widest of the columns marked `*` are cut with `…`, as `voxform logs` cuts its table (util/table.ts).
 */
export interface TableText {
  redact?: (text: string) => string;
  maxWidth?: number | undefined;
}

/**
 * `header`: the titles; one ending in `*` (`NAME*`) is a column that may be cut to fit a terminal.
 * The id or number a row is of is never cut: it is what other commands take, copied from here.
 */
function table(header: string[], rows: string[][], { redact = (text) => text, maxWidth }: TableText): string {
  const columns = header.map((title) => (title.endsWith('*') ? { title: title.slice(0, -1), shrinkable: true } : { title }));
  return renderTable(columns, rows.map((row) => row.map(redact)), { gap: 3, maxWidth });
}

/**
 * What a listing loses when the state cannot tell it: `missing`, this environment's workspace lost
 * (missing-state.ts); `unread`, another environment's (`environment`: its name in prose) not read.
 */
interface StateCosts {
  missing: string;
  unread?: (environment: string) => string;
}

const PHONE_STATE_COSTS: StateCosts = {
  missing: 'Without it voxform cannot tell which numbers this environment bound: one another environment bound alike is marked with that environment.',
  unread: (environment) => `no number is marked with ${environment}`,
};

export function renderPhonesText(report: PhonesReport, options: TableText = {}): string {
  const body = report.phones.length === 0 ? 'The service has no phone numbers.\n' : phonesTable(report, options);
  return withNotes(body, [], report.sources.state, PHONE_STATE_COSTS);
}

function phonesTable(report: PhonesReport, options: TableText): string {
  const rows = report.phones.map((phone) => [
    phone.number,
    phone.status ?? '—',
    phone.agent_id === null ? '—' : `${phone.agent_id} ${nameByNumber(phone)}`,
    managedByCell(phone),
  ]);
  return table(['PHONE', 'STATUS', 'AGENT*', 'MANAGED BY*'], rows, options);
}

const SOURCE_WORDS: Record<LiveAgent['found_through'][number], string> = { manifest: 'manifest', phone: 'phone', call: 'calls', named: 'named' };

export function renderAgentsText(report: AgentsReport, options: TableText & { filtered?: boolean } = {}): string {
  const rows = report.agents.map((agent) => [
    agent.id,
    agent.exists ? agent.name ?? '' : '(not on the service)',
    managedByCell(agent),
    agent.found_through.map((source) => SOURCE_WORDS[source]).join(', '),
    agent.phones.join(', ') || '—',
  ]);
  const body = rows.length === 0 ? 'No agents found.\n' : table(['AGENT', 'NAME*', 'MANAGED BY*', 'FOUND THROUGH*', 'PHONES*'], rows, options);
  return options.filtered ? body : `${body}\n${sourcesNote(report)}\n`;
}

/** The service cannot list its agents: the note says where these came from, and what may be missing. */
function sourcesNote(report: AgentsReport): string {
  const { sources } = report;
  const calls = `${sources.more_calls ? 'the latest ' : ''}${plural(sources.calls_read, 'call')}`;
  return (
    `The service has no list of agents: these are the agents the manifests name (${sources.manifest_agents}), ` +
    `the ${plural(sources.phones, 'phone number')} answer with, and ${calls} ran with. ` +
    'An agent with none of these is not shown.'
  );
}

export function renderInventoryJson(report: PhonesReport | AgentsReport | CampaignsReport | KnowledgeReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

const CAMPAIGN_SOURCE_WORDS: Record<LiveCampaign['found_through'][number], string> = { manifest: 'manifest', state: 'state', call: 'calls' };

export function renderCampaignsText(report: CampaignsReport, options: TableText & { filtered?: boolean } = {}): string {
  const rows = report.campaigns.map((campaign) => [
    campaign.id,
    campaign.last_applied?.name ?? '—',
    campaign.last_applied?.caller ?? '—',
    managedByCell(campaign),
    campaign.found_through.map((source) => CAMPAIGN_SOURCE_WORDS[source]).join(', '),
    String(campaign.calls),
  ]);
  const body = rows.length === 0 ? 'No campaigns found.\n' : table(['CAMPAIGN', 'NAME*', 'CALLER', 'MANAGED BY*', 'FOUND THROUGH*', 'CALLS'], rows, options);
  return withNotes(body, options.filtered ? [] : [campaignSourcesNote(report)], report.sources.state, CAMPAIGN_STATE_COSTS);
}

/** Campaigns and knowledge files: what voxform applied of them is what only the state knows. */
const RECORDS_LOST = 'Without it voxform cannot tell which campaigns and knowledge files it applied: they are listed as the other sources find them.';

const CAMPAIGN_STATE_COSTS: StateCosts = {
  missing: RECORDS_LOST,
  unread: (environment) => `no campaign is marked with ${environment}, and a campaign ${environment} applied last may show an older NAME and CALLER than the service holds`,
};

/** How many the state records, and of which workspace; none counted from a state that could not be read (the note under the table says why). */
function stateCount(count: number, state: { workspace: string; problem?: string }): string {
  return state.problem === undefined ? `${count}, workspace ${state.workspace}` : `workspace ${state.workspace}, which could not be read`;
}

/** The service can neither list nor read campaigns: the note says where these came from, and what NAME and CALLER are. */
export function campaignSourcesNote(report: CampaignsReport): string {
  const { sources } = report;
  const calls = `${sources.more_calls ? 'the latest ' : 'the '}${plural(sources.calls_read, 'call')}`;
  return (
    `The service has no list of campaigns: these are the campaigns the manifests name (${sources.manifest_campaigns}), ` +
    `the campaigns the state records (${stateCount(sources.state.campaigns, sources.state)}), and the campaigns ${calls} ran for. ` +
    'NAME and CALLER are what voxform last applied, in whichever environment applied it last: the service cannot read a campaign back. A campaign with none of these is not shown.'
  );
}

const KNOWLEDGE_SOURCE_WORDS: Record<LiveKnowledgeFile['found_through'][number], string> = { manifest: 'manifest', state: 'state', agent: 'agents' };

export function renderKnowledgeText(report: KnowledgeReport, options: TableText & { filtered?: boolean } = {}): string {
  const rows = report.files.map((file) => [
    file.id ?? '(not uploaded)',
    file.name ?? '—',
    file.managed_by ?? UNMANAGED,
    file.found_through.map((source) => KNOWLEDGE_SOURCE_WORDS[source]).join(', '),
    file.agents.map((agent) => agent.managed_by ?? agent.id).join(', ') || '—',
  ]);
  const body = rows.length === 0 ? 'No knowledge files found.\n' : table(['FILE', 'NAME*', 'MANAGED BY*', 'FOUND THROUGH*', 'AGENTS*'], rows, options);
  return withNotes(body, options.filtered ? [] : [knowledgeSourcesNote(report)], report.sources.state, KNOWLEDGE_STATE_COSTS);
}

/** Knowledge files are each environment's own: the other environments' workspaces are not read. */
const KNOWLEDGE_STATE_COSTS: StateCosts = { missing: RECORDS_LOST };

/** The service can neither list nor read knowledge files: the note says where these came from. */
export function knowledgeSourcesNote(report: KnowledgeReport): string {
  const { sources } = report;
  return (
    `The service has no list of knowledge files: these are the files the manifests name (${sources.manifest_files}), ` +
    `the files the state records (${stateCount(sources.state.files, sources.state)}), and the files the manifests' ${plural(sources.agents_read, 'live agent')} ${pluralNoun(sources.agents_read, 'attaches', 'attach')}. ` +
    'A file with none of these is not shown.'
  );
}

/** The table, then its notes; a state that could not be read, this environment's or another's, is said whatever else is left out. */
function withNotes(body: string, notes: string[], state: StateSourceJson, costs: StateCosts): string {
  const all = [...notes];
  if (state.problem !== undefined) all.push(`The state could not be read, so what it records is not shown: ${controlsAsQuestionMarks(state.problem)}`);
  const missing = state.missing_state;
  if (missing) all.push(controlsAsQuestionMarks(missingStateWarning({ state: missing.state, lastApply: missing.last_apply }, state.workspace, costs.missing)));
  const { unread: cost } = costs;
  if (cost) for (const unread of state.unread_environments ?? []) all.push(unreadEnvironmentNote(unread, cost));
  return all.length === 0 ? body : `${body}\n${all.join('\n')}\n`;
}

/** The name shown beside a number's agent id: in parentheses, a withheld one as `(sensitive)` alone. */
function nameByNumber({ agent_name: name, agent_exists: exists }: Pick<LivePhone, 'agent_name' | 'agent_exists'>): string {
  if (name === null) return exists ? '(no name)' : '(not found)';
  return name === REDACTED ? REDACTED : `(${name})`;
}
