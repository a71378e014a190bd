/** A workspace's trusted secrets read from its state backend: the evidence secrets/trusted.ts weighs. */
import { hasEnvReference } from '../secrets/env-reference.js';
import { TrustedSecrets } from '../secrets/trusted.js';
import type { SecretRegistry } from '../secrets/redact.js';
import type { AgentSummary } from '../history/types.js';
import type { StateBackend } from './backend.js';
import type { WorkspaceState } from './types.js';

/**
 * The trusted secrets of a workspace as the operator's state backend knows them (`noteStateEvidence`),
 * for a command that reads live values without planning (`test`, `test capture`, `diff`).
 */
export async function readTrustedSecrets(backend: StateBackend, workspace: string, env: Readonly<Record<string, string | undefined>>, registry: SecretRegistry): Promise<TrustedSecrets> {
  const trusted = new TrustedSecrets(env, registry);
  await noteStateEvidence(trusted, backend, workspace, (await backend.readWorkspace(workspace)).workspace);
  return trusted;
}

/**
 * Tells `trusted` what the state backend knows of a workspace's secrets: the variables its last
 * apply read, and the deploy ledger's `${env:…}` places of every apply to it. `plan`, `drift` and
 * `apply` call it as they read the workspace, and every other command through `readTrustedSecrets`:
 * one reading of the evidence for all.
 * The ledger is walked one record at a time, and a record is read whole only when one of its agents
 * took a value from the environment: a ledger of any length costs the memory of its largest record.
 */
export async function noteStateEvidence(trusted: TrustedSecrets, backend: StateBackend, workspace: string, state: Pick<WorkspaceState, 'environmentVariables'>): Promise<void> {
  trusted.noteRecordedVariables(state.environmentVariables);
  for await (const summary of backend.history.summaries({ workspace })) {
    if (!Object.values(summary.agents).some(tookFromEnvironment)) continue;
    const record = await backend.history.read({ workspace }, summary.id);
    if (record) trusted.noteLedger([record]);
  }
}

/** Whether the ledger recorded a value of the agent's as filled from `${env:…}`: a place in its configuration, or its name. */
function tookFromEnvironment(agent: AgentSummary): boolean {
  return agent.maskedPaths.length > 0 || hasEnvReference(agent.name);
}
