/**
 * The version comparison as Markdown, for a pull-request or release comment; every value from the
 * service or the repository passes `markdownText`. Within a comment's size limit by the rule every
 * comment shares (`fitBlocks`): the totals stay, the agents' tables that fit follow, the rest counted.
 */
import { NO_AGENT_TITLE, comparisonSummary, creditsText, otherEnvironmentsLine, rateText, secondsText, testTrafficLine, unreadEnvironmentLines, utcTime, versionLabels, windowEnds } from './format.js';
import type { AgentReport, CallReport } from './types.js';
import { COMMENT_SIZE_LIMIT, fitBlocks } from '../util/comment-blocks.js';
import { keepText, type Redact } from '../secrets/redact.js';
import { markdownCode, markdownText } from '../util/markdown-escape.js';
import { formatCount, plural } from '../util/plural.js';

/** At most a comment's bytes (COMMENT_SIZE_LIMIT). */
export function renderReportMarkdown(report: CallReport, redact: Redact = keepText): string {
  const lines = ['## Call report', ''];
  const { since, until } = windowEnds(report);
  lines.push(`From ${since} to ${until} · ${plural(report.calls, 'call')} · intervals are 95%; a difference is claimed only when its interval excludes zero; versions with fewer than ${plural(report.min_calls, 'call')} are not compared.`);
  for (const line of [testTrafficLine(report), otherEnvironmentsLine(report)]) if (line) lines.push('', line);
  for (const line of unreadEnvironmentLines(report)) lines.push('', markdownText(line));
  if (report.agents.length === 0) lines.push('', 'No calls in the window.');
  // Each agent's table follows a blank line.
  const tables = report.agents.map((agent) => ['', ...agentTable(agent, report.min_calls)].join('\n'));
  const more = (omitted: number) => `\n_…and ${plural(omitted, 'more agent')}, not shown here (\`--format json\` has them all)._`;
  return `${fitBlocks([lines, { head: [], items: tables, foot: [], most: Number.POSITIVE_INFINITY, more }], COMMENT_SIZE_LIMIT, redact).join('\n')}\n`;
}

/** The three most frequent statuses and how many calls ended otherwise. */
function outcomesText(byStatus: Record<string, number>): string {
  const entries = Object.entries(byStatus);
  const shown = entries.slice(0, 3).map(([status, count]) => `${status} ${count}`);
  const rest = entries.slice(3).reduce((sum, [, count]) => sum + count, 0);
  return rest > 0 ? `${shown.join(', ')}, others ${rest}` : shown.join(', ');
}

function agentTable(agent: AgentReport, minCalls: number): string[] {
  // An agent voxform does not manage: its name on the service, and its id, which tells it apart.
  const id = agent.agent_id === '' ? NO_AGENT_TITLE : markdownCode(agent.agent_id);
  const heading = agent.managed ? markdownText(agent.name) : agent.service_name === null ? id : `${markdownText(agent.service_name)} · ${id}`;
  const lines = [`### ${heading}`, ''];
  lines.push('| version | deployed | calls | outcomes | error rate | transfer rate | duration median / p90 | credits per call | tool calls (failed) | against the version before |');
  lines.push('|---|---|--:|---|---|---|---|--:|--:|---|');
  const labels = versionLabels(agent.versions);
  for (const [index, version] of agent.versions.entries()) {
    const m = version.metrics;
    const cells = [
      markdownText(labels[index] ?? ''),
      version.deploy ? markdownText(utcTime(version.deploy.at)) : '–',
      formatCount(m.calls),
      markdownText(outcomesText(m.by_status)),
      rateText(m.error_rate),
      rateText(m.transfer_rate),
      `${secondsText(m.duration_seconds.median)} / ${secondsText(m.duration_seconds.p90)}`,
      creditsText(m.credits.mean_per_call),
      `${m.tool_calls.calls} (${m.tool_calls.failed})`,
      comparisonSummary(version, minCalls),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}
