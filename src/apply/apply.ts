/**
 * The apply pipeline: lock the workspace, plan (or check a saved plan for staleness), confirm, execute
 * the plan's requests, record the outcome in the state and the history. The signal stops it at any step.
 */
import { realpath } from 'node:fs/promises';
import type { TrustedSecrets } from '../secrets/trusted.js';
import { isVoxformError, VoxformError } from '../errors.js';
import type { DesiredState } from '../manifest/types.js';
import { liveFingerprints } from '../plan/fingerprint.js';
import { assertPlanFresh, madeElsewhere, stateDigest, type SavedPlan } from '../plan/plan-file.js';
import { readLiveState, type LiveState } from '../plan/read-live.js';
import { PLAN_OPTIONAL, PLAN_REQUIRES, planWorkspace } from '../plan/plan.js';
import { planHasChanges } from '../plan/field-lines.js';
import { readSharedView, unseenEnvironmentsWarning, type SharedView } from '../plan/shared-resources.js';
import { planFromJson } from '../plan/saved-plan.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import { statePlace, type HeldLock, type LockLoss, type StateBackend } from '../state/backend.js';
import { ciJobUrlFrom } from '../util/run-identity.js';
import { FileStateBackend } from '../state/file-backend.js';
import { StateStore } from '../state/state-file.js';
import { missingStateError } from '../state/missing-state.js';
import { noteStateEvidence } from '../state/trusted-secrets.js';
import { workspaceKey, type WorkspaceState } from '../state/types.js';
import { deployer } from '../history/source.js';
import type { DeploySource, HistoryRecord, HistoryStore } from '../history/types.js';
import { APPLY_CLIENT_METHODS, type ApplyClient } from './client.js';
import { executePlan, nothingRan, type ExecuteResult, type ProgressEvent } from './execute-plan.js';
import { AgentReadBacks, recordHistory } from './record-history.js';
import { ledgerSealKey } from '../history/seal.js';
import { checkOptionalOptions, describeValue, requireOptions, withMethods, type Optional } from '../util/required-options.js';
import { errorMessage } from '../secrets/error-message.js';
import { someOf } from '../util/plural.js';

/** How many agents a warning names before it counts the rest: a stopped run over thousands of agents would list them all. */
const AGENTS_NAMED = 10;

export type ApplyEvent =
  /** Reading live state: agents read so far, of how many. */
  | { type: 'reading'; agentsRead: number; agents: number }
  /** The plan that will run (fresh, or the saved one once found current). */
  | { type: 'planned'; plan: Plan; saved: boolean }
  /** Something to tell the user that does not stop the run (a stale lock taken over). */
  | { type: 'warning'; message: string }
  | ApplyStopping
  | Exclude<ProgressEvent, { type: 'stopping' }>;

/**
 * The run stops: no new write is sent, the `inFlight` ones are waited for. `because`: the caller's
 * signal (`interrupted`: Ctrl-C), the lock lost while held (`lockLost` says how), or a state write
 * that failed (the run's `stateError`).
 */
export type ApplyStopping =
  | { type: 'stopping'; inFlight: number; because: 'interrupted' | 'state_failed' }
  | { type: 'stopping'; inFlight: number; because: 'lock_lost'; lockLost: LockLoss };

