/** `voxform report`: call metrics per agent and configuration version, each compared to the one before. */
import path from 'node:path';
import { namesShown } from '../../inventory/inventory.js';
import type { ApiClient } from '../../api/index.js';
import { VoxformError } from '../../errors.js';
import { ledgerOrder } from '../../history/ledger-order.js';
import type { LedgerRecord } from '../../history/types.js';
import { buildCallReport, type ReportInput } from '../../report/build-report.js';
import type { CallReport } from '../../report/types.js';
import { diffLinkFromEnv } from '../../report/diff-links.js';
import { readCallLog } from '../../report/read-calls.js';
import { renderReportHtml } from '../../report/render-html.js';
import { renderReportMarkdown } from '../../report/render-markdown.js';
import { renderReportJson } from '../../report/render-json.js';
import { sinceDeployReport, type SinceDeployWindow } from '../../report/since-deploy.js';
import { workspaceKey } from '../../state/types.js';
import type { StateBackend } from '../../state/backend.js';
import { isLocalName } from '../../manifest/names.js';
import { readOtherEnvironments } from '../../plan/shared-resources.js';
import type { UnreadEnvironment } from '../../state/types.js';
import { describeWriteFailure, writeFileAtomic } from '../../util/atomic-write.js';
import { refuseOwnFile } from '../../project-files/own-files.js';
import { manifestAgentNames, resolveAgentArgument } from '../agent-argument.js';
import { resolveConnection } from '../connection.js';
import type { CommandContext } from '../context.js';
import { allSummaries } from '../history-records.js';
import { environmentsToChoose, manifestProject, type ManifestProject } from '../load-manifests.js';
import { envChoices } from '../next-command.js';
import { controlsAsQuestionMarks } from '../../util/printable.js';
import { progressLine } from '../progress.js';
import { openOperatorBackend, ownFilesOf, type ProjectOptions } from '../project.js';
import { TrustedSecrets } from '../../secrets/trusted.js';
import { parseTimeWindow } from '../time-argument.js';
import { plural } from '../../util/plural.js';

interface ReportOptions extends ProjectOptions {
  agent?: string;
  since?: string;
  until?: string;
  sinceDeploy?: boolean;
  includeTests?: boolean;
  format?: 'html' | 'json' | 'markdown';
  out?: string;
}

export async function run(options: ReportOptions, ctx: CommandContext): Promise<number> {
  const format = options.format ?? 'markdown';
  if (format === 'html' && options.out === undefined && ctx.stdout.isTTY) {
    throw new VoxformError('invalid_argument', 'An HTML report is a file to open in a browser, not text for the terminal.', { hint: 'Add --out report.html.' });
  }
  const now = new Date();
  const { since, until } = parseTimeWindow(options, now.getTime());
  if (options.sinceDeploy && since !== undefined) {
    throw new VoxformError('invalid_argument', '--since and --since-deploy contradict each other.', { hint: 'Pass one: --since-deploy reports the latest deploy\'s version and the one before it, whole.' });
  }
  const project = await manifestProject(options, ctx);
  const { names: manifestNames, service, inputs } = project;
  if (options.out !== undefined) await refuseOwnFile(options.out, ownFilesOf(options, ctx, inputs), { code: 'report_write_failed', cannot: `Cannot write the report to ${options.out}`, outcome: 'nothing was written' });
  // The service and workspace as apply names them, so the report reads the history apply wrote.
  const { client, serviceId, liveSource } = await resolveConnection({ ...options, manifest: service }, ctx);
  const workspace = workspaceKey(options.env, serviceId);
  const backend = await openOperatorBackend(options, ctx);
  // The values the last apply read from the environment are secrets here too (src/secrets/trusted.ts),
  // whatever the manifests of this checkout now reference.
  const own = (await backend.readWorkspace(workspace)).workspace;
  const trusted = new TrustedSecrets(ctx.env, ctx.secrets, liveSource);
  trusted.noteRecordedVariables(own.environmentVariables);
  // Summaries: the report needs each version's hashes, not its configuration.
  const ownHistory = await allSummaries(backend.history, workspace, ctx);
  const agentId = options.agent === undefined ? undefined : await resolveAgentArgument(options.agent, { ...manifestAgentNames(project), history: historyNames(ownHistory) }, client);
  const { agents: otherEnvironments, unread } = await otherEnvironmentAgents(backend, workspace, serviceId, [...manifestNames.values(), ...Object.values(own.agents).map((agent) => agent.id)]);
  // An agent asked for with --agent is reported whichever environment applies it: its versions are
  // that environment's deploys, so its history is read, not this one's.
  const agentEnvironment = agentId === undefined ? undefined : otherEnvironments.get(agentId);
  const reported = agentEnvironment === undefined ? workspace : workspaceKey(agentEnvironment, serviceId);
  if (reported !== workspace) trusted.noteRecordedVariables((await backend.readWorkspace(reported)).workspace.environmentVariables);
  const history = reported === workspace ? ownHistory : await allSummaries(backend.history, reported, ctx);
  const status = progressLine(ctx);
  const build = reportBuilder(client, agentId, {
    history,
    workspace: reported,
    names: new Map([...manifestNames].map(([name, id]) => [id, name])),
    // An agent neither the manifests nor the history name is named as the service names it: what that name holds of the operator's values is scrubbed.
    serviceNames: (agentIds) => namesShown(client, new Set(agentIds), (agent) => trusted.hidesName(agent)),
    since,
    until,
    now,
    diffLink: diffLinkFromEnv(ctx.env),
    otherEnvironments: agentId === undefined ? otherEnvironments : undefined,
    unreadEnvironments: unread,
    includeTests: options.includeTests ?? false,
    onCall: (count) => {
      if (count % 500 === 0) status.update(`Reading call logs… ${plural(count, 'call')}`);
    },
  });
  // `--since-deploy`: the latest deploy's version and the one before it (with calls), whole, and nothing older.
  const sinceLastDeploy = options.sinceDeploy ? await sinceDeployReport(history, agentId, until ?? now.getTime() / 1000, build) : undefined;
  if (options.sinceDeploy && sinceLastDeploy === undefined) throw noDeployError(reported, options, project, agentEnvironment);
  const report = sinceLastDeploy?.report ?? (await build(undefined));
  status.done();
  const text = format === 'html' ? renderReportHtml(report) : format === 'json' ? renderReportJson(report) : renderReportMarkdown(report, (text) => ctx.secrets.redact(text));
  if (options.out === undefined) {
    ctx.stdout.write(text);
  } else {
    await writeReport(path.resolve(ctx.cwd, options.out), ctx.secrets.redact(text));
    ctx.stderr.write(`Wrote ${options.out}: ${plural(report.calls, 'call')} of ${plural(report.agents.length, 'agent')}.\n`);
  }
  // Said once: the Markdown on stdout and the line after --out say it already; JSON and HTML on stdout are read by programs and browsers.
  if (report.calls === 0 && options.out === undefined && format !== 'markdown') ctx.stderr.write('No call records in the window.\n');
  return 0;
}

