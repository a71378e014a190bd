import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { VoxformError } from '../../src/errors.js';
import { SAME_SIGNAL_REPEAT_MS, STOP_AT_ONCE_CLEANUP_MS, STRAY_ERROR_STOP_MS, trapSignals, WritesInFlight } from '../../src/cli/signal-trap.js';
import { cleanupList } from '../../src/cli/run-command.js';

/** A trap on a fake process whose clock moves only when told; what it says and does is collected. */
function trapped() {
  const signals = new EventEmitter();
  let now = 1_000;
  const announced: string[] = [];
  const stops: VoxformError[] = [];
  const exits: number[] = [];
  const strays: unknown[] = [];
  const silenced: number[] = [];
  /** What was said and done, in order. */
  const log: string[] = [];
  const trap = trapSignals({
    signals,
    now: () => now,
    exit: (code) => void (exits.push(code), log.push(`exit ${code}`)),
    runCleanups: async () => undefined,
    reportStop: (stop) => void (stops.push(stop), log.push(`stop: ${stop.message}`)),
    reportStray: (error, { beforeStop }) => void (strays.push(error), log.push(`stray${beforeStop ? ' as text' : ''}: ${error instanceof Error ? error.message : String(error)}`)),
    announce: (line) => void announced.push(line),
    writes: new WritesInFlight(),
    onStop: (code) => void silenced.push(code),
  });
  const send = (signal: 'SIGINT' | 'SIGTERM') => void signals.emit(signal, signal);
  return { trap, send, announced, stops, exits, strays, silenced, log, advance: (ms: number) => void (now += ms) };
}

describe('the signal trap', () => {
  it('takes the same signal delivered twice at once (timeout signals the child, then its process group) as one stop', async () => {
    const t = trapped();
    let stopping = false;
    void t.trap.interrupted().then(() => (stopping = true));
    t.send('SIGINT');
    t.advance(SAME_SIGNAL_REPEAT_MS - 1);
    t.send('SIGINT');
    await Promise.resolve();
    expect(stopping).toBe(true);
    expect(t.announced).toHaveLength(1);
    expect(t.stops).toEqual([]); // still stopping gracefully: the summary follows
  });

  it('stops at once once the command is past what it stops gracefully (test, its conversations over), and leaves a stop already begun to the command', async () => {
    const t = trapped();
    void t.trap.interrupted({ stopping: 'no report is written' });
    t.trap.stopsAtOnceFromNow();
    t.send('SIGINT');
    expect(t.announced).toEqual([]);
    expect(t.stops.map((stop) => stop.message)).toEqual(['voxform stopped at your request.']);
    expect(t.silenced).toEqual([130]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.exits).toEqual([130]);

    const begun = trapped();
    let stopping = false;
    void begun.trap.interrupted().then(() => (stopping = true));
    begun.send('SIGINT');
    begun.trap.stopsAtOnceFromNow();
    await Promise.resolve();
    expect(stopping).toBe(true);
    expect(begun.stops).toEqual([]);
  });

  it('takes the same signal once the window has passed as a second one: the stop is cut short', async () => {
    const t = trapped();
    void t.trap.interrupted();
    t.send('SIGINT');
    t.advance(SAME_SIGNAL_REPEAT_MS);
    t.send('SIGINT');
    expect(t.stops.map((stop) => stop.message)).toEqual(['voxform stopped at once, on the second signal.']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.exits).toEqual([130]);
  });

  it('a graceful stop asked for again (drift --watch, once its heal\'s apply ended) is the one a signal meets: its line, and nothing the earlier one left undone', () => {
    const t = trapped();
    void t.trap.interrupted();
    void t.trap.interrupted({ stopping: false, atOnce: { leftUndone: 'writes in flight may have reached the service', hint: 'Run voxform plan.' } });
    void t.trap.interrupted();
    t.send('SIGINT');
    expect(t.announced).toEqual(['Stopping… (Ctrl-C again stops at once).\n']);
    t.advance(SAME_SIGNAL_REPEAT_MS);
    t.send('SIGINT');
    expect(t.stops.map((stop) => stop.message)).toEqual(['voxform stopped at once, on the second signal.']);
  });

  it('under SIGTERM, which no key sent, offers a second signal to stop at once, not Ctrl-C; a command that says its own line is told so too', async () => {
    const t = trapped();
    const offered = t.trap.interrupted({ stopping: 'the conversations under way are cut short' });
    t.send('SIGTERM');
    expect(t.announced).toEqual(['Stopping: the conversations under way are cut short (a second signal stops at once).\n']);
    expect(await offered).toBe('a second signal');
    const byCtrlC = trapped();
    const asked = byCtrlC.trap.interrupted({ stopping: false });
    byCtrlC.send('SIGINT');
    expect(byCtrlC.announced).toEqual([]);
    expect(await asked).toBe('Ctrl-C again');
  });

  it('takes another signal at once as a second one: SIGTERM after Ctrl-C', () => {
    const t = trapped();
    void t.trap.interrupted();
    t.send('SIGINT');
    t.send('SIGTERM');
    expect(t.stops.map((stop) => stop.message)).toEqual(['voxform stopped at once, on the second signal.']);
  });

  it('reports a stop without a graceful one once, however often the signal is delivered', () => {
    const t = trapped();
    t.send('SIGTERM');
    t.send('SIGTERM');
    expect(t.stops.map((stop) => stop.message)).toEqual(['voxform stopped at your request.']);
  });

  it('ends its graceful stop with the command: a signal then stops at once', async () => {
    const t = trapped();
    void t.trap.interrupted();
    expect(t.trap.ended()).toBeUndefined();
    t.send('SIGINT');
    expect(t.announced).toEqual([]);
    expect(t.stops.map((stop) => stop.message)).toEqual(['voxform stopped at your request.']);
    await Promise.resolve();
    await Promise.resolve();
    expect(t.exits).toEqual([130]);
  });
});

