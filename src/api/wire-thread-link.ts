/**
 * The caller's side of the wire thread (wire-thread.ts): each `send` is posted to the thread and
 * settles when its answer comes back; slots for the exchanges the caller sends itself are asked
 * for and given back. The thread does not keep the process alive while nothing is outstanding, and
 * ending it (close, destroy) stops it: its sockets close with it.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { HttpRequest, HttpResponse } from './wire.js';
import { destroyedError, errorFromCrossing, notSentError, fromEpochMs, type FromWire, type ToWire, type WireRequest, type WireThreadSetup } from './wire-messages.js';

interface PendingSend {
  resolve: (response: HttpResponse) => void;
  reject: (error: Error) => void;
  onDispatch: ((atMs: number) => void) | undefined;
}

interface PendingGrant {
  resolve: () => void;
  reject: (error: Error) => void;
}

/** The wire thread's young generation (MB): see the constructor. */
const WIRE_THREAD_YOUNG_GENERATION_MB = 4;
/** Most messages posted to the thread at once (see `WireThread.post`). */
const OUTBOX_BATCH = 128;

/** A thread booted ahead of its transport (`prestart`), waiting for `start`. */
let spare: WireThread | undefined;

/**
 * The thread, with the process's Node options where Node accepts them for a thread. Some are the
 * process's alone (`node --trace-gc voxform …`): Node refuses a thread given one, and the thread needs
 * none of them, so it then starts without any.
 */
function startWorker(execArgv: string[], options: Omit<WorkerOptions, 'execArgv'>): Worker {
  try {
    return new Worker(THREAD_MODULE, { ...options, execArgv });
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw error;
    return new Worker(THREAD_MODULE, { ...options, execArgv: [] });
  }
}

/** The compiled thread's module. From the TypeScript sources (the test runner) there is none: the wire stays on the caller's thread. */
const THREAD_MODULE = new URL('./wire-thread.js', import.meta.url);

export class WireThread {
  private readonly worker: Worker;
  private nextId = 1;
  /** Messages not yet posted to the thread (`post`). */
  private outbox: ToWire[] = [];
  private readonly sends = new Map<number, PendingSend>();
  private readonly grants = new Map<number, PendingGrant>();
  private referenced = false;
  /** `close` was called: it waits for what is outstanding, then ends the thread. */
  private closing = false;
  /** Settles when nothing is outstanding any more (what `close` waits for). */
  private drained: Promise<void> | undefined;
  private onDrained: (() => void) | undefined;
  /** Set once the thread cannot take requests any more (ended, or failed). */
  private gone: Error | undefined;

  /**
   * A thread for the transport made with these settings: the one `prestart` booted, else a new
   * one; undefined where the compiled thread module is not at hand.
   */
  static start(setup: WireThreadSetup): WireThread | undefined {
    const thread = spare ?? WireThread.boot();
    spare = undefined;
    thread?.post({ kind: 'setup', setup });
    return thread;
  }

  /**
   * Boots a thread now for the next `start`: its start-up (a new JavaScript context, the socket
   * pool's module) then runs on another core while this thread loads the manifests.
   */
  static prestart(): void {
    spare ??= WireThread.boot();
  }

  private static boot(): WireThread | undefined {
    if (THREAD_MODULE.protocol !== 'file:' || !existsSync(fileURLToPath(THREAD_MODULE))) return undefined;
    return new WireThread();
  }

