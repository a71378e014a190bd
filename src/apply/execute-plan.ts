/**
 * Runs a plan's requests: each once those it depends on succeeded, at most `parallelism` at once, the
 * state updated after each success, dependents of a failure skipped. On the signal no write starts
 * any more; those in flight are waited for (at most `stopGraceMs`) and what reached the service stays
 * recorded; one still unanswered then has an unknown outcome.
 */
import type { DesiredState } from '../manifest/types.js';
import type { LiveState } from '../plan/read-live.js';
import type { Plan, PlannedRequest, RequestOperation, ResourceChange } from '../plan/types.js';
import type { StateStore } from '../state/state-file.js';
import { CHECK_KNOWLEDGE_FILES, displayPath, isApiError, outcomeUnknownHint } from '../api/errors.js';
import { VoxformError } from '../errors.js';
import { Semaphore } from '../util/semaphore.js';
import type { ApplyClient } from './client.js';
import { filledBody } from './fills.js';
import { readBackWarnings } from './read-back.js';
import type { SharedView } from '../plan/shared-resources.js';
import { answerOnlyStateKeeps, stateAfterRefusedFiles, stateAfterRequest, stateWhenUnchanged, stateWritesSettled, stateWritesUnrecorded, unreadableWrites, type StateChange } from './record-state.js';
import { DesiredIndex } from './resources.js';
import { sendRequest, type RequestResult } from './send-request.js';
import { refusedRecordedFiles, withRefusedFilesHint } from './refused-files.js';
import { withRefusedValuePlace } from './refused-values.js';
import { errorMessage } from '../secrets/error-message.js';

