/**
 * `voxform history`: the deploy ledger of the workspace (`ENV@SERVICE`), newest first. Reads only
 * the state's history: no API key needed, nothing sent to the service.
 */
import { recordedAgent } from '../../history/types.js';
import { renderHistoryJson, renderHistoryText } from '../../history/render.js';
import { workspaceKey } from '../../state/types.js';
import { chooseBaseUrl } from '../connection.js';
import type { CommandContext } from '../context.js';
import { workspaceHistory } from '../history-records.js';
import { manifestProject } from '../load-manifests.js';
import { openOperatorBackend, type ProjectOptions } from '../project.js';

export interface HistoryOptions extends ProjectOptions {
  agent?: string;
  limit?: number;
  format?: 'text' | 'json';
}

const DEFAULT_LIMIT = 20;

/** The workspace key the state and the history use for this project and service. */
export async function historyWorkspace(options: HistoryOptions, ctx: CommandContext): Promise<string> {
  const serviceId = options.local ? 'local' : chooseBaseUrl(options, ctx.env, (await manifestProject(options, ctx)).service);
  return workspaceKey(options.env, serviceId);
}

export async function run(options: HistoryOptions, ctx: CommandContext): Promise<number> {
  const workspace = await historyWorkspace(options, ctx);
  const store = (await openOperatorBackend(options, ctx)).history;
  const limit = options.limit ?? DEFAULT_LIMIT;
  const { agent } = options;
  const records = await workspaceHistory(store, workspace, ctx);
  // One record more than shown: the last one shown needs its predecessor to tell which agents it changed.
  const found = records.filter((record) => agent === undefined || recordedAgent(record, agent)).slice(0, limit + 1);
  const shown = found.slice(0, limit);
  const older = found.slice(limit);
  ctx.stdout.write(options.format === 'json' ? renderHistoryJson(shown, workspace, older) : renderHistoryText(shown, workspace, older, options.agent));
  return 0;
}
