/**
 * Client-side decode cache. Consecutive full states repeat almost every item byte for byte, so the
 * client remembers each item's bytes and decoded object by key: an unchanged item costs one memory
 * compare instead of a decode, and keeps its object identity across states (backends can cache
 * per-object work in a WeakMap). Robust by construction: reuse needs identical bytes, not trust in
 * the server's change list.
 */
export interface BulkCopy {
  readonly bytes: Buffer;
  /** Where `bytes` started in the buffer it was copied from. */
  readonly offset: number;
}

export function bulkCopy(buf: Buffer, start: number, end: number): BulkCopy {
  return { bytes: Buffer.from(buf.subarray(start, end)), offset: start };
}

interface Entry<T> {
  readonly bytes: Buffer;
  readonly value: T;
}

export class DecodedItemCache<T> {
  #current = new Map<string, Entry<T>>();
  #next = new Map<string, Entry<T>>();
  /** A copy of a whole state decoded while the cache was empty: its items keep slices of it. */
  #bulk: BulkCopy | undefined;

  get isEmpty(): boolean {
    return this.#current.size === 0;
  }

  /**
   * Announces the state about to be decoded. When nothing is cached yet (the first state) every item
   * misses, and slices of one bulk copy are much cheaper than a copy per item; later states copy
   * only the items that changed, so at most one bulk copy stays referenced per cold start.
   */
  begin(bulk: BulkCopy | undefined): void {
    this.#bulk = this.isEmpty ? bulk : undefined;
  }

  /** The object for `buf[start, end)`: the cached one when the bytes are unchanged, else `decode()`. */
  get(key: string | undefined, buf: Buffer, start: number, end: number, decode: () => T): T {
    if (key === undefined) return decode();
    const hit = this.#current.get(key);
    if (hit && hit.bytes.length === end - start && hit.bytes.compare(buf, start, end) === 0) {
      this.#next.set(key, hit);
      return hit.value;
    }
    const value = decode();
    const bulk = this.#bulk;
    const bytes = bulk
      ? bulk.bytes.subarray(start - bulk.offset, end - bulk.offset)
      : Buffer.from(buf.subarray(start, end));
    this.#next.set(key, { bytes, value });
    return value;
  }

  /** The state decoded completely: items it did not contain are forgotten. */
  commit(): void {
    this.#current = this.#next;
    this.#next = new Map();
    this.#bulk = undefined;
  }

  /** The state failed to decode: keep the previous generation. */
  discard(): void {
    this.#next = new Map();
    this.#bulk = undefined;
  }

  get size(): number {
    return this.#current.size;
  }
}
