import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { VoxformError } from '../../src/errors.js';
import { SAME_SIGNAL_REPEAT_MS, trapSignals, WritesInFlight } from '../../src/cli/signal-trap.js';

/** A trap on a fake process whose clock moves only when told; what it says and does is collected. */
function trapped() {
  const signals = new EventEmitter();
  let now = 1_000;
  const announced: string[] = [];
  const stops: VoxformError[] = [];
  const exits: number[] = [];
  const trap = trapSignals({
    signals,
    now: () => now,
    exit: (code) => void exits.push(code),
    runCleanups: async () => undefined,
    reportStop: (stop) => void stops.push(stop),
    announce: (line) => void announced.push(line),
    writes: new WritesInFlight(),
    onStop: () => undefined,
  });
  const send = (signal: 'SIGINT' | 'SIGTERM') => void signals.emit(signal, signal);
  return { trap, send, announced, stops, exits, advance: (ms: number) => void (now += ms) };
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

  it('begins the graceful stop without a signal (a stray error), saying nothing: a signal then stops at once, as the first', async () => {
    const t = trapped();
    let stopping = false;
    void t.trap.interrupted().then(() => (stopping = true));
    expect(t.trap.stopGracefully()).toBe(true);
    await Promise.resolve();
    expect(stopping).toBe(true);
    expect(t.announced).toEqual([]);
    expect(t.trap.stopGracefully()).toBe(false);
    t.send('SIGINT');
    expect(t.stops.map((stop) => stop.message)).toEqual(['voxform stopped at your request.']);
  });

  it('has no graceful stop to begin for a command that asked for none', () => {
    expect(trapped().trap.stopGracefully()).toBe(false);
  });
});
