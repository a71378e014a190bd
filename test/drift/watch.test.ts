import { describe, expect, it } from 'vitest';
import { JITTER, MAX_BACKOFF_INTERVALS, nextDelay, watchDrift } from '../../src/drift/watch.js';

describe('nextDelay', () => {
  it.each([
    [0, 0.5, 60_000],
    [0, 0, 60_000 * (1 - JITTER)],
    [0, 1, 60_000 * (1 + JITTER)],
    [1, 0.5, 120_000],
    [3, 0.5, 480_000],
    [10, 0.5, 60_000 * MAX_BACKOFF_INTERVALS],
    [1000, 0.5, 60_000 * MAX_BACKOFF_INTERVALS],
  ])('after %i failures, with a draw of %f: %i ms', (failures, draw, expected) => {
    expect(nextDelay(60_000, failures, () => draw)).toBe(Math.round(expected));
  });
});

/**
 * A watch whose checks end as `outcomes` say, in turn (any but `ok` fails with that message), and
 * that is stopped during the last: what it did (`check …`, `error …, next in …`, `sleep …`) and the waits.
 */
async function watchScript(outcomes: readonly string[], options: { madeNoRequest?: (error: unknown) => boolean } = {}) {
  const stop = new AbortController();
  const events: string[] = [];
  const waits: number[] = [];
  let checks = 0;
  await watchDrift({
    intervalMs: 1000,
    random: () => 0.5,
    signal: stop.signal,
    check: async () => {
      const outcome = outcomes[checks++] as string;
      events.push(`check ${outcome}`);
      if (checks === outcomes.length) stop.abort();
      if (outcome !== 'ok') throw new Error(outcome);
    },
    ...options,
    onError: (error, nextMs) => events.push(`error ${(error as Error).message}, next in ${nextMs}`),
    sleep: async (ms) => {
      waits.push(ms);
      events.push(`sleep ${ms}`);
    },
  });
  return { events, waits };
}

describe('watchDrift', () => {
  it('checks, waits, backs off after failures, recovers, and stops at the signal without another check', async () => {
    const { events } = await watchScript(['ok', 'fail', 'fail', 'ok', 'ok']);
    expect(events).toEqual([
      'check ok',
      'sleep 1000',
      'check fail',
      'error fail, next in 2000',
      'sleep 2000',
      'check fail',
      'error fail, next in 4000',
      'sleep 4000',
      'check ok',
      'sleep 1000',
      'check ok',
    ]);
  });

  it('a stop during a wait ends the watch; a check failing because of the stop is not reported', async () => {
    const stop = new AbortController();
    const events: string[] = [];
    await watchDrift({
      intervalMs: 1000,
      random: () => 0.5,
      signal: stop.signal,
      check: async () => {
        events.push('check');
        if (events.length > 1) {
          stop.abort();
          throw new Error('aborted');
        }
      },
      onError: () => events.push('error'),
      sleep: async () => void events.push('sleep'),
    });
    expect(events).toEqual(['check', 'sleep', 'check']);
  });

  it('a check that asked the service nothing waits the interval and leaves the count of failures as it was', async () => {
    const { waits } = await watchScript(['fail', 'unloaded', 'fail', 'unloaded', 'ok'], { madeNoRequest: (error) => (error as Error).message === 'unloaded' });
    expect(waits).toEqual([2000, 1000, 4000, 1000]);
  });
});
