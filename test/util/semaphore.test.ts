import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../src/util/semaphore.js';

describe('Semaphore', () => {
  it('lets `limit` holders in, queues the rest in arrival order, and hands each freed slot on', async () => {
    const slots = new Semaphore(2);
    const order: number[] = [];
    const holders = Array.from({ length: 3000 }, (_, i) =>
      slots.acquire().then(async () => {
        order.push(i);
        expect(slots.inFlight).toBeLessThanOrEqual(2);
        await Promise.resolve();
        slots.release();
      }),
    );
    expect(slots.inFlight).toBe(2);
    expect(slots.queued).toBe(2998);
    await Promise.all(holders);
    expect(order).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    expect(slots.inFlight).toBe(0);
    expect(slots.queued).toBe(0);
    expect(slots.tryAcquire()).toBe(true);
  });

  it('refuses a limit below 1', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});

describe('Semaphore.run', () => {
  it('holds a slot for the task and frees it when the task fails', async () => {
    const slots = new Semaphore(1);
    await expect(slots.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(slots.inFlight).toBe(0);
    const order: string[] = [];
    let release: () => void = () => undefined;
    const first = slots.run(() => new Promise<void>((resolve) => (release = () => (order.push('first'), resolve()))));
    const second = slots.run(async () => void order.push('second'));
    expect(slots.queued).toBe(1);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
  });
});