export interface ApplyOptions {
  /** The manifests, loaded (with the environment: secrets are read from them when requests are sent). */
  desired: DesiredState;
  /** `desired` is a recorded configuration, not the manifests (`PlanOptions.recordedConfiguration`). */
  recordedConfiguration?: boolean | undefined;
  client: ApplyClient;
  /** Where state, lock and history are kept (`openStateBackend`); the caller closes it. */
  backend?: StateBackend | undefined;
  /** Instead of `backend`: a state file (`.voxform/state.json`), opened as the file backend. */
  stateFile?: string | undefined;
  /** How the service is named in state and plans: its base URL, or `local` for the embedded emulator. */
  serviceId: string;
  /** `fingerprintKey(apiKey)`: the key of the hashes in the state file and saved plans (never stored). */
  fingerprintKey: string;
  /** Manifest files as shown in the plan (relative to the working directory). */
  files?: string[] | undefined;
  /** A saved plan (`readPlanFile`): checked for staleness, then run as saved. Counts as approval. */
  savedPlan?: SavedPlan | undefined;
  /** The folder apply runs in (a real path): named when a saved plan made in another folder is refused. */
  workingDir?: string | undefined;
  /** The command a stale saved plan's refusal names to make a new one (default `voxform plan --out FILE`). */
  planCommand?: string | undefined;
  /** Told of each change of a fresh plan as it is made (see `PlanOptions.onChange`). */
  onChange?: ((change: ResourceChange) => void) | undefined;
  /** Resources a fresh plan may take from another environment of the same service (see `PlanOptions.takeOver`); with a saved plan, its own, for the command lines printed. */
  takeOver?: string[] | undefined;
  /** Told of the workspace as read, before the plan is made (see `PlanOptions.onWorkspace`). */
  onWorkspace?: ((workspace: WorkspaceState) => void) | undefined;
  /** Hears the recorded variables and every live value a fresh plan reads (see `PlanOptions.secrets`). */
  secrets?: TrustedSecrets | undefined;
  /** `--target` addresses for a fresh plan. */
  targets?: string[] | undefined;
  /**
   * The state's record of the workspace (`stateDigest`) the caller decided what to apply on, before
   * the lock was held (a heal's drift check, a rollback's record): one written since (another run
   * applied meanwhile) refuses the run under the lock (`plan_stale`), nothing applied.
   */
  decidedOn?: string | undefined;
  /** Apply without asking. */
  autoApprove?: boolean | undefined;
  /**
   * Asked when a fresh plan has changes (unless `autoApprove`): resolve true to apply, false to
   * cancel; anything else is refused (`invalid_option`) before anything is written.
   */
  confirm?: ((plan: Plan) => Promise<boolean>) | undefined;
  onEvent?: ((event: ApplyEvent) => void) | undefined;
  /** Stops the run: nothing new is written after it fires (see `ExecuteResult`). */
  signal?: AbortSignal | undefined;
  /** Requests in flight at once (default 8). */
  parallelism?: number | undefined;
  /**
   * Apply though the state holds nothing of the workspace while its ledger records applies of it
   * (everything already on the service counts as never applied); refused with `state_missing` otherwise.
   */
  allowMissingState?: boolean | undefined;
  /** Wait this long for another apply to release the state lock (default 0). */
  lockTimeoutSeconds?: number | undefined;
  /** Added to the `voxform state unlock` command a lock refusal names (the `--state` this run was given). */
  unlockOptions?: string | undefined;
  /** The command the errors of a lock lost while held and of a state another run wrote meanwhile name to see where things stand (default `voxform plan`). */
  recheckCommand?: string | undefined;
  /** How the lock names this run to a refused one (default `voxform apply`). */
  command?: string | undefined;
  /** After a stop, how long to wait for the requests in flight (default 10 s). */
  stopGraceMs?: number | undefined;
  /**
   * Once aborted after a stop, the requests in flight are waited for no longer (their outcome is
   * unknown), and the run records at once what the service accepted before: a second Ctrl-C.
   */
  stopWaiting?: AbortSignal | undefined;
  /** Told of the lock once it is held, for a caller that may have to release it on an abrupt exit. */
  onLocked?: ((lock: HeldLock) => void) | undefined;
  /** The deploy ledger: every apply that ran its plan appends a record here (docs/history.md). */
  history?: HistoryStore | undefined;
  /** Where the change came from (`detectDeploySource`), awaited only for the record; a rollback sets `rollbackOf`. */
  source?: DeploySource | Promise<DeploySource> | undefined;
  /** Who runs the apply, for the record (default `deployer(process.env)`: `user@host`). */
  by?: string | undefined;
  /** The CI job running the apply, named in the lock (default: found in `process.env`). */
  ciJobUrl?: string | undefined;
}

