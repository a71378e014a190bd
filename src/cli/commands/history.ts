/** `voxform history`: the workspace's deploy ledger, newest first; nothing is sent to the service. */
import { AgentNames } from '../../history/agent-names.js';
import { historyEntries, renderHistoryJson, renderHistoryText, testRunEntries } from '../../history/render.js';
import type { HistoryRecord, TestRunRecord } from '../../history/types.js';
import { workspaceKey } from '../../state/types.js';
import { checkLocalAgentName } from '../agent-argument.js';
import { chooseBaseUrl } from '../connection.js';
import type { CommandContext } from '../context.js';
import { workspaceHistory, workspaceTestRuns } from '../history-records.js';
import { manifestProject } from '../load-manifests.js';
import { openOperatorBackend, type ProjectOptions } from '../project.js';

export interface HistoryOptions extends ProjectOptions {
  agent?: string;
  limit?: number;
  format?: 'text' | 'json';
}

const DEFAULT_LIMIT = 20;

/** The local names the ledger's records and test runs hold, each with its agent id. */
function ledgerNames(records: readonly HistoryRecord[], runs: readonly TestRunRecord[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const holder of [...records, ...runs]) for (const [name, agent] of Object.entries(holder.agents)) if (!names.has(name)) names.set(name, agent.id);
  return names;
}

export async function run(options: HistoryOptions, ctx: CommandContext): Promise<number> {
  // Manifests read with `--local` too: a bad env policy stops it.
  const { names, service } = await manifestProject(options, ctx);
  const workspace = workspaceKey(options.env, options.local ? 'local' : chooseBaseUrl(options, ctx.env, service));
  const store = (await openOperatorBackend(options, ctx)).history;
  const limit = options.limit ?? DEFAULT_LIMIT;
  const records = await workspaceHistory(store, workspace, ctx);
  const runs = await workspaceTestRuns(store, workspace, ctx);
  // A name in neither the manifests nor the ledger is a typo, refused as report and rollback refuse it.
  if (options.agent !== undefined) checkLocalAgentName(options.agent, { manifests: names, history: ledgerNames(records, runs) });
  // The whole history, whatever the filters: what a record changed is found against the records before it.
  // A name stands for the agent its id: is now: followed to its records under an earlier key, never to another agent's.
  const agentNames = new AgentNames(records, names);
  const entries = historyEntries(records, { agent: options.agent, limit, names: agentNames });
  const testRuns = testRunEntries(runs, { agent: options.agent, limit, names: agentNames });
  ctx.stdout.write(options.format === 'json' ? renderHistoryJson(entries, workspace, testRuns) : renderHistoryText(entries, workspace, options.agent, testRuns));
  return 0;
}
