/** How the Markdown and HTML renderers write numbers, rates and verdicts, so both say the same. */
import { shortCommit } from '../history/types.js';
import { BASE_ENVIRONMENT_NAME, splitWorkspaceKey, unreadEnvironmentNote } from '../state/types.js';
import type { AgentReport, CallReport, DeployMarker, Difference, Rate, VersionReport } from './types.js';
import { shortHash } from '../util/hash.js';
import { plural } from '../util/plural.js';

/**
 * `value` with `digits` decimals, a half rounded away from zero on the decimal the number stands for:
 * `toFixed` rounds the binary double, so 28.75 read 28.7 while 1.75 read 1.8.
 */
export function fixedDecimals(value: number, digits: number): string {
  // Fifteen significant digits hold the decimal a double stands for; the binary error lies below them.
  const units = Math.round(Number((Math.abs(value) * 10 ** digits).toPrecision(15)));
  const text = (units / 10 ** digits).toFixed(digits);
  return value < 0 && units !== 0 ? `-${text}` : text;
}

export function percent(value: number | null): string {
  return value === null ? '–' : `${fixedDecimals(value * 100, 1)}%`;
}

/** `4.0% (2.1–7.3%)`: the rate and its 95% interval. */
export function rateText(rate: Rate): string {
  if (rate.value === null) return '–';
  return `${percent(rate.value)} (${percent(rate.low)}–${percent(rate.high)})`;
}

export function secondsText(value: number | null): string {
  if (value === null) return '–';
  return value >= 100 ? `${fixedDecimals(value, 0)}s` : `${fixedDecimals(value, 1)}s`;
}

export function creditsText(value: number | null): string {
  return value === null ? '–' : fixedDecimals(value, 3);
}

/** A change the data show (verdict `higher` or `lower`) as a short phrase; `unit` formats its interval. */
function differenceText(difference: Difference, unit: (value: number) => string): string {
  const arrow = difference.verdict === 'higher' ? '▲ higher' : '▼ lower';
  const range = difference.low !== null && difference.high !== null ? ` (${unit(difference.low)} to ${unit(difference.high)})` : '';
  return `${arrow}${range}`;
}

/**
 * `+1.2`/`−1.2`: `digits` decimals or, where those would read as zero, as many as show the value's
 * first digit, so the bound of an interval that excludes zero never reads as touching it.
 */
function signed(value: number, digits: number): string {
  const magnitude = Math.abs(value);
  let shown = digits;
  while (magnitude > 0 && Number(fixedDecimals(magnitude, shown)) === 0 && shown < 20) shown++;
  return `${value >= 0 ? '+' : '−'}${fixedDecimals(magnitude, shown)}`;
}

export function signedPoints(value: number): string {
  return `${signed(value * 100, 1)} pts`;
}

export function signedSeconds(value: number): string {
  return `${signed(value, 1)}s`;
}

export function signedCredits(value: number): string {
  return signed(value, 3);
}

/**
 * The names of one agent's versions, in order: each its `versionLabel`, and where two would read the
 * same (two applies from one work tree with changes), each of those with its record id.
 */
export function versionLabels(versions: readonly VersionReport[]): string[] {
  const labels = versions.map(versionLabel);
  return labels.map((label, index) => {
    const recordId = versions[index]?.deploy?.record_id;
    return recordId !== undefined && labels.indexOf(label) !== labels.lastIndexOf(label) ? `${label} · ${recordId}` : label;
  });
}

/**
 * A version's name for people: `PR #42 · 3f9a2c1` (`… with uncommitted changes`) / the record id,
 * `rollback to 3f9a2c1 (record …)`, or "changed outside voxform".
 */
function versionLabel(version: VersionReport): string {
  const deploy = version.deploy;
  if (!deploy) return `changed outside voxform (${shortHash(version.config_hash)})`;
  // A rollback's own pull request and commit are only what was checked out when it ran.
  if (deploy.rollback_of) return rollbackText(deploy.rollback_of);
  const parts: string[] = [];
  if (deploy.pull_request !== null) parts.push(`PR #${deploy.pull_request}`);
  if (deploy.commit) parts.push(shortCommit(deploy.commit, deploy.uncommitted));
  if (parts.length === 0) parts.push(deploy.record_id);
  if (deploy.promoted_from) parts.push(`promoted from ${splitWorkspaceKey(deploy.promoted_from.workspace)?.environment ?? deploy.promoted_from.workspace}`);
  return parts.join(' · ');
}

