/** A workspace's trusted secrets read from its state backend: the evidence secrets/trusted.ts weighs. */
import { TrustedSecrets } from '../secrets/trusted.js';
import type { SecretRegistry } from '../secrets/redact.js';
import type { StateBackend } from './backend.js';

/**
 * The trusted secrets of a workspace as the operator's state backend knows them: the variables
 * its last apply read, and the deploy ledger's `${env:…}` places of every apply to it. Used where
 * a command reads live values without planning (`test`, `test capture`); `plan` and `apply` hear the
 * same through `PlanOptions.secrets` as they read the workspace.
 */
export async function readTrustedSecrets(backend: StateBackend, workspace: string, env: Readonly<Record<string, string | undefined>>, registry: SecretRegistry): Promise<TrustedSecrets> {
  const trusted = new TrustedSecrets(env, registry);
  const stored = await backend.readWorkspace(workspace);
  trusted.noteRecordedVariables(stored.workspace.environmentVariables);
  trusted.noteLedger((await backend.exportHistory()).filter((record) => record.workspace === workspace));
  return trusted;
}
