/**
 * A stray error (thrown outside the command's awaited chain) while a command that stops gracefully
 * runs: the stop it begins has a bound, so a stop waiting on what the error broke never holds the
 * process (a CI job) until its time-out. Driven with fake timers: no wall clock.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { STRAY_ERROR_STOP_MS, trapStrayErrors } from '../../src/cli/run-command.js';

/** A trap on a fake process: what it reports and how it exits are collected. */
function trapped(stopsGracefully: boolean) {
  const host = Object.assign(new EventEmitter(), { exit: vi.fn() });
  const reported: unknown[] = [];
  const trap = trapStrayErrors((error) => (reported.push(error), 1), async () => undefined, () => stopsGracefully, host as unknown as Pick<NodeJS.Process, 'on' | 'off' | 'once' | 'exit'>);
  return { host, reported, trap };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('a stray error', () => {
  it('begins the graceful stop, and is said once the command ends', () => {
    const { host, reported, trap } = trapped(true);
    const error = new Error('a pack timer threw');
    host.emit('uncaughtException', error);
    expect(trap.stoppedBy()).toEqual({ error });
    expect(reported).toEqual([]);
    trap.release();
    vi.advanceTimersByTime(STRAY_ERROR_STOP_MS);
    expect(reported).toEqual([]);
    expect(host.exit).not.toHaveBeenCalled();
  });

  it('cuts the graceful stop short when it has not ended in time: the error is said once, and the process exits 1', async () => {
    const { host, reported, trap } = trapped(true);
    const error = new Error('a pack timer threw');
    host.emit('uncaughtException', error);
    vi.advanceTimersByTime(STRAY_ERROR_STOP_MS - 1);
    expect(reported).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(reported).toEqual([error]);
    await vi.runAllTimersAsync();
    expect(host.exit).toHaveBeenCalledWith(1);
    trap.release();
  });

  it('a second one stops at once, the first said before it', async () => {
    const { host, reported, trap } = trapped(true);
    const first = new Error('first');
    const second = new Error('second');
    host.emit('uncaughtException', first);
    host.emit('unhandledRejection', second);
    expect(reported).toEqual([first, second]);
    await vi.runAllTimersAsync();
    expect(host.exit).toHaveBeenCalledTimes(1);
    trap.release();
  });

  it('stops a command without a graceful stop at once', async () => {
    const { host, reported, trap } = trapped(false);
    const error = new Error('thrown in a timer');
    host.emit('uncaughtException', error);
    expect(reported).toEqual([error]);
    await vi.runAllTimersAsync();
    expect(host.exit).toHaveBeenCalledWith(1);
    trap.release();
  });
});