/** `rollback to 3f9a2c1 (record …)`: the configuration a rollback restored, by its commit when known. */
function rollbackText(restored: NonNullable<DeployMarker['rollback_of']>): string {
  return restored.commit ? `rollback to ${shortCommit(restored.commit, restored.uncommitted)} (record ${restored.record})` : `rollback to record ${restored.record}`;
}

/** The lines of the comparison: what differs from the version before, where the data say so. */
export function comparisonSummary(version: VersionReport, minCalls: number): string {
  const comparison = version.comparison;
  if (!comparison) return 'first version in the window';
  if (!comparison.enough_calls) {
    // The version before may be the one short of calls: it will get no more.
    return version.metrics.calls >= minCalls ? `the version before has too few calls to compare (${minCalls} per version needed)` : `not enough calls yet (${minCalls} per version needed)`;
  }
  const changes: string[] = [];
  const say = (label: string, difference: Difference, unit: (value: number) => string) => {
    if (difference.verdict === 'higher' || difference.verdict === 'lower') changes.push(`${label} ${differenceText(difference, unit)}`);
  };
  say('errors', comparison.error_rate, signedPoints);
  say('transfers', comparison.transfer_rate, signedPoints);
  say('tool failures', comparison.tool_failure_rate, signedPoints);
  say('mean duration', comparison.mean_duration_seconds, signedSeconds);
  say('credits per call', comparison.mean_credits_per_call, signedCredits);
  return changes.length === 0 ? 'no clear difference' : changes.join('; ');
}

/** What the reports call the calls whose records name no agent (an empty agent_id): an empty title would read as nothing. */
export const NO_AGENT_TITLE = '(no agent id)';

/** What the reports call an agent: its local name when voxform manages it, else its name on the service, else its id. */
export function agentTitle(agent: AgentReport): string {
  return agent.managed ? agent.name : agent.service_name ?? (agent.agent_id === '' ? NO_AGENT_TITLE : agent.agent_id);
}

/**
 * A time as the reports write it: `2026-03-01 09:00:05 UTC`. Always to the second, so deploys and
 * window ends seconds apart never read the same.
 */
export function utcTime(iso: string): string {
  return `${iso.slice(0, 19).replace('T', ' ')} UTC`;
}

/** The window's two ends as the reports write them: a time in UTC, or `the first call` and `now` when open. */
export function windowEnds(report: CallReport): { since: string; until: string } {
  return { since: report.window.since ? utcTime(report.window.since) : 'the first call', until: report.window.until ? utcTime(report.window.until) : 'now' };
}

/** What the report did with the calls of voxform's own sessions (`voxform test`, `chat`); undefined when there were none. */
export function testTrafficLine(report: CallReport): string | undefined {
  const { calls, included } = report.test_traffic;
  if (calls === 0) return undefined;
  const what = `${plural(calls, 'test call')} (made by \`voxform test\` or \`voxform chat\`)`;
  return included ? `Includes ${what}: \`--include-tests\` was given.` : `${what} left out of every figure; \`--include-tests\` counts them.`;
}

/** What an environment whose workspace could not be read costs the report: its agents are taken for ones voxform does not manage. */
const UNREAD_COST = (environment: string) => `an agent ${environment} applies is reported here as one voxform does not manage, its calls not left out`;

/** A line for each other environment whose workspace could not be read: plain text, which each renderer escapes. */
export function unreadEnvironmentLines(report: CallReport): string[] {
  return (report.unread_environments ?? []).map((unread) => unreadEnvironmentNote(unread, UNREAD_COST));
}

/** The calls of other environments' agents, left out: one line, or undefined when there were none. */
export function otherEnvironmentsLine(report: CallReport): string | undefined {
  if (report.other_environments.length === 0) return undefined;
  const each = report.other_environments.map(({ environment, agents, calls }) => {
    const which = environment === BASE_ENVIRONMENT_NAME ? 'the default environment (`voxform report` without `--env` reports them)' : `environment ${environment} (\`--env ${environment}\` reports them)`;
    return `${plural(calls, 'call')} of ${plural(agents, 'agent')} of ${which}`;
  });
  return `Left out: ${each.join('; ')}.`;
}