/** The report over the window given, or over a `--since-deploy` selection's (which has its own start). */
function reportBuilder(client: Pick<ApiClient, 'iterateCallLogs'>, agentId: string | undefined, input: Omit<ReportInput, 'calls' | 'only'>) {
  return (selection: SinceDeployWindow | undefined): Promise<CallReport> => {
    const since = selection ? selection.since : input.since;
    // One agent's calls are asked of the service alone.
    const onlyAgent = agentId ?? (selection?.only.size === 1 ? [...selection.only.keys()][0] : undefined);
    const calls = readCallLog(client, onlyAgent === undefined ? {} : { agent_id: onlyAgent }, { since, until: input.until }, input.now.getTime() / 1000);
    return buildCallReport({ ...input, calls, since, only: selection?.only });
  };
}

async function writeReport(file: string, text: string): Promise<void> {
  try {
    await writeFileAtomic(file, text);
  } catch (error) {
    throw new VoxformError('report_write_failed', `Cannot write the report to ${file}: ${describeWriteFailure(error)}; nothing was written.`, {
      hint: 'Name a file in a folder that exists and is writable with --out.',
      cause: error,
    });
  }
}

/** The agents' local names in the apply history, each with its id: the newest record's first. */
function historyNames(history: readonly LedgerRecord[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const record of [...history].sort(ledgerOrder).reverse()) {
    for (const [name, agent] of Object.entries(record.agents)) if (!names.has(name) && typeof agent?.id === 'string') names.set(name, agent.id);
  }
  return names;
}

/**
 * No deploy to start from: the refusal names the workspace read, and, for manifests read without
 * `--env` that give their agents' ids only in their environments (whose applies are recorded under
 * them, not under the default workspace), the `--env` to run again with, as `voxform history` does.
 * `agentEnvironment`: the environment whose history was read for `--agent` (it applies the agent):
 * no `--env` is offered then, for the run read the one that holds the agent's deploys already.
 */
function noDeployError(workspace: string, options: Pick<ReportOptions, 'agent' | 'env'>, project: ManifestProject, agentEnvironment: string | undefined): VoxformError {
  const environments = agentEnvironment === undefined ? environmentsToChoose(project, options) : [];
  const of = options.agent === undefined ? '' : ` of agent ${options.agent}`;
  const hint =
    environments.length > 0
      ? `The manifests give their agents' ids only in their environments, whose applies are recorded under them: run again with ${envChoices(environments)}.`
      : "Apply with voxform first (each apply is recorded in the state backend's history), or give the window with --since.";
  return new VoxformError('report_no_deploy', `--since-deploy: the apply history of ${controlsAsQuestionMarks(workspace)} has no deploy${of}.`, { hint });
}

/**
 * Agent id → the other environment of the service whose workspace holds it, for agents neither this
 * workspace nor its manifests name: their calls are that environment's, not changes outside voxform.
 * Only names an environment can have count (the state is read as untrusted). A workspace that cannot
 * be read is `unread`: the report is made without it, and says so.
 */
async function otherEnvironmentAgents(backend: StateBackend, workspace: string, serviceId: string, ourIds: readonly string[]): Promise<{ agents: Map<string, string>; unread: UnreadEnvironment[] }> {
  const ours = new Set(ourIds);
  const agents = new Map<string, string>();
  const others = await readOtherEnvironments(backend, workspace, serviceId);
  for (const { environment, workspace: theirs } of others.workspaces) {
    if (!isLocalName(environment)) continue;
    for (const { id } of Object.values(theirs.agents)) if (!ours.has(id) && !agents.has(id)) agents.set(id, environment);
  }
  return { agents, unread: others.unread };
}
