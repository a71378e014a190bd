/**
 * `voxform test` against live agents: the run's evidence recorded in the workspace's ledger
 * (src/promote/evidence.ts), for `voxform promote`'s `tests` gate. A run that cannot be recorded
 * still reports its tests; it says why it left no evidence.
 */
import { deployer } from '../history/source.js';
import type { DesiredState } from '../manifest/types.js';
import { changedDuringRun, liveConfigurationHashes, testRunRecord } from '../promote/evidence.js';
import { workspaceKey } from '../state/types.js';
import type { TestFile, TestRun } from '../conversations/types.js';
import type { Connection } from './connection.js';
import type { CommandContext } from './context.js';
import { deploySourceOf, openOperatorBackend, type ProjectOptions } from './project.js';

export interface TestEvidence {
  /** Records the run's live verdicts; a warning instead when an agent's configuration changed during it. */
  record(run: TestRun): Promise<void>;
}

/** Before the run: the live configurations the tests will talk to. */
export async function startTestEvidence(options: ProjectOptions, ctx: CommandContext, desired: DesiredState, connection: Connection, files: readonly TestFile[]): Promise<TestEvidence> {
  const names = [...new Set(files.map((file) => file.agent))];
  const parallelism = options.parallelism ?? 8;
  const before = await liveConfigurationHashes(desired, connection.client, names, parallelism);
  const source = deploySourceOf(desired, ctx);
  return {
    async record(run) {
      const after = await liveConfigurationHashes(desired, connection.client, names, parallelism);
      const changed = changedDuringRun(before, after);
      if (changed.length > 0) {
        ctx.stderr.write(`warning: the live configuration of ${changed.join(', ')} changed during the run: it is not recorded as evidence for promotion.\n`);
        return;
      }
      const workspace = workspaceKey(desired.environment, connection.local ? 'local' : connection.baseUrl);
      const record = testRunRecord({ workspace, at: new Date(), by: deployer(ctx.env), command: 'voxform test --against live', source: await source, agents: before, run });
      if (!record) return;
      const backend = await openOperatorBackend(options, ctx);
      try {
        await backend.history.appendTestRun(record);
      } catch (error) {
        ctx.stderr.write(`warning: this run was not recorded in the history: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    },
  };
}
