/** Ctrl-C and SIGTERM: a first one stops gracefully where the command can, a second one at once. */
import type { EventEmitter } from 'node:events';
import type { VoxformError } from '../errors.js';
import { EXIT_INTERRUPTED, stoppingLine, type GracefulStop, type StopAtOnce } from './context.js';
import { clearProgressLines } from './progress.js';
import { errorText } from './error-text.js';
import { signalStopError } from './report-error.js';

/**
 * Within this long of a signal, the same signal again is that one delivered twice, not a second
 * Ctrl-C: coreutils `timeout` (as other supervisors) sends its signal to the child and then to the
 * child's whole process group, so one stop can reach voxform twice, microseconds apart. Nobody
 * presses Ctrl-C twice this fast, and taking the repeat as a second stop would cut the graceful
 * stop short (writes in flight left unrecorded, no summary).
 */
export const SAME_SIGNAL_REPEAT_MS = 100;

/**
 * The requests not safe to repeat that are on the wire (`ctx.writeSent`). A stop does not wait for
 * their answers, and the errors the stop gives them are silenced with the rest: what it leaves
 * unknown is said here instead.
 */
export class WritesInFlight {
  private readonly sent = new Set<{ ifInterrupted: () => VoxformError }>();

  add(ifInterrupted: () => VoxformError): () => void {
    const write = { ifInterrupted };
    this.sent.add(write);
    return () => void this.sent.delete(write);
  }

  /** What a stop leaves unknown, each error once (fifty calls cut short alike are one). */
  unknownOutcomes(): VoxformError[] {
    const byText = new Map<string, VoxformError>();
    for (const write of this.sent) {
      const error = write.ifInterrupted();
      byText.set(errorText(error), error);
    }
    return [...byText.values()];
  }
}

export interface SignalTrapOptions {
  /** Where SIGINT and SIGTERM arrive (the process). */
  signals: Pick<EventEmitter, 'on' | 'off'>;
  /** Milliseconds, for telling a signal delivered twice from a second one (`SAME_SIGNAL_REPEAT_MS`). */
  now: () => number;
  /** Ends the process with this code, once the cleanups ran. */
  exit: (code: number) => void;
  runCleanups: () => Promise<void>;
  /** Says the stop as every error is said, with each write it cuts short whose outcome is unknown. */
  reportStop: (stop: VoxformError, unknownOutcomes: readonly VoxformError[]) => void;
  /** Says at once that a graceful stop began. */
  announce: (line: string) => void;
  writes: WritesInFlight;
  /** Silences the output: what the command still says is the fallout of the stop. */
  onStop: () => void;
}

/**
 * A first Ctrl-C or SIGTERM stops a command awaiting `ctx.interrupted()`, and `announce` says at
 * once that it is stopping (the stop may take a while: a command that waits in silence looks hung);
 * otherwise the run stops: `reportStop` says so as every error is said (`error[interrupted]`, or its
 * JSON envelope), with each write it cuts short whose outcome is unknown (`writes`); `onStop`
 * silences the output (what the command still says is the fallout of the stop, such as a request
 * cut short), cleanups run, and exit 130. The same signal again within `SAME_SIGNAL_REPEAT_MS` is
 * the last one delivered twice, and changes nothing. `stopGracefully` begins the graceful stop
 * without a signal (a stray error's, run-command.ts).
 */
export function trapSignals(options: SignalTrapOptions): { interrupted(stop?: GracefulStop): Promise<void>; stopLeaves(atOnce: StopAtOnce): void; stopGracefully(): boolean; release(): void } {
  let signalled = false;
  let stopsGracefully = false;
  // A graceful stop began without a signal (`stopGracefully`): a signal now stops at once.
  let stopping = false;
  let atOnce: StopAtOnce | undefined;
  // The graceful stop last asked for says how it stops (drift --watch's heal: apply's own line).
  let graceful: GracefulStop | undefined;
  let last: { signal: string; at: number } | undefined;
  let notifyInterrupted: () => void = () => undefined;
  const interruptedPromise = new Promise<void>((resolve) => (notifyInterrupted = resolve));
  const onSignal = (signal: string) => {
    const at = options.now();
    if (last !== undefined && last.signal === signal && at - last.at < SAME_SIGNAL_REPEAT_MS) return;
    last = { signal, at };
    clearProgressLines();
    if (signalled || stopping || !stopsGracefully) {
      const unknownOutcomes = options.writes.unknownOutcomes();
      options.reportStop(signalStopError({ again: signalled, atOnce, unknownOutcomes }), unknownOutcomes);
      options.onStop();
      void options.runCleanups().finally(() => options.exit(EXIT_INTERRUPTED));
      return;
    }
    signalled = true;
    const line = stoppingLine(graceful);
    if (line !== undefined) options.announce(line);
    notifyInterrupted();
  };
  options.signals.on('SIGINT', onSignal);
  options.signals.on('SIGTERM', onSignal);
  return {
    interrupted: (stop) => {
      stopsGracefully = true;
      atOnce ??= stop?.atOnce;
      graceful = stop;
      return interruptedPromise;
    },
    stopLeaves: (leaves) => void (atOnce = leaves),
    // The command's graceful stop, begun as a first signal begins it but without a word (the caller
    // says why it stops); false when the command asked for none or is stopping already.
    stopGracefully: () => {
      if (signalled || stopping || !stopsGracefully) return false;
      stopping = true;
      notifyInterrupted();
      return true;
    },
    release: () => {
      options.signals.off('SIGINT', onSignal);
      options.signals.off('SIGTERM', onSignal);
    },
  };
}