/** An error as a warning names it: its code and message, never a stack. */
function errorText(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = errorMessage(error);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

function isNotSent(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'api_not_sent';
}

/**
 * A write sent whose answer the stop gave up waiting for: the service may have acted on it, and may
 * yet, so it is never reported as not applied.
 */
function abandonedWrite(request: PlannedRequest): VoxformError {
  const message = `${request.method} ${displayPath(request.path)} was sent, but the stop gave up waiting for its answer: the service may have acted on it.`;
  // The next plan shows every other write's outcome; a knowledge file the service cannot list.
  const checkOutcome = request.operation === 'upload_knowledge_file' ? CHECK_KNOWLEDGE_FILES : undefined;
  return new VoxformError('api_outcome_unknown', message, { hint: outcomeUnknownHint({ checkOutcome }) });
}

/** How long a stop waits for the requests in flight by default. */
const STOP_GRACE_MS = 10_000;

export function nothingRan(): ExecuteResult {
  return { applied: [], partlyApplied: [], failed: [], skipped: [], stopped: [], unrecorded: [], interrupted: false, warnings: [] };
}

export type ProgressEvent =
  | { type: 'start'; change: ResourceChange }
  /** `ms`: from the change's first request sent to its last answered, not the wait for its state write after. */
  | { type: 'done'; change: ResourceChange; ms: number }
  | { type: 'failed'; change: ResourceChange; error: unknown }
  | { type: 'skipped'; change: ResourceChange; because: string }
  /** Some writes of the change reached the service, then one failed or was skipped. */
  | { type: 'partly'; change: ResourceChange; part: PartlyApplied }
  /** `because`: `signal`, the caller's signal stopped the run; `state_failed`, a state write failed. */
  | { type: 'stopping'; inFlight: number; because: StopCause };

type StopCause = 'signal' | 'state_failed';

/**
 * A change some of whose writes reached the service and the rest did not: one failed (or was left
 * unanswered by a stop: `api_outcome_unknown`), or was skipped as what it depends on did not apply, or
 * the run stopped before it was sent.
 */
export interface PartlyApplied {
  address: string;
  /** The operations of the writes the service accepted, in plan order. */
  reached: RequestOperation[];
  /** The operations of the writes it did not accept, in plan order. */
  notReached: RequestOperation[];
  /** The error of the write that failed, when one did. */
  error?: unknown;
  /** When a write was skipped: why (`knowledge.faq did not apply`). */
  because?: string;
}

export interface ExecuteResult {
  /** Changes whose every write the service accepted (a read-back unanswered after a stop is a warning). */
  applied: string[];
  /** Changes some of whose writes reached the service and others did not (a write that failed or was skipped, or a stop). */
  partlyApplied: PartlyApplied[];
  /** Changes none of whose writes reached the service, one of them failing (or left unanswered by a stop: `api_outcome_unknown`). */
  failed: Array<{ address: string; error: unknown }>;
  /** Changes none of whose writes reached the service, because a change they depend on did not apply. */
  skipped: Array<{ address: string; because: string }>;
  /** After a stop: changes none of whose writes was accepted or left unanswered: the run stopped before them. */
  stopped: string[];
  /** Changes that reached the service but whose state write failed (the next plan compares them again). */
  unrecorded: string[];
  /** The first state write that failed: from then on no new write is sent, as after a stop. */
  stateError?: unknown;
  interrupted: boolean;
  /** Fields the service dropped or changed on read-back, and other things worth a look. */
  warnings: string[];
}

interface ExecuteOptions {
  plan: Plan;
  /** The manifests as loaded now: where secrets and files are read from, and what state records. */
  desired: DesiredState;
  /** The service as read for the plan (or its staleness check): where `live` fills come from. */
  live: LiveState;
  client: ApplyClient;
  store: StateStore;
  /** The other environments' word on campaigns and credentials, as the plan was made or checked against it: what a write records. */
  shared?: SharedView | undefined;
  /** `--take-over`: a campaign or credential it names is recorded as this environment's even when nothing had to change. */
  takeOver?: readonly string[] | undefined;
  parallelism: number;
  signal?: AbortSignal | undefined;
  stopGraceMs?: number | undefined;
  /** Once aborted after a stop, the requests in flight are waited for no longer, as when `stopGraceMs` runs out. */
  stopWaiting?: AbortSignal | undefined;
  onProgress?: ((event: ProgressEvent) => void) | undefined;
  /** Told of every request that succeeded, with the body as sent and what it returned (the deploy ledger's read-backs). */
  onRequestDone?: ((done: RequestDone) => void) | undefined;
  /** Milliseconds, for the time a change's requests took (`done`'s `ms`); default `Date.now`. Tests inject one. */
  now?: (() => number) | undefined;
}

/** A request that succeeded. `body` is as sent: it may hold secrets, so it is never printed or stored. */
export interface RequestDone {
  request: PlannedRequest;
  change: ResourceChange;
  body: Record<string, unknown> | undefined;
  result: RequestResult;
}

type RequestOutcome =
  | { status: 'done' }
  | { status: 'failed'; error: unknown }
  /** `cause`: the change that did not apply. */
  | { status: 'skipped'; cause: string }
  | { status: 'not_started' };

export async function executePlan(options: ExecuteOptions): Promise<ExecuteResult> {
  const run = new PlanRun(options);
  await run.markUnreadableWrites();
  const changes = Promise.all(options.plan.changes.map((change) => run.change(change)));
  const stopped = stopWait(run.stop, { graceMs: options.stopGraceMs ?? STOP_GRACE_MS, stopWaiting: options.stopWaiting }, run);
  await Promise.race([changes, stopped.promise]);
  stopped.cancel();
  return run.finish();
}

/** Resolves `graceMs` after the signal fires (the bound on waiting for requests in flight), or once `stopWaiting` fires after it. */
function stopWait(signal: AbortSignal, bound: { graceMs: number; stopWaiting: AbortSignal | undefined }, run: PlanRun): { promise: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: () => void = () => undefined;
  let waitNoLonger: () => void = () => undefined;
  const { stopWaiting } = bound;
  let sayStopping: (() => void) | undefined;
  let counting: NodeJS.Immediate | undefined;
  const promise = new Promise<void>((resolve) => {
    waitNoLonger = resolve;
    onAbort = () => {
      timer = setTimeout(resolve, bound.graceMs);
      if (stopWaiting?.aborted) resolve();
      else stopWaiting?.addEventListener('abort', waitNoLonger, { once: true });
      // Taken now: whichever stopped the run is the one that has fired yet.
      const because = run.stopCause();
      // A plan that sends nothing has no write to hold back: "no new write is sent" would be said of none.
      if (!run.sendsRequests) return;
      sayStopping = () => ((sayStopping = undefined), run.emit({ type: 'stopping', inFlight: run.inFlight, because }));
      // Counted a turn later: a request waiting in the client (its queue, a retry's wait) is withdrawn by the stop itself, and is not in flight.
      counting = setImmediate(sayStopping);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  // A run whose writes were all withdrawn ends before that turn: it says so all the same, as its caller
  // still saves the state and the history, however long they take.
  const cancel = () => {
    clearTimeout(timer);
    clearImmediate(counting);
    signal.removeEventListener('abort', onAbort);
    stopWaiting?.removeEventListener('abort', waitNoLonger);
    sayStopping?.();
  };
  return { promise, cancel };
}

class PlanRun {
  private readonly result = nothingRan();
  private readonly slots: Semaphore;
  private readonly resources: DesiredIndex;
  /** `takeOver` as a set: every unchanged campaign and credential asks it. */
  private readonly takeOver: ReadonlySet<string>;
  private readonly requests = new Map<string, { request: PlannedRequest; change: ResourceChange }>();
  private readonly outcomes = new Map<string, Promise<RequestOutcome>>();
  /** The outcome of each request once it settled. */
  private readonly answered = new Map<string, RequestOutcome>();
  private readonly results = new Map<string, string>();
  /** By change address: the agent update as sent, whose fields its read-back checks (and no others). */
  private readonly updatesSent = new Map<string, Record<string, unknown> | undefined>();
  private readonly settled = new Set<string>();
  /** Requests the service answered with success. */
  private readonly succeededRequests = new Set<string>();
  private readonly started = new Map<string, number>();
  /** State writes of each change's successful requests, by change address (they never reject). */
  private readonly writes = new Map<string, Array<Promise<void>>>();
  private readonly unrecorded = new Set<string>();
  /** Campaigns and credentials this run marked `writeUnrecorded` before sending anything. */
  private readonly marked = new Set<string>();
  /** Campaigns and credentials the plan writes that an earlier run left marked: only this run's records of every write clear it. */
  private readonly markedBefore = new Set<string>();
  /** Requests an attempt of which (of their planned path: `onSent`) left for the service: they may have reached it. */
  private readonly sent = new Set<string>();
  /** Aborted by the first state write that fails. */
  private readonly stateFailure = new AbortController();
  /** The caller's signal or a failed state write: either stops the run. */
  readonly stop: AbortSignal;
  /** Requests not settled yet: once none is, the state is flushed. */
  private unsettled = 0;
  /** Whether the plan sends the service anything (a plan of unchanged resources only records them). */
  readonly sendsRequests: boolean;
  /** Once the run has reported, late answers change nothing (the lock may be someone else's by then). */
  private closed = false;
  inFlight = 0;

  /** The client writes go through: where it can, a view whose waiting requests the stop withdraws. */
  private readonly client: ApplyClient;

  constructor(private readonly options: ExecuteOptions) {
    const parallelism = Math.max(1, options.parallelism);
    const { client, signal } = options;
    this.stop = signal ? AbortSignal.any([signal, this.stateFailure.signal]) : this.stateFailure.signal;
    // Interrupted: what reached the service is written at once, not at the next interval.
    this.stop.addEventListener('abort', () => options.store.flush(), { once: true });
    // A request may still wait inside the client (for a slot of its own bound, or out a retry's
    // backoff): a client that can withdraw it is told of the stop, so a stop sends nothing new.
    this.client = client.withSignal?.(this.stop) ?? client;
    this.slots = new Semaphore(parallelism);
    this.resources = new DesiredIndex(options.desired);
    this.takeOver = new Set(options.takeOver);
    for (const change of options.plan.changes) for (const request of change.requests) this.requests.set(request.id, { request, change });
    for (const change of options.plan.changes) if (change.action !== 'no-op') this.unsettled += change.requests.length;
    this.sendsRequests = this.unsettled > 0;
    if (this.unsettled === 0) options.store.flush();
  }

  emit(event: ProgressEvent): void {
    if (!this.closed) this.options.onProgress?.(event);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private get stopping(): boolean {
    return this.stop.aborted;
  }

  /** What stopped the run, once it has stopped: the caller's signal, or a failed state write. */
  stopCause(): StopCause {
    return this.options.signal?.aborted ? 'signal' : 'state_failed';
  }

  async change(change: ResourceChange): Promise<void> {
    if (change.action === 'no-op') {
      const { shared } = this.options;
      const record = stateWhenUnchanged(change, { resources: this.resources, key: this.options.store.fingerprintKey, shared, takeOver: this.takeOver });
      if (record) await this.record(change.address, record);
      this.settled.add(change.address);
      return;
    }
    const outcomes = await Promise.all(change.requests.map((request) => this.request(request, change)));
    // Taken before the state write: that may wait for the next paced write, or for a stop to flush it.
    const answeredAt = this.now();
    const settled = this.settleMark(change, outcomes);
    await Promise.all([...(this.writes.get(change.address) ?? []), settled]);
    if (this.closed) return;
    this.conclude(change, outcomes, answeredAt);
  }

  /**
   * Stores what a request means for the state. A failed write lists the change as not recorded and
   * stops the run; it is handled here at once, as an unhandled rejection would end the CLI early.
   */
  private record(address: string, change: StateChange, atOnce = false): Promise<void> {
    const { store } = this.options;
    return (atOnce ? store.updateNow(change) : store.update(change)).catch((error: unknown) => {
      this.unrecorded.add(address);
      this.stateFailed(error);
    });
  }

  private stateFailed(error: unknown): void {
    if (!this.closed) this.result.stateError ??= error;
    this.stateFailure.abort();
  }

  /**
   * Before anything is sent: the campaigns and credentials the plan writes are marked in the state,
   * stored at once (`unreadableWrites`). Not stored, nothing is sent: the run stops as after any failed state write.
   */
  async markUnreadableWrites(): Promise<void> {
    const { store } = this.options;
    if (this.stopping) return;
    const { unmarked, marked } = unreadableWrites(this.options.plan.changes, store.workspace);
    for (const change of marked) this.markedBefore.add(change.address);
    if (unmarked.length === 0) return;
    for (const change of unmarked) this.marked.add(change.address);
    await store.updateNow(stateWritesUnrecorded(unmarked)).catch((error: unknown) => this.stateFailed(error));
  }

  /**
   * A marked change keeps its mark while a write of it may have landed unrecorded: one sent that the
   * service did not accept. Otherwise each write is recorded (the last one's record cleared the mark)
   * or was never sent, and the mark goes.
   */
  private settleMark(change: ResourceChange, outcomes: readonly RequestOutcome[]): Promise<void> | undefined {
    if (!this.marked.has(change.address)) return undefined;
    const unsettled = change.requests.filter((_, i) => outcomes[i]?.status !== 'done');
    if (unsettled.length === 0 || unsettled.some((request) => this.sent.has(request.id))) return undefined;
    return this.record(change.address, stateWritesSettled(change));
  }

  /**
   * Files the change under its writes the service accepted (`read_agent` only reads): all of them,
   * applied; some, partly applied; none, failed, skipped or not applied as the first write not
   * accepted says. A write accepted is never reported as not applied, whatever came after it.
   */
  private conclude(change: ResourceChange, outcomes: readonly RequestOutcome[], answeredAt = this.now()): void {
    this.settled.add(change.address);
    const writes = change.requests.map((request, i) => ({ request, outcome: outcomes[i] ?? ({ status: 'not_started' } as const) })).filter(({ request }) => request.operation !== 'read_agent');
    const accepted = writes.filter(({ outcome }) => outcome.status === 'done').map(({ request }) => request.operation);
    const notAccepted = writes.filter(({ outcome }) => outcome.status !== 'done');
    const failed = notAccepted.find(({ outcome }) => outcome.status === 'failed')?.outcome;
    const skipped = notAccepted.find(({ outcome }) => outcome.status === 'skipped')?.outcome;
    const because = skipped?.status === 'skipped' ? `${skipped.cause} did not apply` : undefined;
    const error = failed?.status === 'failed' ? failed.error : undefined;
    if (accepted.length === 0) {
      if (failed) {
        this.result.failed.push({ address: change.address, error });
        return this.emit({ type: 'failed', change, error });
      }
      if (because !== undefined) {
        this.result.skipped.push({ address: change.address, because });
        return this.emit({ type: 'skipped', change, because });
      }
      return void this.result.stopped.push(change.address);
    }
    if (this.unrecorded.has(change.address)) this.result.unrecorded.push(change.address);
    if (notAccepted.length > 0) {
      const part: PartlyApplied = { address: change.address, reached: accepted, notReached: notAccepted.map(({ request }) => request.operation) };
      if (failed) part.error = error;
      else if (because !== undefined) part.because = because;
      this.result.partlyApplied.push(part);
      // A stop's partly applied changes are listed in the summary; a failure's is said as it happens.
      if (failed || because !== undefined) this.emit({ type: 'partly', change, part });
      return;
    }
    this.result.applied.push(change.address);
    const readBack = change.requests.findIndex((request) => request.operation === 'read_agent');
    const read = outcomes[readBack];
    if (read?.status === 'failed') {
      this.result.warnings.push(`${change.address}: applied, but not read back (${errorText(read.error)}); \`voxform plan\` shows what the service kept.`);
    } else if (readBack >= 0 && read?.status !== 'done') {
      this.result.warnings.push(`${change.address}: applied, but not read back after the stop; \`voxform plan\` shows what the service kept.`);
    }
    this.emit({ type: 'done', change, ms: answeredAt - (this.started.get(change.address) ?? answeredAt) });
  }

  private request(request: PlannedRequest, change: ResourceChange): Promise<RequestOutcome> {
    let outcome = this.outcomes.get(request.id);
    if (!outcome) {
      outcome = this.send(request, change);
      this.outcomes.set(request.id, outcome);
      void outcome.then((settled) => {
        this.answered.set(request.id, settled);
        if (--this.unsettled === 0) this.options.store.flush();
      });
    }
    return outcome;
  }

  private async send(request: PlannedRequest, change: ResourceChange): Promise<RequestOutcome> {
    for (const id of request.dependsOn) {
      const dependency = this.requests.get(id);
      const outcome = dependency ? await this.request(dependency.request, dependency.change) : ({ status: 'done' } as const);
      // A read-back only reads: what comes after it waits for it, not for its success.
      if (outcome.status === 'failed' && dependency?.request.operation === 'read_agent') continue;
      if (outcome.status === 'failed') return { status: 'skipped', cause: dependency?.change.address ?? id };
      if (outcome.status !== 'done') return outcome;
    }
    // After a stop only a read-back is still sent: it changes nothing, and tells what the service kept.
    const reading = request.operation === 'read_agent';
    if (this.stopping && !reading) return { status: 'not_started' };
    await this.slots.acquire();
    let sent: Awaited<ReturnType<PlanRun['sendFilled']>>;
    try {
      // No new write once a stop is asked for, however long this one waited for its slot.
      if (this.closed || (this.stopping && !reading)) return { status: 'not_started' };
      this.inFlight++;
      try {
        sent = await this.sendFilled(request, change);
      } finally {
        this.inFlight--;
      }
    } catch (error) {
      // Withdrawn by the stop before it was sent, or before a retry of an attempt the service did not
      // act on (a 429): not started, not failed. Withdrawn after an attempt it may have applied (a 5xx),
      // its outcome is unknown, as the client's error says.
      if (isNotSent(error)) return isApiError(error) && error.mayHaveApplied && !reading ? { status: 'failed', error } : { status: 'not_started' };
      return { status: 'failed', error: withRefusedValuePlace(request, change, this.forgetRefusedFiles(request, change, error), this.resources) };
    } finally {
      // Freed as the answer arrives: the next request goes out before this one's answer is recorded.
      this.slots.release();
    }
    try {
      return this.succeeded(request, change, sent);
    } catch (error) {
      return { status: 'failed', error };
    }
  }

  private async sendFilled(request: PlannedRequest, change: ResourceChange) {
    const context = { resources: this.resources, live: this.options.live, results: this.results };
    const body = filledBody(request, context);
    // A read-back goes through the client a stop does not withdraw requests from.
    const through = request.operation === 'read_agent' ? this.options.client : this.client;
    // A client that can tell says when each attempt leaves it: a request still waiting in it has not
    // started. Any other is taken to send what it is handed at once.
    const onSent = (path?: string) => this.onSent(request, change, path);
    const client = through.withOnSent?.(onSent) ?? (onSent(), through);
    return { body, result: await sendRequest(request, change, body, { client, resources: this.resources }) };
  }

  /**
   * An attempt of `request` left for the service (`path`: its own, when the client tells it): its
   * change starts with its first request sent, and it may have reached the service once an attempt
   * of its planned path left. A knowledge upload's presign and storage post, before its
   * `create_file`, make no file the service has.
   */
  private onSent(request: PlannedRequest, change: ResourceChange, path: string | undefined): void {
    if (path === undefined || path === request.path) this.sent.add(request.id);
    if (this.started.has(change.address)) return;
    this.started.set(change.address, this.now());
    this.emit({ type: 'start', change });
  }

  /**
   * Records a success. An answer only the state can keep (`answerOnlyStateKeeps`) is stored at once
   * and counts as done once stored: a run killed after that loses no upload; one killed before loses
   * at most those whose answer had arrived and was not stored yet.
   */
  private succeeded(
    request: PlannedRequest,
    change: ResourceChange,
    sent: Awaited<ReturnType<PlanRun['sendFilled']>>,
  ): RequestOutcome | Promise<RequestOutcome> {
    if (this.closed) return { status: 'not_started' };
    const { result } = sent;
    this.succeededRequests.add(request.id);
    this.options.onRequestDone?.({ request, change, body: sent.body, result });
    if (result && 'fileId' in result) this.results.set(request.id, result.fileId);
    if (request.operation === 'update_agent') this.updatesSent.set(change.address, sent.body);
    if (result && 'agent' in result) this.result.warnings.push(...readBackWarnings(this.resources.of(change.address, 'agent'), result.agent, this.updatesSent.get(change.address)));
    let record = stateAfterRequest(request, change, sent.body ?? {}, result, { resources: this.resources, key: this.options.store.fingerprintKey, shared: this.options.shared });
    // The entry this write records keeps the mark while another write of the change is unanswered.
    const keepsMark = this.marked.has(change.address) || this.markedBefore.has(change.address);
    if (record && keepsMark && change.requests.some((other) => !this.succeededRequests.has(other.id))) {
      const written = record;
      const marking = stateWritesUnrecorded([change]);
      record = (ws) => (written(ws), marking(ws));
    }
    // Written outside the slot, so a slow disk never holds back other requests.
    if (record) {
      const atOnce = answerOnlyStateKeeps(request);
      const written = this.record(change.address, record, atOnce);
      const writes = this.writes.get(change.address) ?? [];
      writes.push(written);
      this.writes.set(change.address, writes);
      // The state write never rejects (`record`): a failed one lists the change as not recorded.
      if (atOnce) return written.then(() => ({ status: 'done' }));
    }
    return { status: 'done' };
  }

  /**
   * File ids from the state the service refused as unknown are forgotten, written before the change
   * concludes; `error` comes back with a hint naming them.
   */
  private forgetRefusedFiles(request: PlannedRequest, change: ResourceChange, error: unknown): unknown {
    const refused = refusedRecordedFiles(request, change, error, this.resources);
    const forget = stateAfterRefusedFiles(refused);
    if (!forget) return error;
    const writes = this.writes.get(change.address) ?? [];
    writes.push(this.record(change.address, forget));
    this.writes.set(change.address, writes);
    return withRefusedFilesHint(error, refused);
  }

  /**
   * The result: a change still waiting is filed under what its requests did so far, so no accepted
   * write is lost, and a write still unanswered is not applied only if it was never sent.
   */
  finish(): ExecuteResult {
    this.closed = true;
    this.result.interrupted = this.options.signal?.aborted === true;
    for (const change of this.options.plan.changes) {
      if (this.settled.has(change.address)) continue;
      const outcomes = change.requests.map((request) => this.outcomeSoFar(request));
      // Stored by the run's last write, made by its caller.
      void this.settleMark(change, outcomes);
      this.conclude(change, outcomes);
    }
    return this.result;
  }

  /** A request's outcome when the run reports: a write sent and unanswered by then has an unknown outcome (`abandonedWrite`). */
  private outcomeSoFar(request: PlannedRequest): RequestOutcome {
    if (this.succeededRequests.has(request.id)) return { status: 'done' };
    const answered = this.answered.get(request.id);
    if (answered) return answered;
    if (this.sent.has(request.id) && request.operation !== 'read_agent') return { status: 'failed', error: abandonedWrite(request) };
    return { status: 'not_started' };
  }
}
