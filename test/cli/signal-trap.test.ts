import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { VoxformError } from '../../src/errors.js';
import { SAME_SIGNAL_REPEAT_MS, STRAY_ERROR_STOP_MS, trapSignals, WritesInFlight } from '../../src/cli/signal-trap.js';

/** A trap on a fake process whose clock moves only when told; what it says and does is collected. */
function trapped() {
  const signals = new EventEmitter();
  let now = 1_000;
  const announced: string[] = [];
  const stops: VoxformError[] = [];
  const exits: number[] = [];
  const strays: unknown[] = [];
  const silenced: number[] = [];
  const trap = trapSignals({
    signals,
    now: () => now,
    exit: (code) => void exits.push(code),
    runCleanups: async () => undefined,
    reportStop: (stop) => void stops.push(stop),
    reportStray: (error) => void strays.push(error),
    announce: (line) => void announced.push(line),
    writes: new WritesInFlight(),
    onStop: (code) => void silenced.push(code),
  });
  const send = (signal: 'SIGINT' | 'SIGTERM') => void signals.emit(signal, signal);
  return { trap, send, announced, stops, exits, strays, silenced, advance: (ms: number) => void (now += ms) };
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

  it('begins the graceful stop as a first signal does, and is handed back once when the command ends', async () => {
    const t = trapped();
    let stopping = false;
    void t.trap.interrupted().then(() => (stopping = true));
    t.trap.strayError(error);
    await Promise.resolve();
    expect(stopping).toBe(true);
    expect(t.announced).toEqual(['Stopping… (Ctrl-C again stops at once).\n']);
    expect(t.strays).toEqual([]);
    expect(t.trap.ended()).toEqual({ error });
    expect(t.trap.ended()).toBeUndefined();
    vi.advanceTimersByTime(STRAY_ERROR_STOP_MS);
    expect(t.strays).toEqual([]);
    expect(t.exits).toEqual([]);
  });

  it('a graceful stop it began that has not ended in time is cut short: the error said once, what the stop leaves undone, exit 1', async () => {
    const t = trapped();
    void t.trap.interrupted({ atOnce: { leftUndone: 'the state does not record what the writes in flight did', hint: 'Run voxform plan.' } });
    t.trap.strayError(error);
    vi.advanceTimersByTime(STRAY_ERROR_STOP_MS - 1);
    expect(t.strays).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(t.strays).toEqual([error]);
    expect(t.stops.map((stop) => stop.message)).toEqual(['voxform stopped at once, cutting short the stop the error above began; the state does not record what the writes in flight did.']);
    expect(t.silenced).toEqual([1]);
    await vi.runAllTimersAsync();
    expect(t.exits).toEqual([1]);
    // Said already: the command's end hands nothing back, and a signal now changes nothing.
    expect(t.trap.ended()).toBeUndefined();
    t.send('SIGINT');
    expect(t.stops).toHaveLength(1);
  });

  it('a second one, or a signal, cuts the stop short: the first error said before the second, each once', async () => {
    for (const second of ['error', 'signal'] as const) {
      const t = trapped();
      void t.trap.interrupted();
      t.trap.strayError(error);
      const another = new Error('another');
      if (second === 'error') t.trap.strayError(another);
      else t.send('SIGTERM');
      expect(t.strays).toEqual(second === 'error' ? [error, another] : [error]);
      expect(t.stops.map((stop) => stop.message)).toEqual([second === 'error' ? 'voxform stopped at once, cutting short the stop the error above began.' : 'voxform stopped at once, on the second signal.']);
      await vi.runAllTimersAsync();
      expect(t.exits).toEqual([second === 'error' ? 1 : 130]);
    }
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
