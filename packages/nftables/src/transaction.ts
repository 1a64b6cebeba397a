import { NftError } from './errors.js';
import { describeObject, validateObject } from './objects/index.js';
import type { NftObject } from './objects/types.js';
import type { Operation } from './operation.js';
import { renderOperations } from './render-transaction.js';
import type { Verb } from './verbs.js';

/**
 * Objects added by `addEach`: made only while the transaction is rendered (and again to name the
 * operation a failure points at), so they are never all in memory at once.
 */
interface Deferred {
  readonly count: number;
  readonly objects: () => Iterable<NftObject>;
}

/**
 * A queue of `{verb, object}` operations; building one never touches the host. Each verb method
 * validates its object; the first failure is latched, later operations are ignored, and the
 * failure is raised when the transaction is run or checked. `addEach` queues objects made later,
 * when the transaction is rendered: they are validated then, and a failure aborts the run before
 * nft sees any of it.
 */
export class Transaction {
  /** Queued operations in order: each entry one operation, or a deferred run of adds. */
  readonly #entries: (Operation | Deferred)[] = [];
  #size = 0;
  #error: NftError | undefined;

  add(object: NftObject): void {
    this.#queue('add', object);
  }
  /** Like add, but fails when the object already exists. */
  create(object: NftObject): void {
    this.#queue('create', object);
  }
  /** Rules only: prepend (or insert before `index`/`handle`). */
  insert(object: NftObject): void {
    this.#queue('insert', object);
  }
  /** Rules only: replace the rule with `handle`. */
  replace(object: NftObject): void {
    this.#queue('replace', object);
  }
  delete(object: NftObject): void {
    this.#queue('delete', object);
  }
  /** Delete if present. Emulated as add-then-delete where nft lacks `destroy` (before 1.0.8). */
  destroy(object: NftObject): void {
    this.#queue('destroy', object);
  }
  /** Remove a table's rules, a chain's rules, or a set's/map's elements. */
  flush(object: NftObject): void {
    this.#queue('flush', object);
  }
  /** Counters only: zero them. */
  reset(object: NftObject): void {
    this.#queue('reset', object);
  }

  /**
   * Queues `count` adds of the objects `objects()` yields, made only when the transaction is
   * rendered (a full sync's ~100k elements: their objects are garbage line by line instead of all
   * alive until nft ran). `objects` must yield exactly `count` objects, the same ones each time it
   * is called, until the transaction has run: it is called again to name a failing operation.
   * They are validated as they are rendered; the first invalid one fails the run (`NftError` kind
   * `invalid`) before anything reaches nft.
   */
  addEach(count: number, objects: () => Iterable<NftObject>): void {
    if (this.#error !== undefined || count === 0) return;
    this.#entries.push({ count, objects });
    this.#size += count;
  }

  /** Number of queued operations (metrics, "is there anything to do?"). */
  get size(): number {
    return this.#size;
  }

  /** Every operation, deferred ones made now (tests, the fake): `ops()` streams them instead. */
  get operations(): readonly Operation[] {
    return [...this.ops()];
  }

  /**
   * The operations in order, deferred ones made (and validated) as they are reached: throws the
   * `NftError` of the first invalid one, or an error if a deferred run yields other than its count.
   */
  *ops(): Generator<Operation, void, void> {
    let index = 0;
    for (const entry of this.#entries) {
      if (!isDeferred(entry)) {
        yield entry;
        index++;
        continue;
      }
      let made = 0;
      for (const object of entry.objects()) {
        const operation: Operation = { verb: 'add', object };
        const problem = validateObject(object, 'add');
        if (problem !== undefined)
          throw NftError.invalid(`add ${describeObject(object)}: ${problem}`, index, operation);
        if (++made > entry.count) break;
        yield operation;
        index++;
      }
      if (made !== entry.count)
        throw new Error(`a deferred run of ${entry.count} operations made ${made > entry.count ? 'more' : made}`);
    }
  }

  /**
   * The operations from `start` up to `end` (deferred ones made again, in one pass), for naming
   * what nft complained about after the transaction was streamed. Arrays have the same method:
   * `NftError.fromNft` takes either.
   */
  slice(start: number, end: number): Operation[] {
    const found: Operation[] = [];
    let index = 0;
    for (const entry of this.#entries) {
      if (index >= end) break;
      const count = isDeferred(entry) ? entry.count : 1;
      if (index + count <= start) {
        index += count;
        continue;
      }
      if (!isDeferred(entry)) {
        found.push(entry);
        index++;
        continue;
      }
      for (const object of entry.objects()) {
        if (index >= end) break;
        if (index >= start) found.push({ verb: 'add', object });
        index++;
      }
    }
    return found;
  }

  /** The latched validation failure, if any. */
  get error(): NftError | undefined {
    return this.#error;
  }

  /** The transaction as nft text (native `destroy`), ending with `# ERROR: …` if one is latched. */
  toString(): string {
    const operations: Operation[] = [];
    let error = this.#error;
    try {
      for (const operation of this.ops()) operations.push(operation);
    } catch (e) {
      if (!(e instanceof NftError)) throw e;
      error = e;
    }
    const { text } = renderOperations(operations, { objectComments: true, emulateDestroy: false });
    return error === undefined ? text : `${text}# ERROR: ${error.message}\n`;
  }

  #queue(verb: Verb, object: NftObject): void {
    if (this.#error !== undefined) return;
    const operation: Operation = { verb, object };
    // destroy is checked as add and delete too, so it behaves the same with or without emulation.
    const problem =
      validateObject(object, verb) ??
      (verb === 'destroy' ? (validateObject(object, 'add') ?? validateObject(object, 'delete')) : undefined);
    if (problem !== undefined) {
      this.#error = NftError.invalid(`${verb} ${describeObject(object)}: ${problem}`, this.#size, operation);
      return;
    }
    this.#entries.push(operation);
    this.#size++;
  }
}

function isDeferred(entry: Operation | Deferred): entry is Deferred {
  return 'count' in entry;
}