describe('an error thrown outside the command\'s awaited chain (a stray error)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());
  const error = new Error('a pack timer threw');

  it('begins the graceful stop as a first signal does, offering Ctrl-C (none was pressed), and is handed back once when the command ends', async () => {
    const t = trapped();
    let stopping = false;
    void t.trap.interrupted().then(() => (stopping = true));
    t.trap.strayError(error);
    await Promise.resolve();
    expect(stopping).toBe(true);
    expect(t.announced).toEqual(['Stopping… (Ctrl-C stops at once).\n']);
    expect(t.strays).toEqual([]);
    expect(t.trap.ended()).toEqual({ error });
    expect(t.trap.ended()).toBeUndefined();
    vi.advanceTimersByTime(STRAY_ERROR_STOP_MS);
    expect(t.strays).toEqual([]);
    expect(t.exits).toEqual([]);
  });

  it('a graceful stop it began that has not ended in time is cut short: the error said once, then what the stop leaves undone, exit 1', async () => {
    const t = trapped();
    void t.trap.interrupted({ atOnce: { leftUndone: 'the state does not record what the writes in flight did', hint: 'Run voxform plan.' } });
    t.trap.strayError(error);
    vi.advanceTimersByTime(STRAY_ERROR_STOP_MS - 1);
    expect(t.log).toEqual([]);
    vi.advanceTimersByTime(1);
    await vi.runAllTimersAsync();
    expect(t.log).toEqual([
      'stray as text: a pack timer threw',
      'stop: voxform stopped at once: the stop the error above began had not ended in time; the state does not record what the writes in flight did.',
      'exit 1',
    ]);
    expect(t.silenced).toEqual([1]);
    // Said already: the command's end hands nothing back.
    expect(t.trap.ended()).toBeUndefined();
  });

  it('a second signal stops at once even while a cleanup waits on what stopped answering (a state database): the cleanups get a bounded time', async () => {
    const signals = new EventEmitter();
    const exits: number[] = [];
    const trap = trapSignals({
      signals,
      now: () => 1_000,
      exit: (code) => void exits.push(code),
      // A database connection that never answers its close.
      runCleanups: () => new Promise<void>(() => undefined),
      reportStop: () => undefined,
      reportStray: () => undefined,
      announce: () => undefined,
      writes: new WritesInFlight(),
      onStop: () => undefined,
    });
    void trap.interrupted();
    signals.emit('SIGTERM', 'SIGTERM');
    signals.emit('SIGINT', 'SIGINT');
    await vi.advanceTimersByTimeAsync(STOP_AT_ONCE_CLEANUP_MS - 1);
    expect(exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(exits).toEqual([130]);
  });

  it('once stopping at once, a signal ends the process at once with the stop\'s code, whatever the cleanups wait on', () => {
    const t = trapped();
    t.trap.strayError(error);
    t.send('SIGINT');
    expect(t.log).toEqual(['stray: a pack timer threw', 'exit 1']);
  });

  it('names what began the stop and what cut it short, each error said once before the stop', async () => {
    const cases = [
      { began: 'signal', then: 'signal', said: ['stop: voxform stopped at once, on the second signal.', 'exit 130'] },
      { began: 'signal', then: 'error', said: ['stray as text: another', 'stop: voxform stopped at once, on the error above, cutting short the stop a signal began.', 'exit 1'] },
      { began: 'error', then: 'signal', said: ['stray as text: a pack timer threw', 'stop: voxform stopped at once, on a signal, cutting short the stop the error above began.', 'exit 130'] },
      { began: 'error', then: 'error', said: ['stray as text: a pack timer threw', 'stray as text: another', 'stop: voxform stopped at once, on a second error, cutting short the stop the first error began.', 'exit 1'] },
    ] as const;
    for (const { began, then, said } of cases) {
      const t = trapped();
      void t.trap.interrupted();
      const stop = (what: 'signal' | 'error', thrown: Error) => (what === 'signal' ? t.send(what === began ? 'SIGINT' : 'SIGTERM') : t.trap.strayError(thrown));
      stop(began, error);
      t.advance(SAME_SIGNAL_REPEAT_MS);
      stop(then, new Error('another'));
      await vi.runAllTimersAsync();
      expect(t.log, `${began} then ${then}`).toEqual(said);
    }
  });

  it('after the command ended, its stop is over: a signal or an error stops at once, and no stop is said cut short', async () => {
    for (const then of ['signal', 'error'] as const) {
      const t = trapped();
      void t.trap.interrupted({ atOnce: { leftUndone: 'writes in flight may be unrecorded', hint: 'Run voxform plan.' } });
      t.send('SIGINT');
      t.advance(SAME_SIGNAL_REPEAT_MS);
      expect(t.trap.ended()).toBeUndefined();
      if (then === 'signal') t.send('SIGINT');
      else t.trap.strayError(error);
      await vi.runAllTimersAsync();
      // A signal cuts the stop's cleanups short (its writes are done: nothing is said left undone); an error is said alone.
      expect(t.log, then).toEqual(then === 'signal' ? ['stop: voxform stopped at once, on the second signal.', 'exit 130'] : ['stray: a pack timer threw', 'exit 1']);
    }
  });

  it('an error that is no Error (a rejection with nothing) is said too, and the time is not taken for it', async () => {
    const alone = trapped();
    alone.trap.strayError(undefined);
    const afterSignal = trapped();
    void afterSignal.trap.interrupted();
    afterSignal.send('SIGINT');
    afterSignal.trap.strayError(undefined);
    await vi.runAllTimersAsync();
    expect(alone.log).toEqual(['stray: undefined', 'exit 1']);
    expect(afterSignal.log).toEqual(['stray as text: undefined', 'stop: voxform stopped at once, on the error above, cutting short the stop a signal began.', 'exit 1']);
  });

  it('stops a command without a graceful stop at once, and one that has ended, saying only the error', async () => {
    const asked = trapped();
    asked.trap.strayError(error);
    const ended = trapped();
    void ended.trap.interrupted();
    ended.trap.ended();
    ended.trap.strayError(error);
    for (const t of [asked, ended]) {
      expect(t.strays).toEqual([error]);
      expect(t.stops).toEqual([]);
      await vi.runAllTimersAsync();
      expect(t.exits).toEqual([1]);
    }
  });

  it('with atOnce (a command left waiting on nothing) stops at once, whatever the command asked', async () => {
    const t = trapped();
    void t.trap.interrupted();
    t.trap.strayError(error, { atOnce: true });
    expect(t.strays).toEqual([error]);
    await vi.runAllTimersAsync();
    expect(t.exits).toEqual([1]);
  });
});

describe('a run\'s cleanups', () => {
  it('run once, however many ask: a stop at once during them waits for the one under way', async () => {
    const list = cleanupList();
    const ran: string[] = [];
    let release: () => void = () => undefined;
    list.add(() => void ran.push('first added, run last'));
    list.add(() => new Promise<void>((resolve) => (release = () => (ran.push('lock released'), resolve()))));
    const ending = list.run();
    let stopped = false;
    const stop = list.run().then(() => (stopped = true));
    expect(list.run()).toBe(ending);
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await stop;
    expect(ran).toEqual(['lock released', 'first added, run last']);
  });
});
