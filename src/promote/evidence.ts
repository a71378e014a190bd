/**
 * The evidence a `voxform test` run leaves in the ledger: only what it tested against the live
 * agents (the `live` target), with each agent's live configuration hash, taken as an apply takes it,
 * before and after the run. A configuration that changed during the run is not evidence for either
 * version, so such a run is not recorded. The run is recorded with the digest of the suite it read,
 * so the gate takes it only for a checkout holding the same test files. Nothing from a reply, a
 * transcript or a secret is kept.
 */
import path from 'node:path';
import type { ApiClient } from '../api/index.js';
import { configurationHash } from '../history/config-hash.js';
import { envConfigPaths } from '../history/record.js';
import type { DeploySource, TestRunRecord } from '../history/types.js';
import type { DesiredState } from '../manifest/types.js';
import type { TestRun } from '../conversations/types.js';
import type { Redact } from '../secrets/redact.js';
import { hashValue } from '../util/hash.js';
import { byCodeUnits } from '../util/compare.js';
import { mapBounded } from '../util/semaphore.js';

type TestedAgents = TestRunRecord['agents'];

/** Each named agent's live configuration hash (secrets and `${env:…}` places masked, as the ledger hashes them). */
export async function liveConfigurationHashes(desired: DesiredState, client: Pick<ApiClient, 'getAgent'>, names: readonly string[], parallelism: number): Promise<TestedAgents> {
  const hashes = await mapBounded([...names].sort(), parallelism, async (name): Promise<[string, { id: string; configHash: string }]> => {
    const agent = desired.agents.get(name);
    if (!agent) throw new Error(`liveConfigurationHashes(): ${name} is not in the desired state`); // the test loader checked
    const live = await client.getAgent(agent.id);
    return [name, { id: agent.id, configHash: configurationHash((live.config ?? {}) as Record<string, unknown>, { maskPaths: envConfigPaths(agent) }) }];
  });
  return Object.fromEntries(hashes);
}

/** The agents whose configuration differs between two readings (by local name). */
export function changedDuringRun(before: TestedAgents, after: TestedAgents): string[] {
  return Object.keys(before).filter((name) => before[name]?.configHash !== after[name]?.configHash);
}

/**
 * One digest of a suite's test files: each file's path from the suite's folder (with `/`, so the
 * digest is the same whatever the working directory and system) and the hash of its content.
 * Paths are hashed too: a file moved out of the suite changes what a run without paths reads.
 */
export function suiteDigest(folder: string, files: ReadonlyArray<{ path: string; contentHash: string }>): string {
  const entries = files.map((file) => [path.relative(folder, file.path).split(path.sep).join('/'), file.contentHash] as const);
  return hashValue(entries.sort(([a], [b]) => byCodeUnits(a, b)));
}

interface TestRunRecordInput {
  workspace: string;
  at: Date;
  by: string;
  command: string;
  source: DeploySource;
  agents: TestedAgents;
  /** `suiteDigest` of the test files the run read. */
  suiteDigest: string;
  run: TestRun;
  /** Hides the run's secrets, as in its report: a test file's texts may hold one (a name, a file name). */
  redact: Redact;
}

/**
 * The ledger's record of a run's live verdicts; undefined when the run had no live target. Every text
 * it takes from the test files is redacted here, the one place a record is made, whichever backend stores it.
 */
export function testRunRecord(input: TestRunRecordInput): Omit<TestRunRecord, 'id'> | undefined {
  const summary = input.run.summary.live;
  if (!summary) return undefined;
  const { redact } = input;
  const tests = input.run.reports.flatMap((report) => {
    const verdict = report.verdicts.live;
    return verdict ? [{ file: redact(report.file), agent: redact(report.agent), name: redact(report.name), status: verdict.status, passes: verdict.passes, runs: verdict.runs, passRate: verdict.passRate }] : [];
  });
  return {
    workspace: input.workspace,
    at: input.at.toISOString(),
    by: input.by,
    command: input.command,
    source: input.source,
    agents: input.agents,
    suiteDigest: input.suiteDigest,
    summary: { passed: summary.passed, failed: summary.failed, skipped: summary.skipped, errors: summary.errors },
    tests,
  };
}
