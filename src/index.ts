/**
 * voxform as a library: the same pipeline the CLI runs.
 *
 *   const { state } = await loadManifests({ paths: ['voxform.yaml'], cwd, env: process.env });
 *   const client = createClient({ region: 'us', apiKey });
 *   const store = await StateStore.open('.voxform/state.json', workspaceKey(undefined, baseUrl), fingerprintKey(apiKey));
 *   const { plan, live } = await createPlan({ desired: state, client, workspace: store.workspace, salt: store.fingerprintKey, baseUrl, files });
 *   await applyPlan({ plan, desired: state, live, client, store, parallelism: 8 });
 */
export { loadManifests } from './manifest/index.js';
export type { DesiredState, Diagnostic, LoadOptions, LoadResult } from './manifest/index.js';

export { createPlan } from './plan/create-plan.js';
export type { CreatePlanOptions } from './plan/create-plan.js';
export { diffStates } from './plan/diff.js';
export type { LiveState, PlanProblem } from './plan/diff.js';
export type { Action, ChangeReason, FieldChange, Plan, PlanSummary, ResourceChange, ResourceKind } from './plan/types.js';
export { renderPlanText } from './plan/render-text.js';
export { planToJson, renderPlanJson } from './plan/render-json.js';
export { renderPlanMarkdown } from './plan/render-markdown.js';

export { applyPlan } from './apply/apply-plan.js';
export type { ApplyOptions, ApplyResult, ProgressEvent } from './apply/apply-plan.js';

export { StateStore, readStateFile } from './state/state-file.js';
export { acquireStateLock } from './state/lock.js';
export { emptyWorkspace, workspaceKey } from './state/types.js';
export { fingerprintKey } from './util/hash.js';
export type { StateFile, WorkspaceState } from './state/types.js';

export { createClient, ApiError, isApiError } from './api/index.js';
export type { ApiClient, ClientOptions } from './api/index.js';

export {
  findTestFiles,
  loadTestFiles,
  runTests,
  runSucceeded,
  renderTestText,
  renderTestJson,
  renderTestJunit,
  renderTestMarkdown,
  captureTestFile,
} from './conversations/index.js';
export type { TestFile, TestRun, TestReport, RunTestsOptions } from './conversations/index.js';

export { startEmulator, defaultSeed } from './emulator/index.js';
export type { EmulatorOptions, RunningEmulator, EmulatorSeed } from './emulator/index.js';

export { VoxformError, isVoxformError } from './errors.js';
export type { SourceLocation } from './errors.js';
