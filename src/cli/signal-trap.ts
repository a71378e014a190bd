/**
 * How a command's run stops: on Ctrl-C and SIGTERM, and on an error thrown outside what it awaits.
 * A first one stops gracefully where the command can, a second one at once.
 */
import type { EventEmitter } from 'node:events';
import type { VoxformError } from '../errors.js';
import { EXIT_INTERRUPTED, stoppingLine, type GracefulStop, type StopAgain, type StopAtOnce } from './context.js';
import { clearProgressLines } from './progress.js';
import { errorText } from './error-text.js';
import { signalStopError, type CutShort } from './report-error.js';

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

/**
 * How long cleanups may take once the run stops at once (a second signal, a stray error): they may
 * wait on what broke (a request never answered, a state database that stopped answering), and the
 * stop was promised at once. A lock left by a cleanup cut short is the dead run's, which the next
 * run takes over (a database's advisory lock ends with its connection).
 */
export const STOP_AT_ONCE_CLEANUP_MS = 2000;
/**
 * How long a graceful stop a stray error began may take before it is cut short: longer than apply's
 * grace for the writes in flight (execute-plan.ts) and its state and history writes, and short of a
 * CI job's time-out, which a stop waiting on what the error broke would otherwise run into.
 */
export const STRAY_ERROR_STOP_MS = 60_000;

interface SignalTrapOptions {
  /** Where SIGINT and SIGTERM arrive (the process). */
  signals: Pick<EventEmitter, 'on' | 'off'>;
  /** Milliseconds, for telling a signal delivered twice from a second one (`SAME_SIGNAL_REPEAT_MS`). */
  now: () => number;
  /** Ends the process with this code, once the cleanups ran. */
  exit: (code: number) => void;
  runCleanups: () => Promise<void>;
  /** Says the stop as every error is said, with each write it cuts short whose outcome is unknown. */
  reportStop: (stop: VoxformError, unknownOutcomes: readonly VoxformError[]) => void;
  /** Says an error thrown outside the command's awaited chain, as every error is said; `beforeStop`: the stop's own error follows (the JSON document is the stop's). */
  reportStray: (error: unknown, options: { beforeStop: boolean }) => void;
  /** Says at once that a graceful stop began. */
  announce: (line: string) => void;
  writes: WritesInFlight;
  /** Silences the output, the run ending with `exitCode`: what the command still says is the fallout of the stop. */
  onStop: (exitCode: number) => void;
}

/** The trap of one command's run (trapSignals). */
export interface StopTrap {
  /** The command awaits a graceful stop (`ctx.interrupted`). */
  interrupted(stop?: GracefulStop): Promise<StopAgain>;
  stopLeaves(atOnce: StopAtOnce): void;
  /**
   * The command is past what it stops gracefully: a signal from now on stops it at once
   * (`CommandContext.stopsAtOnceFromNow`); a graceful stop already begun is the command's to finish.
   */
  stopsAtOnceFromNow(): void;
  /**
   * An error thrown outside the command's awaited chain (a timer's): it begins the command's graceful
   * stop, as a first signal does, and waits to be said when the command ends (`ended`); otherwise,
   * or with `atOnce`, it stops the run at once.
   */
  strayError(error: unknown, options?: { atOnce?: boolean }): void;
  /** The command returned: a signal or a stray error from now on stops at once. Gives the stray error that began its stop, if one did, once. */
  ended(): { error: unknown } | undefined;
  release(): void;
}

/** The signals that stop a run: Ctrl-C, and a termination asked for (a CI job cancelled). */
const TRAPPED_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * How a command's run stops. A first Ctrl-C or SIGTERM stops a command awaiting `ctx.interrupted()`,
 * and `announce` says at once that it is stopping (the stop may take a while: a command that waits
 * in silence looks hung), offering Ctrl-C again to stop at once, or after a SIGTERM, which no key
 * sent, a second signal; so does an error thrown outside the command's awaited chain
 * (`strayError`), said once the command has ended, or once `STRAY_ERROR_STOP_MS` passed without
 * it. Otherwise, and on a second one, the run stops at once: the stray errors are said, then
 * `reportStop` says the stop as every error is said (`error[interrupted]`, or its JSON envelope),
 * with each write it cuts short whose outcome is unknown (`writes`), where a signal stopped it or a
 * graceful stop was cut short; `onStop` silences the output (what the command still says is the
 * fallout of the stop, such as a request cut short), cleanups run, and exit 130 (a signal) or 1
 * (an error); a signal after that ends the process at once, whatever the cleanups still wait on. The
 * same signal again within `SAME_SIGNAL_REPEAT_MS` is the last one delivered twice, and changes nothing.
 * A stop at once has a cause (`stopAtOnce`): a signal, a stray error, or the time the graceful stop a
 * stray error began has taken; the stray error that began that stop is said then, once. Once the
 * command returned, an error cuts short its cleanups alone: no stop of its is said cut short.
 */
