/**
 * The wire thread: a worker that holds the socket pools and the slots of one transport, so that a
 * request is written the moment a slot frees, whatever the caller's thread is busy with (loading
 * manifests, comparing 5,000 agents, rendering diffs). The caller's thread keeps everything else:
 * retries, parsing and checking answers, and the exchanges whose body is a stream.
 *
 * Started by `WireThread` (wire-thread-link.ts); it answers every `send` with one `answer` or
 * `failure`, and every `acquire` with `granted`. It is never told to stop: it is stopped (its
 * sockets close with it), and the caller's side fails what was outstanding.
 */
import { parentPort } from 'node:worker_threads';
import { Semaphore, type QueuePlace } from '../util/semaphore.js';
import { loadPoolModule, SocketPools } from './wire.js';
import { epochNowMs, errorToCrossing, notSentError, type FromWire, type ToWire, type WireRequest } from './wire-messages.js';

const port = parentPort;
if (!port) throw new Error('wire-thread.js runs as a worker thread (see wire-thread-link.ts)');

// The thread boots ahead of its first request: its socket pool's module is loaded now, not then.
loadPoolModule();

// Made by the first message, `setup` (the thread boots before the client that uses it exists).
let pools: SocketPools;
let slots: Semaphore;

const post = (message: FromWire) => port.postMessage(message);

/** Sends and slot requests still waiting for a slot, by id: a `withdraw` gives up their place. */
const waiting = new Map<number, QueuePlace>();

/** Runs `start` with a slot for `id`: now, or when its turn comes unless a `withdraw` comes first. */
function whenSlotFree(id: number, start: () => void, ahead = false): void {
  const place = slots.whenFree(() => {
    waiting.delete(id);
    start();
  }, ahead);
  if (place) waiting.set(id, place);
}

function withdraw(id: number): void {
  const place = waiting.get(id);
  waiting.delete(id);
  if (place?.withdraw()) post({ kind: 'failure', id, dispatchedAt: undefined, error: errorToCrossing(notSentError()) });
}

async function exchange(id: number, request: WireRequest): Promise<void> {
  let dispatchedAt: number | undefined;
  try {
    // Written out rather than spread: a spread costs microseconds, and this runs for every request.
    const { origin, path, method, headers, body, timeoutMs } = request;
    const response = await pools.exchange({ origin, path, method, headers, body, timeoutMs, onDispatch: () => (dispatchedAt = epochNowMs()) });
    post({ kind: 'answer', id, dispatchedAt: dispatchedAt ?? epochNowMs(), status: response.status, headers: response.headers, body: response.body });
  } catch (error) {
    post({ kind: 'failure', id, dispatchedAt, error: errorToCrossing(error) });
  } finally {
    slots.release();
  }
}

// Messages come in batches (`WireThread.post`), in the order they were posted.
port.on('message', (batch: ToWire[]) => {
  for (const message of batch) handle(message);
});

function handle(message: ToWire): void {
  switch (message.kind) {
    case 'setup':
      pools = new SocketPools(message.setup.pools);
      slots = new Semaphore(message.setup.maxInFlight);
      break;
    case 'send':
      whenSlotFree(message.id, () => void exchange(message.id, message.request), message.request.ahead);
      break;
    case 'acquire':
      whenSlotFree(message.id, () => post({ kind: 'granted', id: message.id }), message.ahead);
      break;
    case 'release':
      slots.release();
      break;
    case 'withdraw':
      withdraw(message.id);
      break;
  }
}
