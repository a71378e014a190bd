/**
 * The report as one self-contained HTML file: uPlot and the data inlined, and a Content-Security-Policy
 * allowing exactly those inline scripts and styles (by hash) and no network. Everything from the
 * service or the repository is escaped (HTML text here, `textContent` in the browser).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { cspSourceHash } from '../util/hash.js';
import { plural } from '../util/plural.js';
import { printable, unicodeEscape } from '../util/printable.js';
import { agentTitle, comparisonSummary, creditsText, otherEnvironmentsLine, rateText, secondsText, testTrafficLine, unreadEnvironmentLines, utcTime, versionLabels, windowEnds } from './format.js';
import { HTML_CLIENT_SCRIPT, INTL_LANGUAGE_SCRIPT } from './html-client.js';
import type { AgentReport, CallReport, VersionReport } from './types.js';

/** Text from the service or the repository as the page shows it: its controls escaped as a terminal shows them (`printable`), then HTML's own characters. */
export function escapeHtml(text: string): string {
  return printable(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `value` with every string in it, keys too, as `printable` shows it: the page puts them in as text, where a bidi control would reorder it. */
function shownStrings(value: unknown): unknown {
  if (typeof value === 'string') return printable(value);
  if (Array.isArray(value)) return value.map(shownStrings);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [printable(key), shownStrings(item)]));
  return value;
}

/** The page's data as JSON: its strings as the page shows them, and no character that can end its `<script>` block or start a comment in it. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(shownStrings(value)).replace(/[<>&\u2028\u2029]/g, unicodeEscape);
}

let library: { script: string; style: string } | undefined;

/** uPlot's browser build and stylesheet, from the installed package. */
function chartLibrary(): { script: string; style: string } {
  if (!library) {
    const folder = path.join(path.dirname(createRequire(import.meta.url).resolve('uplot/package.json')), 'dist');
    const script = readFileSync(path.join(folder, 'uPlot.iife.min.js'), 'utf8');
    // A script that contained its own end tag would end the block early.
    if (/<\/script/i.test(script)) throw new Error('the chart library contains "</script" and cannot be inlined');
    library = { script, style: readFileSync(path.join(folder, 'uPlot.min.css'), 'utf8') };
  }
  return library;
}