  private constructor() {
    // The process's Node options, less those that apply to an `--eval` string only (a script run
    // as `node --input-type=module -e …` would otherwise make the thread refuse its own module).
    const execArgv = process.execArgv.filter((arg) => !arg.startsWith('--input-type'));
    // The thread holds little at a time (the requests waiting and on the wire, each answer passed
    // on as it ends): a small young generation keeps its heap small. At 5,000 agents + 5,000 phones
    // the apply's peak memory went from 462–478 MB to 419–449 MB with it, and no slower; the scale
    // plan's reads were slower with 32 MB (1.025 ×) and with 1 MB (1.013 ×) than with 4 (docs/plan.md).
    const resourceLimits = { maxYoungGenerationSizeMb: WIRE_THREAD_YOUNG_GENERATION_MB };
    this.worker = startWorker(execArgv, { resourceLimits, stdout: false, stderr: false });
    this.worker.on('message', (message: FromWire) => this.receive(message));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the wire thread ended (exit code ${code})`)));
    // After the listeners: adding a message listener holds the process again.
    this.worker.unref();
  }

  send(request: HttpRequest): Promise<HttpResponse> {
    if (this.gone) return Promise.reject(this.gone);
    if (this.closing) return Promise.reject(new Error('the API client is closed'));
    const { onDispatch, body, signal } = request;
    if (signal?.aborted) return Promise.reject(notSentError());
    const id = this.nextId++;
    const crossing: WireRequest = { origin: request.origin, path: request.path, method: request.method, headers: request.headers, timeoutMs: request.timeoutMs };
    if (body !== undefined) crossing.body = body as string | Uint8Array;
    if (request.ahead) crossing.ahead = true;
    return new Promise<HttpResponse>((resolve, reject) => {
      const settle = this.withdrawOnAbort(id, signal);
      this.sends.set(id, { resolve: (response) => (settle(), resolve(response)), reject: (error) => (settle(), reject(error)), onDispatch });
      this.post({ kind: 'send', id, request: crossing });
      this.holdProcess();
    });
  }

  /** A slot of the thread's bound, for an exchange the caller sends itself; give it back with `releaseSlot`. `ahead` as `HttpRequest.ahead`. */
  acquireSlot(signal?: AbortSignal, ahead?: boolean): Promise<void> {
    if (this.gone) return Promise.reject(this.gone);
    if (this.closing) return Promise.reject(new Error('the API client is closed'));
    if (signal?.aborted) return Promise.reject(notSentError());
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      const settle = this.withdrawOnAbort(id, signal);
      this.grants.set(id, { resolve: () => (settle(), resolve()), reject: (error) => (settle(), reject(error)) });
      this.post(ahead ? { kind: 'acquire', id, ahead } : { kind: 'acquire', id });
      this.holdProcess();
    });
  }

  releaseSlot(): void {
    if (!this.gone) this.post({ kind: 'release' });
  }

  /** Lets the requests already sent finish, then ends the thread. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.sends.size + this.grants.size > 0) await (this.drained ??= new Promise<void>((resolve) => (this.onDrained = resolve)));
    this.end(new Error('the API client is closed'));
  }

  /** Ends the thread at once: requests on the wire or waiting fail with `CLIENT_DESTROYED_CODE`. */
  async destroy(): Promise<void> {
    this.end(destroyedError());
  }

  /**
   * What is outstanding fails with `reason`, and the thread is stopped: its sockets close with it.
   * The stop is not waited for (it takes a few milliseconds, and the thread holds nothing to save).
   */
  private end(reason: Error): void {
    if (this.gone) return;
    this.fail(reason);
    void this.worker.terminate();
  }

  /**
   * Tells the thread to withdraw request `id` if `signal` aborts first (it is withdrawn only while
   * it waits for a slot; one on the wire runs to its answer). Returns what stops listening.
   */
  private withdrawOnAbort(id: number, signal: AbortSignal | undefined): () => void {
    if (!signal) return () => undefined;
    const withdraw = () => this.post({ kind: 'withdraw', id });
    signal.addEventListener('abort', withdraw, { once: true });
    return () => signal.removeEventListener('abort', withdraw);
  }

  /**
   * Messages go to the thread in batches: those posted in one turn of the event loop together, or
   * OUTBOX_BATCH at a time. A plan posts its 5,000 reads in one burst, and the thread, handling them
   * a message at a time, got to its first socket's connection only after the whole burst: the
   * first request reached the service 230–310 ms after it was posted.
   */
  private post(message: ToWire): void {
    const waiting = this.outbox.push(message);
    if (waiting === 1) queueMicrotask(() => this.flush());
    else if (waiting >= OUTBOX_BATCH) this.flush();
  }

  private flush(): void {
    if (this.outbox.length === 0 || this.gone) return;
    const batch = this.outbox;
    this.outbox = [];
    this.worker.postMessage(batch);
  }

  private receive(message: FromWire): void {
    switch (message.kind) {
      case 'answer': {
        const pending = this.take(this.sends, message.id);
        pending?.onDispatch?.(fromEpochMs(message.dispatchedAt));
        pending?.resolve({ status: message.status, headers: message.headers, body: message.body });
        break;
      }
      case 'failure': {
        if (this.grants.has(message.id)) {
          this.take(this.grants, message.id)?.reject(errorFromCrossing(message.error));
          break;
        }
        const pending = this.take(this.sends, message.id);
        if (message.dispatchedAt !== undefined) pending?.onDispatch?.(fromEpochMs(message.dispatchedAt));
        pending?.reject(errorFromCrossing(message.error));
        break;
      }
      case 'granted':
        this.take(this.grants, message.id)?.resolve();
        break;
    }
  }

  private take<T>(map: Map<number, T>, id: number): T | undefined {
    const pending = map.get(id);
    map.delete(id);
    this.releaseProcess();
    return pending;
  }

  /** Every outstanding request keeps the process alive, as a socket of its own would. */
  private holdProcess(): void {
    if (!this.referenced) {
      this.referenced = true;
      this.worker.ref();
    }
  }

  private releaseProcess(): void {
    if (this.sends.size > 0 || this.grants.size > 0) return;
    this.onDrained?.();
    this.onDrained = undefined;
    if (this.referenced && !this.closing) {
      this.referenced = false;
      this.worker.unref();
    }
  }

  /** Everything outstanding fails with `error`; later requests too. */
  private fail(error: Error): void {
    this.gone ??= error;
    const sends = [...this.sends.values()];
    const grants = [...this.grants.values()];
    this.sends.clear();
    this.grants.clear();
    for (const pending of sends) pending.reject(error);
    for (const pending of grants) pending.reject(error);
    this.releaseProcess();
  }
}
