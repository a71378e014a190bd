import { describe, expect, it } from 'vitest';
import { mapBounded, Semaphore } from '../../src/util/semaphore.js';

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

  it('skips a place withdrawn from the queue: the next waiter gets the freed slot', () => {
    const slots = new Semaphore(1);
    const order: string[] = [];
    expect(slots.whenFree(() => order.push('holder'))).toBeUndefined();
    for (const name of ['first', 'second']) slots.whenFree(() => order.push(name));
    const withdrawn = slots.whenFree(() => order.push('withdrawn'));
    slots.whenFree(() => order.push('third'));
    expect(withdrawn?.withdraw()).toBe(true);
    expect(slots.queued).toBe(3);
    for (let i = 0; i < 3; i++) slots.release();
    expect(order).toEqual(['holder', 'first', 'second', 'third']);
    expect(slots.queued).toBe(0);
    expect(slots.inFlight).toBe(1);
  });

  it('a signal withdraws a waiter still queued (its place is skipped), and leaves a holder alone', async () => {
    const slots = new Semaphore(1);
    await slots.acquire();
    const stop = new AbortController();
    const withdrawn = slots.acquire(stop.signal).then(() => 'got a slot', (reason: unknown) => `withdrawn: ${String(reason)}`);
    const next = slots.acquire().then(() => 'got a slot');
    expect(slots.queued).toBe(2);
    stop.abort('stopping');
    expect(await withdrawn).toBe('withdrawn: stopping');
    expect(slots.queued).toBe(1);
    slots.release(); // goes to `next`, past the withdrawn place
    expect(await next).toBe('got a slot');
    expect(slots.inFlight).toBe(1);
    slots.release();
    expect(slots.inFlight).toBe(0);
    // A holder whose signal aborts later keeps its slot.
    const late = new AbortController();
    await slots.acquire(late.signal);
    late.abort();
    expect(slots.inFlight).toBe(1);
    await expect(slots.acquire(late.signal)).rejects.toBeDefined();
  });

  it('whenFree calls back at once with a free slot, else in turn; a withdrawn place is never called back', () => {
    const slots = new Semaphore(1);
    const granted: string[] = [];
    expect(slots.whenFree(() => granted.push('first'))).toBeUndefined();
    const second = slots.whenFree(() => granted.push('second'));
    const third = slots.whenFree(() => granted.push('third'));
    expect(granted).toEqual(['first']);
    expect(slots.queued).toBe(2);
    expect(second?.withdraw()).toBe(true);
    expect(second?.withdraw()).toBe(false); // already given up
    expect(slots.queued).toBe(1);
    slots.release(); // past the withdrawn place, straight to `third`
    expect(granted).toEqual(['first', 'third']);
    expect(third?.withdraw()).toBe(false); // the slot was given: it stays held
    expect(slots.inFlight).toBe(1);
    slots.release();
    expect(slots.inFlight).toBe(0);
    expect(slots.queued).toBe(0);
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

describe('mapBounded', () => {
  it('keeps the order of the items and never runs more than the limit at once', async () => {
    let active = 0;
    let peak = 0;
    const results = await mapBounded([5, 1, 4, 2, 3, 0], 2, async (n) => {
      active++;
      peak = Math.max(peak, active);
      for (let i = 0; i < n; i++) await Promise.resolve();
      active--;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30, 0]);
    expect(peak).toBe(2);
  });

  it('handles no items and a limit below 1', async () => {
    expect(await mapBounded([], 0, async () => 1)).toEqual([]);
    expect(await mapBounded([1, 2], 0, async (n) => n)).toEqual([1, 2]);
  });
});
