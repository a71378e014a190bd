/** `voxform history`: the workspace's deploy ledger, newest first; nothing is sent to the service. */
import { AgentNames } from '../../history/agent-names.js';
import { HistoryEntryCollector, historyEntries, renderHistoryJson, renderHistoryText, testRunEntries, type HistoryEntry } from '../../history/render.js';
import type { HistoryRecord, HistoryStore, RecordSummary, TestRunRecord } from '../../history/types.js';
import { VoxformError } from '../../errors.js';
import { workspaceKey } from '../../state/types.js';
import { wordList } from '../../util/plural.js';
import { envChoices } from '../next-command.js';
import { checkLocalAgentName, manifestAgentNames } from '../agent-argument.js';
import { chooseBaseUrl } from '../connection.js';
import type { CommandContext } from '../context.js';
import { allSummaries, wholeRecord, workspaceSummaries, workspaceTestRuns } from '../history-records.js';
import { environmentsToChoose, manifestProject, type ManifestProject } from '../load-manifests.js';
import { openOperatorBackend, type ProjectOptions } from '../project.js';

interface HistoryOptions extends ProjectOptions {
  agent?: string;
  limit?: number;
  format?: 'text' | 'json';
}

const DEFAULT_LIMIT = 20;

/** The local names the ledger's records and test runs hold, each with its agent id. */
function ledgerNames(records: readonly RecordSummary[], runs: readonly TestRunRecord[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const holder of [...records, ...runs]) for (const [name, agent] of Object.entries(holder.agents)) if (!names.has(name)) names.set(name, agent.id);
  return names;
}

/**
 * The records shown and the names the filters follow. A name of the manifests stands for the agent
 * of its `id:` whatever the ledger holds, so the walk stops as soon as the entries are complete
 * (`HistoryEntryCollector`); any other name is looked up in the whole ledger, read as summaries.
 */
async function shownRecords(store: HistoryStore, workspace: string, filter: { agent: string | undefined; limit: number; project: ManifestProject }, ctx: CommandContext) {
  const { agent, limit } = filter;
  const { names: manifests } = filter.project;
  if (agent === undefined || manifests.has(agent)) {
    const names = new AgentNames([], manifests);
    const collector = new HistoryEntryCollector<RecordSummary>({ agent, limit, names });
    for await (const summary of workspaceSummaries(store, workspace, ctx, undefined, 'warn')) if (collector.add(summary)) break;
    return { entries: collector.entries(), names, runs: await workspaceTestRuns(store, workspace, ctx) };
  }
  const records = await allSummaries(store, workspace, ctx, undefined, 'warn');
  const runs = await workspaceTestRuns(store, workspace, ctx);
  // A name in neither the manifests nor the ledger is a typo, refused as report and rollback refuse it.
  checkLocalAgentName(agent, { ...manifestAgentNames(filter.project), history: ledgerNames(records, runs) });
  // A name stands for the agent its id: is now: followed to its records under an earlier key, never to another agent's.
  const names = new AgentNames(records, manifests);
  return { entries: historyEntries(records, { agent, limit, names }), names, runs };
}

/**
 * An empty ledger read without `--env`, where the manifests give their agents' ids only in their
 * environments: every apply of them is recorded under an environment, so "no history yet" would be
 * untrue. Refused as plan and drift refuse those manifests without `--env`, naming the environments.
 */
function refuseWorkspaceOfNoEnvironment(options: HistoryOptions, project: ManifestProject, workspace: string): void {
  const environments = environmentsToChoose(project, options);
  if (environments.length === 0) return;
  throw new VoxformError(
    'invalid_argument',
    `\`voxform history\` needs --env here: the manifests give their agents' ids only in their environments (${wordList(environments, 'and')}), whose applies are recorded under ${environments.length === 1 ? 'it' : 'them'}, and ${workspace} has no record.`,
    { hint: `Run again with ${envChoices(environments)}.` },
  );
}

export async function run(options: HistoryOptions, ctx: CommandContext): Promise<number> {
  // Manifests read with `--local` too: a bad env policy stops it.
  const project = await manifestProject(options, ctx);
  const { service } = project;
  const workspace = workspaceKey(options.env, options.local ? 'local' : chooseBaseUrl(options, ctx.env, service));
  const store = (await openOperatorBackend(options, ctx)).history;
  const limit = options.limit ?? DEFAULT_LIMIT;
  const { entries, names, runs } = await shownRecords(store, workspace, { agent: options.agent, limit, project }, ctx);
  const testRuns = testRunEntries(runs, { agent: options.agent, limit, names });
  if (entries.length === 0 && testRuns.length === 0) refuseWorkspaceOfNoEnvironment(options, project, workspace);
  if (options.format !== 'json') {
    ctx.stdout.write(renderHistoryText(entries, workspace, options.agent, testRuns));
    return 0;
  }
  // The JSON holds each shown record's configurations: those records alone are read whole.
  const whole: Array<HistoryEntry<HistoryRecord>> = [];
  for (const entry of entries) whole.push({ record: await wholeRecord(store, entry.record, ctx), agentsChanged: entry.agentsChanged, keysMoved: entry.keysMoved });
  ctx.stdout.write(renderHistoryJson(whole, workspace, testRuns));
  return 0;
}
