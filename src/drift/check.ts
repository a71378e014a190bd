/**
 * One drift check: the plan's own read and compare (`planWorkspace`) against the workspace the state
 * keeps, then the classification. Read-only: nothing is locked or written.
 */
import { PLAN_OPTIONAL, PLAN_REQUIRES, planWorkspace, type PlanOptions } from '../plan/plan.js';
import { FileStateBackend } from '../state/file-backend.js';
import { DEFAULT_STATE_FILE } from '../state/choice.js';
import { workspaceKey } from '../state/types.js';
import { classifyDrift } from './classify.js';
import { notComparedFinder, recordedVariablesFinder } from './not-compared.js';
import type { DriftReport } from './types.js';
import { readCheckedWorkspace } from '../state/missing-state.js';
import { noteStateEvidence } from '../state/trusted-secrets.js';
import { checkOptionalOptions, requireOptions } from '../util/required-options.js';

/** What `plan` takes but `targets` and `onChange`: a drift check is of the whole workspace, as `voxform drift` is. */
export type DriftCheckOptions = Omit<PlanOptions, 'targets' | 'onChange'>;

/** What differs now between the service, the last apply and the manifests, classified. */
export async function checkDrift(options: DriftCheckOptions): Promise<DriftReport> {
  requireOptions('checkDrift', options, PLAN_REQUIRES);
  // `targets` and `onChange` are not read: a drift check is of the whole workspace.
  const { targets: _targets, onChange: _onChange, ...read } = PLAN_OPTIONAL;
  checkOptionalOptions('checkDrift', options, read);
  const backend = options.backend ?? new FileStateBackend(options.stateFile ?? DEFAULT_STATE_FILE);
  const key = workspaceKey(options.desired.environment, options.serviceId);
  const { workspace, missingState, exists } = await readCheckedWorkspace(backend, key);
  options.onWorkspace?.(workspace);
  if (options.secrets) await noteStateEvidence(options.secrets, backend, key, workspace);
  // A value another environment's apply set is classified, not refused: drift reports, it does not write.
  // A plain JS caller may pass what the type leaves out: like every option outside a function's type, it is not read.
  const { plan, conflicts, view } = await planWorkspace({ ...options, backend, reportConflicts: true, reportGoneAgents: true, targets: undefined, onChange: undefined }, { workspace, missingState });
  // Classified against the baseline the plan compared with: each resource's own last apply, under a renamed key too.
  const report = classifyDrift({ plan, workspace: view.workspace, salt: options.fingerprintKey, workspaceKey: key, conflicts, notCompared: notComparedFinder(options.desired), variablesRead: recordedVariablesFinder(options.desired, options.secrets), noApplyRecorded: exists ? undefined : { state: backend.display } });
  return { ...report, ...(missingState ? { missingState } : {}) };
}

