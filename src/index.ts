/**
 * voxform as a library: the same pipeline the CLI runs (see README, "As a library").
 *
 *   const { state } = await loadManifests({ paths: ['voxform.yaml'], cwd, env: process.env });
 *   const client = createClient({ region: 'us', apiKey });
 *   const backend = await openStateBackend({ env: process.env, cwd, registerSecret: () => undefined });
 *   const outcome = await apply({ desired: state, client, backend, serviceId: client.baseUrl, fingerprintKey: fingerprintKey(apiKey), confirm });
 */
export { loadManifests } from './manifest/index.js';
export type { DesiredState, Diagnostic, LoadOptions, LoadResult } from './manifest/index.js';

export { plan } from './plan/plan.js';
export type { PlanOptions } from './plan/plan.js';
export { createPlan } from './plan/create-plan.js';
export type { CreatePlanOptions } from './plan/create-plan.js';
export { diffStates } from './plan/diff.js';
export type { LiveState, PlanProblem } from './plan/diff.js';
export type {
  Action,
  ChangeReason,
  FieldChange,
  FillSource,
  Plan,
  PlannedRequest,
  PlanSummary,
  RequestOperation,
  ResourceChange,
  ResourceKind,
  ValueFill,
} from './plan/types.js';
export { readLiveState } from './plan/read-live.js';
export type { LiveReader } from './plan/read-live.js';
export { readPlanFile, savePlanFile, assertPlanFresh } from './plan/plan-file.js';
export type { SavedPlan } from './plan/plan-file.js';
export { planFromJson } from './plan/saved-plan.js';
export { liveFingerprints } from './plan/fingerprint.js';
export { renderPlanText } from './plan/render-text.js';
export { planToJson, renderPlanJson } from './plan/render-json.js';
export { renderPlanMarkdown } from './plan/render-markdown.js';

export { apply } from './apply/apply.js';
export type { ApplyEvent, ApplyOptions, ApplyOutcome } from './apply/apply.js';
export { executePlan, STOP_GRACE_MS } from './apply/execute-plan.js';
export type { ExecuteOptions, ExecuteResult, ProgressEvent } from './apply/execute-plan.js';
export type { ApplyClient } from './apply/client.js';

export { FileHistoryStore } from './history/file-store.js';
export { configurationHash } from './history/config-hash.js';
export { detectDeploySource, deployer } from './history/source.js';
export { resolveHistoryRef } from './history/resolve-ref.js';
export { desiredFromRecord } from './history/restore.js';
export type { AgentVersion, DeploySource, HistoryRecord, HistoryStore } from './history/types.js';

export { StateStore, readStateFile } from './state/state-file.js';
export { acquireStateLock } from './state/lock.js';
export { openStateBackend, openStateSpec, stateSpec, DEFAULT_STATE_FILE } from './state/open.js';
export type { OpenStateOptions } from './state/open.js';
export { FileStateBackend } from './state/file-backend.js';
export { migrateState } from './state/migrate.js';
export type { MigrateResult } from './state/migrate.js';
export { describeHolder } from './state/backend.js';
export type { AcquireOptions, HeldLock, LockHolder, StateBackend, StoredWorkspace, WorkspaceSummary } from './state/backend.js';
export { emptyWorkspace, workspaceKey } from './state/types.js';
export { fingerprintKey } from './util/hash.js';
export type { StateFile, WorkspaceState } from './state/types.js';
export type { StateLock } from './state/lock.js';

export { createClient, ApiError, isApiError, REGION_BASE_URLS } from './api/index.js';
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
export type { EmulatorOptions, RunningEmulator, EmulatorSeed, TrafficOptions, TrafficSummary } from './emulator/index.js';

export { parseEndOfCallWebhook, parsePrefetchRequest, prefetchResponse, prefetchAnswerProblem, checkWebhookHeaders } from './webhooks/receive.js';
export type {
  EndOfCallPayload,
  IncomingHeaders,
  PrefetchRequest,
  PrefetchWebhookQuery,
  PrefetchWebhookResponse,
  WebhookCheckOptions,
  WebhookParseResult,
  WebhookRejection,
} from './webhooks/receive.js';
export { endOfCallPayload, prefetchQuery } from './webhooks/payload.js';
export { WEBHOOK_BUDGET_MS } from './webhooks/budget.js';

export { VoxformError, isVoxformError } from './errors.js';
export type { SourceLocation } from './errors.js';
export { API_ERROR_CODES, COMMAND_ERROR_CODES, DIAGNOSTIC_CODES, PLAN_PROBLEM_CODES } from './error-codes.js';
export type { ApiErrorCode, CommandErrorCode, DiagnosticCode, ErrorCode, PlanProblemCode } from './error-codes.js';
