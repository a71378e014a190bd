/** `list` behind a proxy that counts every read of an element or of its length: how work is counted, never by the clock. */
export function countingReads<T>(list: T[]): { list: T[]; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(list, {
    get(target, key, receiver) {
      reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { list: proxy, reads: () => reads };
}
