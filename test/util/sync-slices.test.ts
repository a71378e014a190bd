import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { afterPendingSignals, inSlice } from '../../src/util/sync-slices.js';

/** A job that keeps the thread for at least a millisecond. */
function busyMillisecond(): void {
  const until = performance.now() + 1;
  while (performance.now() < until);
}

describe('inSlice', () => {
  it('runs jobs in the order given, each settling its promise with its result or what it threw', async () => {
    const ran: number[] = [];
    const results = Array.from({ length: 50 }, (_, i) => inSlice(() => (ran.push(i), i * 2)));
    const failed = inSlice(() => {
      throw new Error('no such file');
    });
    expect(await Promise.all(results)).toEqual(Array.from({ length: 50 }, (_, i) => i * 2));
    await expect(failed).rejects.toThrow('no such file');
    expect(ran).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('serves the event loop between slices: a callback queued behind long jobs runs before they all have', async () => {
    const ran: string[] = [];
    const jobs = Array.from({ length: 40 }, (_, i) => inSlice(() => (busyMillisecond(), ran.push(`job ${i}`))));
    setImmediate(() => ran.push('event loop'));
    await Promise.all(jobs);
    const served = ran.indexOf('event loop');
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThan(ran.length - 1);
  });

  it('runs a job queued by a job of the queue (the queue refills while it drains)', async () => {
    const inner = await inSlice(() => inSlice(() => 'inner'));
    expect(inner).toBe('inner');
  });

  it('hands a result over only once a signal that came during the job has been served (a stopped command prints no result)', async () => {
    const order: string[] = [];
    const onSignal = () => order.push('signal served');
    process.on('SIGUSR2', onSignal);
    try {
      await inSlice(() => process.kill(process.pid, 'SIGUSR2'));
      order.push('result handed over');
    } finally {
      await afterPendingSignals();
      process.off('SIGUSR2', onSignal);
    }
    expect(order).toEqual(['signal served', 'result handed over']);
  });
});