export interface ApplyOutcome extends ExecuteResult {
  /**
   * `failed`: some changes failed or were skipped (wholly, or after some of their writes reached the
   * service: `partlyApplied` with an `error` or `because`), or a state write failed (`stateError`);
   * `cancelled`: `confirm` said no; `interrupted`: the signal or a lost lock stopped the run.
   */
  status: 'nothing_to_do' | 'applied' | 'failed' | 'cancelled' | 'interrupted';
  /** The plan that ran; undefined when interrupted before it was made. */
  plan: Plan | undefined;
  /** Where the state was kept: the state file's path, or the database URL without its password. */
  stateLocation: string;
  /** Set when the run stopped because the lock was lost (forced open, or the database connection dropped): why (`describeLockLoss` words it). */
  lockLost?: LockLoss | undefined;
  /** The deploy ledger's record of this apply, when `history` was given and the plan ran. */
  record?: HistoryRecord | undefined;
}

/** Why the run stops, as its caller hears it: a stop by `signal` is the lock's loss when that fired first. */
function applyStopping(event: Extract<ProgressEvent, { type: 'stopping' }>, signal: AbortSignal, lock: HeldLock): ApplyStopping {
  const { inFlight } = event;
  if (event.because === 'state_failed') return { type: 'stopping', inFlight, because: 'state_failed' };
  const lockLost = lock.lostReason();
  // AbortSignal.any takes the reason of the first signal to fire: the loss's, or the caller's stop's.
  if (lockLost !== undefined && signal.reason === lock.lost.reason) return { type: 'stopping', inFlight, because: 'lock_lost', lockLost };
  return { type: 'stopping', inFlight, because: 'interrupted' };
}

/** Settles like `promise`, or with undefined as soon as `signal` aborts. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve(undefined);
  }
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The plan to run, the live state it was checked against, and the order each campaign or credential
 * written records: a fresh plan, or the saved one if current. A saved plan is checked against the
 * state as the other environments left it too: one that wrote a campaign or credential since makes it stale.
 */
async function preparePlan(options: ApplyOptions & { backend: StateBackend }, store: StateStore): Promise<{ plan: Plan; live: LiveState; view: SharedView }> {
  const { desired, savedPlan, client } = options;
  const onReadProgress = (agentsRead: number, agents: number) => options.onEvent?.({ type: 'reading', agentsRead, agents });
  const onWarning = (message: string) => options.onEvent?.({ type: 'warning', message });
  if (!savedPlan) return planWorkspace({ ...options, onReadProgress, onWarning }, store);
  const plan = planFromJson(savedPlan, 'the saved plan');
  refuseOtherSelection(options, plan);
  // Made for another service: said before that service is read (it may not even be running).
  const elsewhere = madeElsewhere(savedPlan, { serviceId: options.serviceId, planCommand: options.planCommand });
  if (elsewhere) throw elsewhere;
  const live = await readLiveState(client, desired, { onProgress: onReadProgress, onAgent: (agent) => options.secrets?.noteLiveAgent(agent) });
  const { view, unseen } = await readSharedView(options.backend, desired, options.serviceId, store.workspace);
  const key = store.fingerprintKey;
  // A library caller that names no folder applies from the process's own, as the CLI does.
  const place = await statePlace(options.backend, options.workingDir ?? (await realpath(process.cwd())));
  assertPlanFresh(savedPlan, { fingerprints: liveFingerprints(desired, live, view.workspace, key), desired, serviceId: options.serviceId, fingerprintKey: key, workingDir: options.workingDir, planCommand: options.planCommand, workspace: store.workspace, statePlace: place });
  const unseenWarning = unseenEnvironmentsWarning(unseen, plan.changes);
  if (unseenWarning) onWarning(unseenWarning);
  return { plan, live, view };
}

/**
 * A saved plan fixes what it applies: `targets` and `takeOver`, given with it, may only repeat its
 * own (the CLI passes them for the command lines it prints), never widen or narrow it.
 */
