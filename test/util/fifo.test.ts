import { describe, expect, it } from 'vitest';
import { Fifo } from '../../src/util/fifo.js';

describe('Fifo', () => {
  it('gives items back in the order they came, past the point where it gives its taken places back', () => {
    const queue = new Fifo<number>();
    const taken: number[] = [];
    // Pushes and takes interleaved: the head passes 1,024 with items still waiting behind it.
    for (let i = 0; i < 5_000; i++) {
      queue.push(i);
      if (i % 3 === 0) taken.push(queue.shift() as number);
    }
    expect(queue.size).toBe(5_000 - taken.length);
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) taken.push(item);
    expect(taken).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
    expect(queue.size).toBe(0);
    expect(queue.shift()).toBeUndefined();
    queue.push(7);
    expect([queue.size, queue.shift()]).toEqual([1, 7]);
  });
});