export function trapSignals(options: SignalTrapOptions): StopTrap {
  let stopsGracefully = false;
  // What began a graceful stop, if one did; the stray error that began it, until said; whether the
  // command returned; the exit code, once the run stops at once.
  let stopping: 'signal' | 'error' | undefined;
  let strayToSay: { error: unknown } | undefined;
  let commandEnded = false;
  let stoppedWith: number | undefined;
  // What the command said a stop from now on leaves undone (`stopLeaves`); the graceful stop last asked
  // for, how it stops and what stopping at once leaves (drift --watch's heal: apply's, then the watch's).
  let leaves: StopAtOnce | undefined;
  let graceful: GracefulStop | undefined;
  const atOnce = () => leaves ?? graceful?.atOnce;
  let last: { signal: string; at: number } | undefined;
  let cutShort: ReturnType<typeof setTimeout> | undefined;
  let notifyInterrupted: (again: StopAgain) => void = () => undefined;
  const interruptedPromise = new Promise<StopAgain>((resolve) => (notifyInterrupted = resolve));
  const beginGracefulStop = (by: 'signal' | 'error', again: StopAgain): boolean => {
    if (stopping !== undefined || !stopsGracefully) return false;
    stopping = by;
    const line = stoppingLine(graceful, again);
    if (line !== undefined) options.announce(line);
    notifyInterrupted(again);
    return true;
  };
  const stopAtOnce = (cause: { by: 'signal' | 'time' } | { by: 'error'; error: unknown }) => {
    // Stopping at once already: a signal now ends the process, whatever its cleanups still wait on.
    if (stoppedWith !== undefined) {
      if (cause.by === 'signal') options.exit(stoppedWith);
      return;
    }
    clearTimeout(cutShort);
    clearProgressLines();
    const strays = [strayToSay, cause.by === 'error' ? cause : undefined].flatMap((stray) => (stray ? [stray.error] : []));
    strayToSay = undefined;
    const began = commandEnded && cause.by === 'error' ? undefined : stopping;
    stoppedWith = cause.by === 'signal' ? EXIT_INTERRUPTED : 1;
    stopNow(options, { exitCode: stoppedWith, strays, cutShort: began && { began, by: cause.by }, atOnce: atOnce() });
  };
  const onSignal = (signal: string) => {
    const at = options.now();
    if (last !== undefined && last.signal === signal && at - last.at < SAME_SIGNAL_REPEAT_MS) return;
    last = { signal, at };
    clearProgressLines();
    if (!beginGracefulStop('signal', signal === 'SIGTERM' ? 'a second signal' : 'Ctrl-C again')) stopAtOnce({ by: 'signal' });
  };
  for (const signal of TRAPPED_SIGNALS) options.signals.on(signal, onSignal);
  return {
    interrupted: (stop) => {
      [stopsGracefully, graceful] = [true, stop];
      return interruptedPromise;
    },
    stopLeaves: (atOnce) => void (leaves = atOnce),
    stopsAtOnceFromNow: () => void (stopsGracefully = false),
    strayError: (error, { atOnce: now = false } = {}) => {
      if (!now && beginGracefulStop('error', 'Ctrl-C')) {
        strayToSay = { error };
        // The stop may wait on what the error broke, with something else keeping the process alive.
        cutShort = setTimeout(() => stopAtOnce({ by: 'time' }), STRAY_ERROR_STOP_MS).unref();
      } else {
        stopAtOnce({ by: 'error', error });
      }
    },
    ended: () => {
      // Its stop, if one began, is over: what a stop from now on cuts short is the cleanups alone.
      stopsGracefully = false;
      commandEnded = true;
      leaves = undefined;
      graceful = undefined;
      clearTimeout(cutShort);
      const stray = strayToSay;
      strayToSay = undefined;
      return stray;
    },
    release: () => {
      clearTimeout(cutShort);
      for (const signal of TRAPPED_SIGNALS) options.signals.off(signal, onSignal);
    },
  };
}

/**
 * A stop at once: the stray errors said (as text before the stop's own error), then, where a signal
 * stopped the run or a graceful stop was cut short, the stop, with each write it cuts short whose
 * outcome is unknown; the output silenced, the cleanups run (not for long: STOP_AT_ONCE_CLEANUP_MS),
 * and exit with `exitCode` (130 for a signal).
 */
function stopNow(options: SignalTrapOptions, how: { exitCode: number; strays: readonly unknown[]; cutShort: CutShort | undefined; atOnce: StopAtOnce | undefined }): void {
  const bySignal = how.exitCode === EXIT_INTERRUPTED;
  const unknownOutcomes = options.writes.unknownOutcomes();
  const stop = bySignal || how.cutShort !== undefined ? signalStopError({ cutShort: how.cutShort, atOnce: how.atOnce, unknownOutcomes }) : undefined;
  for (const error of how.strays) options.reportStray(error, { beforeStop: stop !== undefined });
  if (stop) options.reportStop(stop, unknownOutcomes);
  options.onStop(how.exitCode);
  const cleaned = Promise.race([options.runCleanups(), new Promise<void>((resolve) => setTimeout(resolve, STOP_AT_ONCE_CLEANUP_MS).unref())]);
  void cleaned.finally(() => options.exit(how.exitCode));
}