function refuseOtherSelection(options: Pick<ApplyOptions, 'targets' | 'takeOver'>, plan: Plan): void {
  const same = (given: readonly string[] | undefined, own: readonly string[]) => {
    if (given === undefined) return true;
    // Looked up once for each address given, as many as the plan's own: a set, not its list.
    const owned = new Set(own);
    return given.length === own.length && given.every((address) => owned.has(address));
  };
  if (same(options.targets, plan.targets) && same(options.takeOver, plan.takeOver ?? [])) return;
  throw new VoxformError('invalid_option', 'apply(): a saved plan fixes its targets and take-overs, and `targets` or `takeOver` names others.', {
    hint: 'Leave `targets` and `takeOver` out with a saved plan, or make a plan with the ones you want.',
  });
}

/** Whether to go on: a saved plan or `autoApprove` approve; otherwise `confirm` decides. */
async function approve(options: ApplyOptions, plan: Plan): Promise<boolean> {
  // A plan of renamed keys alone moves state entries: asked about as any plan with changes.
  if (options.savedPlan || options.autoApprove || !planHasChanges(plan)) return true;
  if (!options.confirm) {
    throw new VoxformError('approval_required', 'Refusing to apply without approval: pass autoApprove, a confirm callback, or a saved plan.', { hint: 'On the command line: pass --auto-approve, or apply a plan saved with `voxform plan --out FILE`.' });
  }
  // Only `true` applies: a prompt's words ("no") or a count would otherwise approve by being truthy.
  const answer: unknown = await options.confirm(plan);
  if (typeof answer === 'boolean') return answer;
  throw new VoxformError('invalid_option', `apply(): \`confirm\` resolved to ${describeValue(answer, 'boolean')}, where true (apply) or false (cancel) belongs; nothing was applied.`, {
    hint: "Resolve a boolean: compare what was typed, as `confirm: async () => (await rl.question('Apply? ')) === 'yes'`.",
  });
}

/** The backend the options name: `backend`, or the file backend of `stateFile`. */
function backendOf(options: ApplyOptions): StateBackend {
  if (options.backend) return options.backend;
  if (options.stateFile) return new FileStateBackend(options.stateFile);
  throw new VoxformError('invalid_option', 'apply() needs a state backend: pass `backend` (openStateBackend) or `stateFile`.', { hint: 'Open one with openStateBackend(spec), or pass stateFile: PATH.' });
}

/** The workspace's lock, or undefined when the run was stopped while waiting for it. */
async function lockWorkspace(options: ApplyOptions, backend: StateBackend, workspace: string, emit: (event: ApplyEvent) => void): Promise<HeldLock | undefined> {
  try {
    return await backend.acquireLock(workspace, {
      command: options.command ?? 'voxform apply',
      timeoutSeconds: options.lockTimeoutSeconds ?? 0,
      warn: (message) => emit({ type: 'warning', message }),
      ciJobUrl: options.ciJobUrl ?? ciJobUrlFrom(process.env),
      signal: options.signal,
      unlockOptions: options.unlockOptions,
      recheckCommand: options.recheckCommand,
      // Planned and written under the service's lock too: another environment's apply can neither
      // write a shared resource after this plan read its claims, nor take this run's write order.
      sharedResourcesOf: options.serviceId,
    });
  } catch (error) {
    if (isVoxformError(error) && error.code === 'interrupted') return undefined;
    throw error;
  }
}

/** What each option apply() may be left without must be when given: checked before the lock is taken. */
const APPLY_OPTIONAL = {
  ...PLAN_OPTIONAL,
  savedPlan: 'object',
  workingDir: 'string',
  planCommand: 'string',
  decidedOn: 'string',
  autoApprove: 'boolean',
  confirm: 'function',
  onEvent: 'function',
  signal: 'signal',
  parallelism: 'count',
  allowMissingState: 'boolean',
  lockTimeoutSeconds: 'whole',
  unlockOptions: 'string',
  recheckCommand: 'string',
  command: 'string',
  stopGraceMs: 'whole',
  stopWaiting: 'signal',
  onLocked: 'function',
  history: withMethods('a history store (a FileHistoryStore, or a state backend\'s `history`)', ['append'] satisfies ReadonlyArray<keyof HistoryStore>),
  source: 'object',
  by: 'string',
  ciJobUrl: 'string',
} as const satisfies Partial<Record<keyof ApplyOptions, Optional>>;

