/**
 * A Map filled on first use. For data that is cheap to describe but costly to build for every
 * resource (such as where each config path of a thousand agents was written) and rarely read.
 */
export class LazyMap<K, V> extends Map<K, V> {
  private fill: (() => Map<K, V>) | undefined;

  constructor(fill: () => Map<K, V>) {
    super();
    this.fill = fill;
  }

  private ensure(): void {
    const fill = this.fill;
    if (!fill) return;
    this.fill = undefined;
    for (const [key, value] of fill()) super.set(key, value);
  }

  override get(key: K): V | undefined {
    this.ensure();
    return super.get(key);
  }

  override has(key: K): boolean {
    this.ensure();
    return super.has(key);
  }

  override set(key: K, value: V): this {
    this.ensure();
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    this.ensure();
    return super.delete(key);
  }

  override clear(): void {
    this.fill = undefined;
    super.clear();
  }

  override get size(): number {
    this.ensure();
    return super.size;
  }

  override forEach(callback: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    this.ensure();
    super.forEach(callback, thisArg);
  }

  override entries(): MapIterator<[K, V]> {
    this.ensure();
    return super.entries();
  }

  override keys(): MapIterator<K> {
    this.ensure();
    return super.keys();
  }

  override values(): MapIterator<V> {
    this.ensure();
    return super.values();
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    this.ensure();
    return super[Symbol.iterator]();
  }
}