const PAGE_STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; padding: 0 24px; max-width: 1200px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 17px; margin: 32px 0 4px; } h3 { font-size: 14px; margin: 16px 0 4px; }
.meta { color: #555; font-weight: normal; }
.agent-id { display: block; font-size: 12px; overflow-wrap: anywhere; }
.test-traffic { background: #fdf2e9; border-left: 3px solid #d35400; padding: 4px 8px; }
.chart { position: relative; min-height: 240px; }
.chart-failed { margin: 0; padding: 16px; border: 1px dashed #b03a2e; color: #b03a2e; }
.legend { list-style: none; padding: 0; margin: 8px 0; display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 13px; }
.legend li { overflow-wrap: anywhere; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 6px; vertical-align: -1px; border-radius: 2px; }
.deploy-marker { position: absolute; top: 0; bottom: 0; width: 16px; margin-left: -8px; cursor: pointer; z-index: 10; outline-offset: -2px; }
.deploy-popup { display: none; position: absolute; top: 8px; left: 16px; width: max-content; max-width: 280px; box-sizing: border-box; background: #fff; border: 1px solid #6c3483; border-radius: 4px; box-shadow: 0 2px 6px rgba(0,0,0,.15); padding: 6px 8px; font-size: 12px; z-index: 20; overflow-wrap: anywhere; }
.deploy-popup .note { color: #555; font-style: italic; }
.deploy-marker.open .deploy-popup { display: block; }
.chart-tip { display: none; position: absolute; pointer-events: none; max-width: 260px; box-sizing: border-box; background: rgba(255,255,255,.96); border: 1px solid #888; border-radius: 4px; padding: 4px 8px; font-size: 12px; z-index: 15; overflow-wrap: anywhere; }
.rate-plot { margin: 8px 0; } .rate-plot figcaption { font-size: 13px; color: #333; }
.rate-plot svg { display: block; max-width: 100%; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; margin: 12px 0; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
td.num { text-align: right; }
@media (max-width: 600px) { body { padding: 0 10px; margin: 12px auto; } th, td { padding: 3px 5px; font-size: 12px; min-width: 5em; } td:nth-child(4), td:last-child { min-width: 11em; } }
`;

export function renderReportHtml(report: CallReport): string {
  const { script: chartScript, style: chartStyle } = chartLibrary();
  const style = `${chartStyle}\n${PAGE_STYLE}`;
  const csp = [
    "default-src 'none'",
    `script-src ${cspSourceHash(INTL_LANGUAGE_SCRIPT)} ${cspSourceHash(chartScript)} ${cspSourceHash(HTML_CLIENT_SCRIPT)}`,
    `style-src ${cspSourceHash(style)}`,
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; '); // made here only: hashes (base64) and keywords, nothing to escape
  const body = report.agents.length === 0 ? '<p>No calls in the window.</p>' : report.agents.map((agent, index) => agentSection(agent, index, report.min_calls, report.test_traffic.included)).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<title>voxform call report</title>
<style>${style}</style>
</head>
<body>
<h1>Call report</h1>
<p class="meta">${escapeHtml(windowLine(report))}</p>
${noteParagraphs(report)}${body}
<script type="application/json" id="report-data">${jsonForScript(report)}</script>
<script type="application/json" id="report-labels">${jsonForScript(chartLabels(report))}</script>
<script>${INTL_LANGUAGE_SCRIPT}</script>
<script>${chartScript}</script>
<script>${HTML_CLIENT_SCRIPT}</script>
</body>
</html>
`;
}

/** The lines on calls left out (test traffic, other environments' agents), and on environments whose workspace could not be read. */
function noteParagraphs(report: CallReport): string {
  // The lines mark commands with backticks for Markdown; here they are code. A problem the state said is text alone.
  const leftOut = [testTrafficLine(report), otherEnvironmentsLine(report)].flatMap((line) => (line ? [escapeHtml(line).replace(/`([^`]*)`/g, '<code>$1</code>')] : []));
  return [...leftOut, ...unreadEnvironmentLines(report).map(escapeHtml)].map((html) => `<p class="test-traffic">${html}</p>\n`).join('');
}

function windowLine(report: CallReport): string {
  const { since, until } = windowEnds(report);
  return `Workspace ${report.workspace} · from ${since} to ${until} · ${plural(report.calls, 'call')} · generated ${report.generated_at}. Intervals are 95% (Wilson for rates, Newcombe for their differences); a difference is claimed only when its interval excludes zero; versions with fewer than ${plural(report.min_calls, 'call')} are not compared.`;
}

/**
 * Per agent and version, the texts the page's script shows: `v1`, `v2`… in the order of the table,
 * the table's name for it (`versionLabels`, the one rule), that name with who deployed it, and each
 * rate as the table writes it.
 */
function chartLabels(report: CallReport): Array<Array<{ short: string; title: string; full: string; rates: Record<string, string> }>> {
  return report.agents.map((agent) =>
    versionLabels(agent.versions).map((title, index) => {
      const version = agent.versions[index] as VersionReport;
      const deploy = version.deploy;
      const { error_rate, transfer_rate, tool_calls } = version.metrics;
      const rates = { error_rate: rateText(error_rate), transfer_rate: rateText(transfer_rate), tool_failure_rate: rateText(tool_calls.failure_rate) };
      return { short: `v${index + 1}`, title, full: deploy ? `${title} · by ${deploy.by}` : title, rates };
    }),
  );
}

function agentSection(agent: AgentReport, index: number, minCalls: number, testsIncluded: boolean): string {
  const labels = versionLabels(agent.versions);
  const rows = agent.versions.map((version, versionIndex) => {
    const m = version.metrics;
    const cells = [
      `<td>${escapeHtml(`v${versionIndex + 1} · ${labels[versionIndex] ?? ''}`)}</td>`,
      `<td>${version.deploy ? escapeHtml(utcTime(version.deploy.at)) : '–'}</td>`,
      `<td class="num">${m.calls}</td>`,
      `<td>${escapeHtml(Object.entries(m.by_status).map(([status, count]) => `${status} ${count}`).join(', '))}</td>`,
      `<td>${escapeHtml(rateText(m.error_rate))}</td>`,
      `<td>${escapeHtml(rateText(m.transfer_rate))}</td>`,
      `<td>${escapeHtml(`${secondsText(m.duration_seconds.median)} / ${secondsText(m.duration_seconds.p90)}`)}</td>`,
      `<td class="num">${escapeHtml(creditsText(m.credits.mean_per_call))}</td>`,
      `<td class="num">${m.tool_calls.calls} (${m.tool_calls.failed})</td>`,
      `<td>${escapeHtml(comparisonSummary(version, minCalls))}</td>`,
    ];
    return `<tr>${cells.join('')}</tr>`;
  });
  return `<section>
<h2>${escapeHtml(agentTitle(agent))} <span class="meta">· ${plural(agent.calls, 'call')}${agent.test_calls > 0 ? ` (${plural(agent.test_calls, 'test call')} ${testsIncluded ? 'included' : 'left out'})` : ''}</span><span class="meta agent-id">${escapeHtml(agent.agent_id)}</span></h2>
<div class="chart" id="chart-${index}"></div>
<ul class="legend" id="legend-${index}"></ul>
<h3>Rates per version</h3>
<div class="rates" id="rates-${index}"></div>
<div class="table-wrap">
<table>
<thead><tr><th>version</th><th>deployed</th><th>calls</th><th>outcomes</th><th>error rate</th><th>transfer rate</th><th>duration median / p90</th><th>credits per call</th><th>tool calls (failed)</th><th>against the version before</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</div>
</section>`;
}