/** What apply cannot run without: a plan's, with a client that writes as well as reads. */
const APPLY_REQUIRES = {
  ...PLAN_REQUIRES,
  client: withMethods('a client made by createClient', APPLY_CLIENT_METHODS),
} as const;

export async function apply(options: ApplyOptions): Promise<ApplyOutcome> {
  requireOptions('apply', options, APPLY_REQUIRES);
  checkOptionalOptions('apply', options, APPLY_OPTIONAL);
  // An `onEvent` that throws stops the run as a signal does: what is in flight ends and is recorded,
  // the lock is released, and only then does apply reject, with that error.
  const listener = new AbortController();
  let thrown: { error: unknown } | undefined;
  const emit = (event: ApplyEvent) => {
    try {
      options.onEvent?.(event);
    } catch (error) {
      thrown ??= { error };
      listener.abort();
    }
  };
  const outcome = await applyLocked(options, emit, listener.signal);
  if (thrown) throw thrown.error;
  return outcome;
}

async function applyLocked(options: ApplyOptions, emit: (event: ApplyEvent) => void, listenerStopped: AbortSignal): Promise<ApplyOutcome> {
  const backend = backendOf(options);
  const workspace = workspaceKey(options.desired.environment, options.serviceId);

  // 1. Lock the workspace and the service's shared resources: nothing is read for the plan, nor written, without them.
  const lock = await lockWorkspace(options, backend, workspace, emit);
  // Stopped while another run held the lock: nothing was read, nothing changed.
  if (!lock) return { ...nothingRan(), status: 'interrupted', plan: undefined, stateLocation: backend.display };
  const outcome = (status: ApplyOutcome['status'], plan: Plan | undefined, result = nothingRan()): ApplyOutcome => ({
    ...result,
    status,
    plan,
    stateLocation: backend.display,
    ...(lock.lost.aborted ? { lockLost: lock.lostReason() } : {}),
  });
  // Whatever throws from here on, the lock is released: a lock left held refuses every later apply.
  try {
    options.onLocked?.(lock);
    // A lost lock (the database connection dropped) stops the run like Ctrl-C: no new write.
    const signal = AbortSignal.any([...(options.signal ? [options.signal] : []), lock.lost, listenerStopped]);
    // 2. Plan: the state as last recorded, the service as it is now, the manifests.
    const store = await StateStore.open(backend, workspace, options.fingerprintKey);
    // Before the service is read: an apply without the state would create again what is on the service.
    if (store.missingState && !options.allowMissingState) throw missingStateError(store.missingState, workspace);
    if (options.decidedOn !== undefined && options.decidedOn !== stateDigest(store.workspace, options.fingerprintKey)) {
      throw new VoxformError('plan_stale', "The state's record of this workspace changed after this run decided what to apply (another apply, heal or rollback ran meanwhile); nothing was applied.", {
        hint: 'Run it again: it decides anew on what the state records now.',
      });
    }
    options.onWorkspace?.(store.workspace);
    if (options.secrets) await noteStateEvidence(options.secrets, backend, workspace, store.workspace);
    if (signal.aborted) return outcome('interrupted', undefined);
    const prepared = await unlessAborted(preparePlan({ ...options, backend, onEvent: emit }, store), signal);
    if (!prepared || signal.aborted) return outcome('interrupted', prepared?.plan);
    const { plan, live, view } = prepared;
    emit({ type: 'planned', plan, saved: options.savedPlan !== undefined });

    // 3. Confirm.
    const approved = await unlessAborted(approve(options, plan), signal);
    if (signal.aborted) return outcome('interrupted', plan);
    if (!approved) return outcome('cancelled', plan);

    // 4. Execute the plan's requests, each change recorded in the state as it lands.
    const readBacks = new AgentReadBacks(options.desired);
    const result = await executePlan({
      onRequestDone: readBacks.onRequestDone,
      plan,
      desired: options.desired,
      live,
      client: options.client,
      store,
      shared: view,
      // The plan's own (a saved plan's, or what this run's --take-over gave its fresh plan).
      takeOver: plan.takeOver,
      parallelism: options.parallelism ?? 8,
      signal,
      stopGraceMs: options.stopGraceMs,
      stopWaiting: options.stopWaiting,
      onProgress: (event) => emit(event.type === 'stopping' ? applyStopping(event, signal, lock) : event),
    });
    // Without the lock nothing more may be written, a record in the ledger neither: the report says
    // what was applied, and that no record holds it, as when the record cannot be written.
    if (lock.lost.aborted) {
      if (options.history && result.applied.length + result.partlyApplied.length > 0) result.warnings.push(UNRECORDED_AFTER_LOCK_LOSS);
      return outcome('interrupted', plan, { ...result, interrupted: true });
    }

    // 5. Record how it ended: in the state and in the history.
    const ended = await recordEnd(options, store, { plan, live, result, readBacks, workspace });
    return { ...outcome(ended.status, plan, ended.result), record: ended.record };
  } finally {
    await lock.release();
  }
}

