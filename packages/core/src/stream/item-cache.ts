/**
 * Client-side decode cache. Consecutive full states repeat almost every item byte for byte, so the
 * client remembers each item's bytes and decoded object by key: an unchanged item costs one memory
 * compare instead of a decode, and keeps its object identity across states (backends can cache
 * per-object work in a WeakMap). Robust by construction: reuse needs identical bytes, not trust in
 * the server's change list.
 */
interface Entry<T> {
  readonly bytes: Buffer;
  readonly value: T;
}

export class DecodedItemCache<T> {
  #current = new Map<string, Entry<T>>();
  #next = new Map<string, Entry<T>>();

  /** The object for `buf[start, end)`: the cached one when the bytes are unchanged, else `decode()`. */
  get(key: string | undefined, buf: Buffer, start: number, end: number, decode: () => T): T {
    if (key === undefined) return decode();
    const hit = this.#current.get(key);
    if (hit && hit.bytes.length === end - start && hit.bytes.compare(buf, start, end) === 0) {
      this.#next.set(key, hit);
      return hit.value;
    }
    const value = decode();
    this.#next.set(key, { bytes: Buffer.from(buf.subarray(start, end)), value });
    return value;
  }

  /** The state decoded completely: items it did not contain are forgotten. */
  commit(): void {
    this.#current = this.#next;
    this.#next = new Map();
  }

  /** The state failed to decode: keep the previous generation. */
  discard(): void {
    this.#next = new Map();
  }

  get size(): number {
    return this.#current.size;
  }
}
