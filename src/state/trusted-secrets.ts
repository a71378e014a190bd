/** A workspace's trusted secrets read from its state backend: the evidence secrets/trusted.ts weighs. */
import { hasEnvReference } from '../secrets/env-reference.js';
import { TrustedSecrets, type LiveSource } from '../secrets/trusted.js';
import type { SecretRegistry } from '../secrets/redact.js';
import type { AgentSummary, HistoryStore } from '../history/types.js';
import type { StateBackend } from './backend.js';
import { stateAtBaseRevision } from './state-at-revision.js';
import { splitWorkspaceKey, type WorkspaceState } from './types.js';
import { byCodeUnits } from '../util/compare.js';

/**
 * The trusted secrets of a workspace as the operator's state backend knows them (`noteStateEvidence`),
 * for a command that reads live values without planning (`test`, `test capture`, `diff`). `state`:
 * the workspace as the command read it from this backend already (`get phones`), else it is read here.
 */
export async function readTrustedSecrets(backend: StateBackend, workspace: string, env: Readonly<Record<string, string | undefined>>, registry: SecretRegistry, liveSource: LiveSource, state?: Pick<WorkspaceState, 'environmentVariables'>): Promise<TrustedSecrets> {
  const trusted = new TrustedSecrets(env, registry, liveSource);
  await noteStateEvidence(trusted, backend, workspace, state ?? (await backend.readWorkspace(workspace)).workspace);
  return trusted;
}

/**
 * Tells `trusted` every record of the backend's deploy ledger, every workspace's, and of the ledger
 * the base revision holds (VOXFORM_BASE_REF, as `noteStateEvidence` reads it): `export`'s evidence,
 * which writes live agents of any environment. All are noted oldest first, as the ledger's latest
 * shape of a place is the one kept; a record both hold is noted in both copies, the base's after the
 * checkout's: the checkout's may be a pull request's edit of it under the same id, which adds places
 * but never takes the base's away.
 */
export async function noteEveryLedgerRecord(trusted: TrustedSecrets, backend: StateBackend): Promise<void> {
  const records = await backend.exportHistory();
  const base = await stateAtBaseRevision(backend, trusted.env);
  if (base) {
    for (const record of await base.history.all()) records.push(record);
    // A record's id begins with the time of its apply; the sort is stable, so the base's copy of an id comes last.
    records.sort((a, b) => byCodeUnits(a.id, b.id));
  }
  trusted.noteLedger(records);
}

/** Where evidence is read from: the operator's state backend, or its file state at the base revision. */
interface Evidence {
  /** Every workspace it holds state of. */
  workspaceKeys(): Promise<string[]>;
  /** The variables the last apply of the workspace read. */
  variablesOf(key: string): Promise<readonly string[] | undefined>;
  history: Pick<HistoryStore, 'summariesOfWorkspaces' | 'read'>;
}

/**
 * Tells `trusted` what the state backend knows of the secrets of a workspace's service: the
 * variables the last apply of each of its workspaces read, and the deploy ledger's `${env:…}`
 * places of every apply to them. Every workspace of the service counts, since the ledger's places
 * are by agent id and an agent may last have been applied from another environment (before an
 * overlay gave it its own id, or by `promote`); in the ledger, those whose state is gone too, as
 * `voxform state rm` keeps a workspace's ledger and the agents it applied stay live. `plan`, `drift`
 * and `apply` call it as they read the workspace, and every other command through
 * `readTrustedSecrets`: one reading of the evidence for all.
 * A state file in the checkout is the pull request's to edit or delete: when the operator names a base
 * revision (VOXFORM_BASE_REF), the state and ledger as it holds them are read too, and add to the
 * checkout's (src/state/state-at-revision.ts); the checkout's ledger then adds places, and only the
 * base's records read values off a live one (`TrustedSecrets.noteLedger`'s `vouched`).
 */
export async function noteStateEvidence(trusted: TrustedSecrets, backend: StateBackend, workspace: string, state: Pick<WorkspaceState, 'environmentVariables'>): Promise<void> {
  const base = await stateAtBaseRevision(backend, trusted.env);
  const backendEvidence: Evidence = {
    workspaceKeys: async () => (await backend.listWorkspaces()).map(({ key }) => key),
    variablesOf: async (key) => (key === workspace ? state.environmentVariables : (await backend.readWorkspace(key)).workspace.environmentVariables),
    history: backend.history,
  };
  // With a base revision, the backend is the checkout's file: its records add places, the base's read values.
  await noteEvidence(trusted, workspace, backendEvidence, base === undefined);
  if (!base) return;
  const workspaces = base.state.workspaces;
  const baseEvidence: Evidence = {
    workspaceKeys: () => Promise.resolve(Object.keys(workspaces)),
    variablesOf: (key) => Promise.resolve(Object.hasOwn(workspaces, key) ? workspaces[key]?.environmentVariables : undefined),
    history: base.history,
  };
  await noteEvidence(trusted, workspace, baseEvidence, true);
}

/**
 * The ledger is walked one record at a time, and a record is read whole only when one of its agents
 * took a value from the environment: a ledger of any length costs the memory of its largest record
 * (at a base revision, of the larger of it and a batch read through git: src/project-files/kept-source.ts).
 */
async function noteEvidence(trusted: TrustedSecrets, workspace: string, evidence: Evidence, vouched: boolean): Promise<void> {
  const service = splitWorkspaceKey(workspace)?.serviceId;
  const ofService = (key: string) => key === workspace || (service !== undefined && splitWorkspaceKey(key)?.serviceId === service);
  const others = service === undefined ? [] : (await evidence.workspaceKeys()).filter((key) => key !== workspace && ofService(key));
  for (const key of [workspace, ...others]) trusted.noteRecordedVariables(await evidence.variablesOf(key));
  // Each workspace's newest first, a record is read whole only when it records a place (or a name) no
  // record walked before did: a live value is matched against the last recorded shape, and one it
  // does not fit is scrubbed whole.
  const recorded = new Set<string>();
  for await (const summary of evidence.history.summariesOfWorkspaces(ofService)) {
    const places = Object.values(summary.agents).flatMap(environmentPlaces);
    if (places.every((place) => recorded.has(place))) continue;
    for (const place of places) recorded.add(place);
    const record = await evidence.history.read({ workspace: summary.workspace }, summary.id);
    if (record) trusted.noteLedger([record], vouched);
  }
}

/** What the ledger recorded of the agent as filled from `${env:…}`, each as agent id and place: the places in its configuration, and its name. */
function environmentPlaces(agent: AgentSummary): string[] {
  const places = agent.maskedPaths.map((place) => `${agent.id} config ${place}`);
  return hasEnvReference(agent.name) ? [...places, `${agent.id} name ${agent.name as string}`] : places;
}