/** What a run that lost its lock after writes reached the service warns: the ledger has no record of them. */
const UNRECORDED_AFTER_LOCK_LOSS =
  'this apply was not recorded in the history: it lost its lock, and without it nothing more is written (`voxform rollback previous` and `voxform report` do not see what it applied)';

/**
 * How the run ended, recorded in the state and in the ledger, both under the lock. A failed state
 * write fails the apply like one during the run: the result carries it (`stateError`), never a throw.
 */
async function recordEnd(
  options: ApplyOptions,
  store: StateStore,
  ran: { plan: Plan; live: LiveState; result: ExecuteResult; readBacks: AgentReadBacks; workspace: string },
): Promise<{ status: ApplyOutcome['status']; result: ExecuteResult; record: HistoryRecord | undefined }> {
  const { result, plan } = ran;
  const partlyFailed = result.partlyApplied.some((part) => part.error !== undefined || part.because !== undefined);
  const failed = result.failed.length + result.skipped.length > 0 || partlyFailed || result.stateError !== undefined;
  const status = result.interrupted ? 'interrupted' : failed ? 'failed' : planHasChanges(plan) ? 'applied' : 'nothing_to_do';
  const stored = store.recordApplyEnd(
    {
      command: options.command ?? 'voxform apply',
      outcome: status,
      applied: result.applied.length,
      partlyApplied: result.partlyApplied.length,
      failed: result.failed.length,
      skipped: result.skipped.length,
      notApplied: result.stopped.length,
    },
    // Read by this run, stopped or not, as a failed one's are: the next plan marks only the names it did not read.
    result.stateError !== undefined ? undefined : options.desired.environmentVariables,
  );
  const recording = appendHistory(options, { ...ran, status });
  const stateError = await stored.then(
    () => result.stateError,
    (error: unknown) => result.stateError ?? error,
  );
  const record = await recording;
  if (stateError === undefined) return { status, result, record };
  return { status: status === 'interrupted' ? status : 'failed', result: { ...result, stateError }, record };
}

/** The apply's record in the ledger; one that cannot be written is a warning: the changes are made by now. */
async function appendHistory(
  options: ApplyOptions,
  ran: { plan: Plan; live: LiveState; result: ExecuteResult; readBacks: AgentReadBacks; status: ApplyOutcome['status']; workspace: string },
): Promise<HistoryRecord | undefined> {
  if (!options.history) return undefined;
  try {
    const { record, writtenLeftOut: leftOut } = await recordHistory({
      ...ran,
      history: options.history,
      sealKey: ledgerSealKey(options.fingerprintKey),
      desired: options.desired,
      client: options.client,
      outcome: ran.status,
      command: options.command ?? 'voxform apply',
      by: options.by ?? deployer(process.env),
      source: (await options.source) ?? {},
      signal: options.signal,
    });
    if (leftOut.length > 0) {
      ran.result.warnings.push(
        `this apply's history record leaves out ${someOf(leftOut, AGENTS_NAMED)}, applied but not read after the apply: until a later apply records what the service runs, the history takes the configuration before this apply for current (\`voxform rollback previous\` and \`voxform report\` do not see this one)`,
      );
    }
    return record;
  } catch (error) {
    ran.result.warnings.push(`this apply was not recorded in the history: ${errorMessage(error)}`);
    return undefined;
  }
}
