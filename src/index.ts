/**
 * voxform as a library (docs/library.md): the operations the CLI is a thin shell over, and the
 * types they take and return. Everything else in src/ is internal: it may change in any release,
 * so it is not exported here, and nothing inside the repository imports through this file.
 */

// Manifests: load, check, and report every problem as a diagnostic.
export { loadManifests } from './manifest/index.js';
export type { DesiredAgent, DesiredCampaign, DesiredKnowledgeFile, DesiredPhone, DesiredState, Diagnostic, LoadOptions, LoadResult } from './manifest/index.js';

// Plans: what would change, in the three output formats, and saved plans.
export { plan } from './plan/plan.js';
export type { PlanOptions } from './plan/plan.js';
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
export { renderPlanText } from './plan/render-text.js';
export { renderPlanJson } from './plan/render-json.js';
export { renderPlanMarkdown } from './plan/render-markdown.js';
export { readPlanFile, savePlanFile } from './plan/plan-file.js';
export type { SavedPlan } from './plan/plan-file.js';

// Apply: the whole workflow (lock, plan, confirmation, execution, state, history).
export { apply } from './apply/apply.js';
export type { ApplyEvent, ApplyOptions, ApplyOutcome } from './apply/apply.js';

// Drift: what differs between the service, the last apply and the manifests, and where it came from.
export { checkDrift } from './drift/check.js';
export type { DriftCheckOptions } from './drift/check.js';
export type { DriftClass, DriftedField, DriftedResource, DriftReport } from './drift/types.js';

// Policy: the rules a reviewer would enforce, and SARIF for code scanning.
export { evaluatePolicy } from './policy/evaluate.js';
export type { PolicyOptions } from './policy/evaluate.js';
export type { OperatorPack } from './policy/operator-packs.js';
export type { Finding, PolicyArea, PolicyLevel, PolicyReport, PolicyRule, PolicySubject, RuleHit, TokenCounter } from './policy/types.js';
export { renderSarif } from './policy/sarif.js';

// Where apply keeps what the service cannot return, and the record of each apply.
export { openStateBackend } from './state/open.js';
export type { OpenStateOptions } from './state/open.js';
export type { LockLoss, StateBackend } from './state/backend.js';
export { fingerprintKey } from './util/hash.js';
export { FileHistoryStore } from './history/file-store.js';
export { ledgerSealKey } from './history/seal.js';
export type { LedgerSealKey } from './history/seal.js';
export { configurationHash } from './history/config-hash.js';
export { detectDeploySource } from './history/source.js';
export type { AgentVersion, DeploySource, HistoryRecord, HistoryStore } from './history/types.js';

// The service's client, and the local emulator of the service.
export { createClient, ApiError, isApiError, REGION_BASE_URLS } from './api/index.js';
export type { ApiClient, ClientOptions } from './api/index.js';
export { startEmulator, defaultSeed } from './emulator/index.js';
export type { EmulatorOptions, RunningEmulator, EmulatorSeed, TrafficOptions, TrafficSummary } from './emulator/index.js';

// Conversation tests.
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
  Recordings,
  readBaseline,
  compareWithBaseline,
  verdictStatistics,
  JudgeCache,
} from './conversations/index.js';
export type {
  TestFile,
  TestRun,
  TestReport,
  RunTestsOptions,
  TestMode,
  RecordingsOptions,
  Baseline,
  BaselineComparison,
  VerdictStatistics,
  CompletionModel,
  CompleteOptions,
} from './conversations/index.js';

// Webhook receivers: the two payloads the service sends.
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

// Errors and their stable codes.
export { VoxformError, isVoxformError } from './errors.js';
export type { SourceLocation } from './errors.js';
export { API_ERROR_CODES, COMMAND_ERROR_CODES, DIAGNOSTIC_CODES, PLAN_PROBLEM_CODES } from './error-codes.js';
export type { ApiErrorCode, CommandErrorCode, DiagnosticCode, ErrorCode, PlanProblemCode } from './error-codes.js';
