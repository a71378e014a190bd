/** The inventory as a table (text) or as versioned JSON. The service's names are data: control characters shown as `?`. */
import { controlsAsQuestionMarks } from '../util/printable.js';
import type { AgentsReport, LiveAgent, PhonesReport } from './inventory.js';
import { plural } from '../util/plural.js';

const GAP = '   ';
const UNMANAGED = 'unmanaged';

function table(header: string[], rows: string[][]): string {
  const cells = rows.map((row) => row.map(controlsAsQuestionMarks));
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((row) => (row[i] as string).length)));
  const line = (row: string[]) => `${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] as number))).join(GAP)}`.trimEnd();
  return [line(header), ...cells.map(line)].map((text) => `${text}\n`).join('');
}

export function renderPhonesText(report: PhonesReport): string {
  if (report.phones.length === 0) return 'The service has no phone numbers.\n';
  const rows = report.phones.map((phone) => [
    phone.number,
    phone.status ?? '—',
    phone.agent_id === null ? '—' : `${phone.agent_id}${phone.agent_name === null ? ' (not found)' : ` (${phone.agent_name})`}`,
    phone.managed_by ?? UNMANAGED,
  ]);
  return table(['PHONE', 'STATUS', 'AGENT', 'MANAGED BY'], rows);
}

const SOURCE_WORDS: Record<LiveAgent['found_through'][number], string> = { manifest: 'manifest', phone: 'phone', call: 'calls', named: 'named' };

export function renderAgentsText(report: AgentsReport, options: { filtered?: boolean } = {}): string {
  const rows = report.agents.map((agent) => [
    agent.id,
    agent.exists ? agent.name ?? '' : '(not on the service)',
    agent.managed_by ?? UNMANAGED,
    agent.found_through.map((source) => SOURCE_WORDS[source]).join(', '),
    agent.phones.join(', ') || '—',
  ]);
  const body = rows.length === 0 ? 'No agents found.\n' : table(['AGENT', 'NAME', 'MANAGED BY', 'FOUND THROUGH', 'PHONES'], rows);
  return options.filtered ? body : `${body}\n${sourcesNote(report)}\n`;
}

/** The service cannot list its agents: the note says where these came from, and what may be missing. */
export function sourcesNote(report: AgentsReport): string {
  const { sources } = report;
  const calls = `${sources.more_calls ? 'the latest ' : ''}${plural(sources.calls_read, 'call')}`;
  return (
    `The service has no list of agents: these are the agents the manifests name (${sources.manifest_agents}), ` +
    `the ${plural(sources.phones, 'phone number')} answer with, and ${calls} ran with. ` +
    'An agent with none of these is not shown.'
  );
}

export function renderInventoryJson(report: PhonesReport | AgentsReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
