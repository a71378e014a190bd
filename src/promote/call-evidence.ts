/**
 * The calls behind `min_calls` and `no_regression`: for each agent the source runs, its call log
 * from before the version it replaced, labelled and compared exactly as `voxform report
 * --since-deploy` does it (src/report/), so a gate and the report never disagree. The window also
 * keeps the earlier deploys of the configuration it runs (before a rollback to it): `min_calls`
 * counts that configuration's calls in every period it was live.
 */
import type { ApiClient } from '../api/index.js';
import type { LedgerRecord } from '../history/types.js';
import { buildCallReport } from '../report/build-report.js';
import { readCallLog } from '../report/read-calls.js';
import { deployedUntil, sinceDeployReport } from '../report/since-deploy.js';
import type { ConfigVersion } from '../report/versions.js';
import type { AgentReport } from '../report/types.js';
import { mapBounded } from '../util/semaphore.js';

/** By agent id: the report of each agent of `current`, over its latest version, the one before it (`sinceDeployReport`) and earlier deploys of its latest configuration. */
export async function readCallEvidence(options: {
  client: Pick<ApiClient, 'iterateCallLogs'>;
  workspace: string;
  records: readonly LedgerRecord[];
  current: LedgerRecord;
  now: Date;
  parallelism: number;
  /** `deployedUntil(records, now)`, when already built. */
  deployed?: ReadonlyMap<string, readonly ConfigVersion[]> | undefined;
}): Promise<Map<string, AgentReport>> {
  const { client, records, now } = options;
  const nowSeconds = now.getTime() / 1000;
  // The same for every agent's window, and for each window read again.
  const deployed = options.deployed ?? deployedUntil(records, nowSeconds);
  const agents = [...new Map(Object.entries(options.current.agents).map(([name, version]) => [version.id, name])).entries()];
  const reports = await mapBounded(agents, options.parallelism, async ([agentId, name]) => {
    const built = await sinceDeployReport(
      records,
      agentId,
      nowSeconds,
      (window) =>
        buildCallReport({
          calls: readCallLog(client, { agent_id: agentId }, { since: window.since }, nowSeconds),
          history: records,
          workspace: options.workspace,
          names: new Map([[agentId, name]]),
          since: window.since,
          now,
          diffLink: () => null,
          only: window.only,
        }),
      { deployed, earlierDeploysOfLatest: true },
    );
    return built?.report.agents.find((agent) => agent.agent_id === agentId);
  });
  return new Map(reports.flatMap((report) => (report ? [[report.agent_id, report] as const] : [])));
}
