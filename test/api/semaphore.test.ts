import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../src/api/http.js';

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
