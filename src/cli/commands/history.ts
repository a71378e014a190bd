/** `voxform history`: the workspace's deploy ledger, newest first; nothing is sent to the service. */
import { historyEntries, renderHistoryJson, renderHistoryText, testRunEntries } from '../../history/render.js';
import { workspaceKey } from '../../state/types.js';
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

/** The workspace key of this project and service (manifests read with `--local` too: a bad env policy stops it). */
export async function historyWorkspace(options: HistoryOptions, ctx: CommandContext): Promise<string> {
  const { service } = await manifestProject(options, ctx);
  return workspaceKey(options.env, options.local ? 'local' : chooseBaseUrl(options, ctx.env, service));
}

export async function run(options: HistoryOptions, ctx: CommandContext): Promise<number> {
  const workspace = await historyWorkspace(options, ctx);
  const store = (await openOperatorBackend(options, ctx)).history;
  const limit = options.limit ?? DEFAULT_LIMIT;
  // The whole history, whatever the filters: what a record changed is found against the records before it.
  const entries = historyEntries(await workspaceHistory(store, workspace, ctx), { agent: options.agent, limit });
  const testRuns = testRunEntries(await workspaceTestRuns(store, workspace, ctx), { agent: options.agent, limit });
  ctx.stdout.write(options.format === 'json' ? renderHistoryJson(entries, workspace, testRuns) : renderHistoryText(entries, workspace, options.agent, testRuns));
  return 0;
}
