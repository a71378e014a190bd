import { applyCounts } from '../history/render.js';
import { describeForcedOpen, describeHolder } from '../state/backend.js';
import { forcedOpenJson, lastApplyJson, lockHolderJson } from '../state/json-words.js';
import { BASE_ENVIRONMENT_NAME } from '../state/types.js';
import { someOf } from '../util/plural.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import type { KeyType, StatusReport } from './status.js';
import { describeVersion } from './versions.js';
import { greatest } from '../util/extremes.js';

const KEY_WORDS: Record<KeyType, string> = {
  private: 'private (accepted for plan and apply)',
  public: 'public (refused for plan and apply)',
  invalid: 'invalid (refused by the service)',
  missing: 'missing (nothing was sent)',
  unchecked: 'not checked',
};

const OUTCOME_WORDS: Record<string, string> = {
  applied: 'complete',
  failed: 'finished with errors',
  interrupted: 'interrupted',
  nothing_to_do: 'nothing to do',
};

/** The report as aligned `Label: value` lines. Holds no secret: the report has none to hold. */
export function renderStatusText(report: StatusReport): string {
  const { service, key, manifest, lock } = report;
  const lines: Array<[string, string]> = [
    ['Service', `${service.id === 'local' ? 'local (the embedded emulator)' : service.base_url} (from ${service.source})`],
    ['Region', service.region ?? '— (not a regional gateway)'],
    ['API key', `${KEY_WORDS[key.type]}${key.problem ? `: ${key.problem}` : ''}`],
    ['Environment', `${manifest.environment ?? BASE_ENVIRONMENT_NAME}${manifest.problem ? ` (manifests not read: ${manifest.problem})` : ''}`],
    ['State', stateLine(report)],
    ['Lock', `${lock.held ? `held by ${describeHolder(lock)}` : lock.held === null ? 'unknown (the state could not be read)' : 'not held'}${lastForcedOpenClause(report)}`],
    ['Last apply', lastApplyLine(report)],
    ['Version', describeVersion(report.voxform)],
  ];
  const width = greatest(lines.map(([label]) => label.length)) + 1;
  // Values come from the state and a lock's holder, which anyone may have written.
  return lines.map(([label, value]) => `${`${label}:`.padEnd(width)} ${controlsAsQuestionMarks(value)}\n`).join('');
}

/** The report as versioned JSON (`format_version`), what it tells of the state in snake_case as its own keys are. */
export function renderStatusJson(report: StatusReport): string {
  const { lock, last_forced_open: forced, last_apply: last } = report;
  return `${JSON.stringify(
    {
      ...report,
      lock: lock.held ? { held: true, ...lockHolderJson(lock) } : lock,
      last_forced_open: forced && forcedOpenJson(forced),
      last_apply: last && lastApplyJson(last),
    },
    null,
    2,
  )}\n`;
}

/** `; last forced open: lock 3f9a… by ana@ops-1 (…) at …` after the Lock line, when one was recorded. */
function lastForcedOpenClause(report: StatusReport): string {
  return report.last_forced_open ? `; last forced open: ${describeForcedOpen(report.last_forced_open)}` : '';
}

/** How many of the other workspaces the State line names. */
const OTHERS_SHOWN = 5;

function stateLine(report: StatusReport): string {
  const { state } = report;
  if (state.problem) return `${state.file} (unreadable: ${state.problem})`;
  if (report.missing_state) {
    return (
      `${state.file} (lost, or removed with \`voxform state rm\`: it holds nothing of workspace ${state.workspace}, though its history records applies of it; unless removed on purpose, restore it (version control, the CI cache, --state or VOXFORM_STATE) before \`voxform apply\`, ` +
      'which refuses without it unless given --allow-missing-state: it would upload every knowledge file again and set every credential and campaign again)'
    );
  }
  if (!state.exists) return `${state.file} (not there yet; the first apply writes it)`;
  if (state.workspace_exists) return `${state.file} (serial ${state.serial}, workspace ${state.workspace})`;
  // A database keeps a serial per workspace: this one has none yet.
  const serial = state.backend === 'file' ? `serial ${state.serial}; ` : '';
  const others = state.other_workspaces ?? [];
  return `${state.file} (${serial}no workspace ${state.workspace} yet, the first apply to it makes it; it holds ${others.length > 0 ? someOf(others, OTHERS_SHOWN) : 'no workspace'})`;
}

function lastApplyLine(report: StatusReport): string {
  const last = report.last_apply;
  // An unreadable state says nothing about applies: the State line above says why it could not be read.
  if (report.state.problem) return 'not known: the state could not be read (see State above)';
  const missing = report.missing_state;
  if (missing) return `not in the state; the history's last record of workspace ${report.state.workspace} is ${missing.last_apply.id}, at ${missing.last_apply.at}`;
  if (!last) return `none recorded for workspace ${report.state.workspace}`;
  const ended = OUTCOME_WORDS[last.outcome] ?? last.outcome;
  return `${last.at} by ${last.by}, "${last.command}", ${ended}: ${applyCounts(last, last.outcome)}`;
}

