import type { TurnBudget } from '@kpng/kit';
import { BpfError } from './errors.js';
import type { ScanCursor, ScanSlice } from '../backend/kernel.js';
import type { Libbpf } from './ffi.js';

const BPF_ANY = 0;

/**
 * One BPF map of the loaded object, by fd. Writes are batched (`BPF_MAP_UPDATE_BATCH` /
 * `BPF_MAP_DELETE_BATCH`, hash maps since Linux 5.6) with a per-element fallback when the kernel
 * refuses batches (EINVAL/ENOTSUPP). A batch the kernel stops part way through reports how many
 * elements it did, so a failure is never silently half-applied: the error says where it stopped.
 */
export class BpfMap {
  #batches = true;
  #lookupBatches = true;

  constructor(
    private readonly lib: Libbpf,
    readonly name: string,
    readonly fd: number,
    readonly keySize: number,
    readonly valueSize: number,
  ) {}

  /** Writes every (key, value); keys and values of this map's sizes. */
  update(entries: readonly (readonly [Buffer, Buffer])[]): void {
    if (entries.length === 0) return;
    for (const [key, value] of entries) this.#checkSizes(key, value);
    if (this.#batches && entries.length > 1) {
      const keys = Buffer.concat(entries.map(([key]) => key));
      const values = Buffer.concat(entries.map(([, value]) => value));
      const count: [number] = [entries.length];
      const rc = this.lib.updateBatch(this.fd, keys, values, count, null);
      if (rc === 0) return;
      if (!this.#unsupported(-rc) || count[0] !== 0)
        throw new BpfError(`update ${this.name} (batch of ${entries.length}, ${count[0]} done)`, -rc);
      this.#batches = false;
    }
    for (const [key, value] of entries) {
      const rc = this.lib.update(this.fd, key, value, BPF_ANY);
      if (rc !== 0) throw new BpfError(`update ${this.name}`, -rc);
    }
  }

  /** The value under `key`, or undefined when there is none. */
  get(key: Buffer): Buffer | undefined {
    if (key.length !== this.keySize)
      throw new Error(`${this.name}: key of ${key.length} bytes, map has ${this.keySize}`);
    const value = Buffer.alloc(this.valueSize);
    const rc = this.lib.lookup(this.fd, key, value);
    if (rc === 0) return value;
    if (-rc === ENOENT) return undefined;
    throw new BpfError(`lookup in ${this.name}`, -rc);
  }

  /** Deletes every key; a key already absent is not an error. */
  delete(keys: readonly Buffer[]): void {
    for (const key of keys) {
      const rc = this.lib.remove(this.fd, key);
      if (rc !== 0 && -rc !== ENOENT) throw new BpfError(`delete ${this.name}`, -rc);
    }
  }

  /**
   * Every (key, value) in the map, both as hex (full syncs): `scan` to the end, the event loop
   * getting a turn whenever `budget` is spent (an s50k map holds half a million).
   */
  async dump(budget: TurnBudget): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    let cursor: ScanCursor | undefined;
    do {
      const slice = await this.scan(cursor, Number.POSITIVE_INFINITY, budget);
      for (const [key, value] of slice.entries) out.set(key, value);
      cursor = slice.next;
    } while (cursor !== undefined);
    return out;
  }

  /**
   * About `limit` elements from `cursor` (whole batches: up to 4095 more): `BPF_MAP_LOOKUP_BATCH`
   * (5.6), 4096 elements a call (the cursor is the kernel's batch position: a hash map's bucket
   * index), else one element at a time (the cursor is the last key). With a `budget`, the event
   * loop gets a turn between batches whenever it is spent; without one, keep `limit` small.
   */
  async scan(cursor: ScanCursor | undefined, limit: number, budget?: TurnBudget): Promise<ScanSlice> {
    if (typeof cursor === 'number') throw new Error(`${this.name}: not a map cursor`);
    if (this.#lookupBatches) {
      const out = await this.#scanBatched(cursor ?? null, limit, budget);
      if (out !== undefined) return out;
      this.#lookupBatches = false;
    }
    return this.#scanEach(cursor ?? null, limit, budget);
  }

  async #scanBatched(start: Buffer | null, limit: number, budget?: TurnBudget): Promise<ScanSlice | undefined> {
    const entries: [string, string][] = [];
    const keys = Buffer.alloc(DUMP_BATCH * this.keySize);
    const values = Buffer.alloc(DUMP_BATCH * this.valueSize);
    // Hash maps' batch position is a 4-byte bucket index; other maps' is a key.
    let position = start;
    for (;;) {
      const next = Buffer.alloc(Math.max(8, this.keySize));
      // Whole batches: a hash map's batch ends at a bucket, and a count smaller than the next bucket is ENOSPC.
      const count: [number] = [DUMP_BATCH];
      const rc = this.lib.lookupBatch(this.fd, position, next, keys, values, count, null);
      if (rc !== 0 && -rc !== ENOENT) {
        if (position === null && this.#unsupported(-rc)) return undefined;
        throw new BpfError(`dump ${this.name}`, -rc);
      }
      // The batch is read already: a spent budget gives its turn after the batch is turned into text.
      let due = false;
      for (let i = 0; i < count[0]; i++) {
        const key = keys.toString('hex', i * this.keySize, (i + 1) * this.keySize);
        entries.push([key, values.toString('hex', i * this.valueSize, (i + 1) * this.valueSize)]);
        if (budget?.due()) due = true;
      }
      if (rc !== 0) return { entries, next: undefined }; // ENOENT: the end of the map
      position = next;
      if (entries.length >= limit) return { entries, next };
      if (due) await budget!.yield();
    }
  }

  async #scanEach(start: Buffer | null, limit: number, budget?: TurnBudget): Promise<ScanSlice> {
    const entries: [string, string][] = [];
    let key = start;
    for (;;) {
      if (entries.length >= limit && key !== null) return { entries, next: key };
      const next = Buffer.alloc(this.keySize);
      const rc = this.lib.nextKey(this.fd, key, next);
      if (rc !== 0) {
        if (-rc === ENOENT) return { entries, next: undefined };
        throw new BpfError(`next key of ${this.name}`, -rc);
      }
      const value = Buffer.alloc(this.valueSize);
      const found = this.lib.lookup(this.fd, next, value);
      if (found === 0) entries.push([next.toString('hex'), value.toString('hex')]);
      else if (-found !== ENOENT) throw new BpfError(`lookup in ${this.name}`, -found);
      if (budget?.due()) await budget.yield();
      key = next;
    }
  }

  #checkSizes(key: Buffer, value: Buffer): void {
    if (key.length !== this.keySize || value.length !== this.valueSize)
      throw new Error(
        `${this.name}: key/value of ${key.length}/${value.length} bytes, map has ${this.keySize}/${this.valueSize}`,
      );
  }

  #unsupported(errno: number): boolean {
    return errno === EINVAL || errno === ENOTSUPP || errno === EOPNOTSUPP;
  }
}

const DUMP_BATCH = 4096;
const ENOENT = 2;
const EINVAL = 22;
const EOPNOTSUPP = 95;
/** The kernel's internal "not supported" (524), which bpf() can return for missing batch ops. */
const ENOTSUPP = 524;
