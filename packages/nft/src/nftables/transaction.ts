import { NftError } from './errors.js';
import { describeObject, validateObject } from './objects/index.js';
import type { NftObject } from './objects/types.js';
import type { Operation } from './operation.js';
import { renderOperations } from './render-transaction.js';
import type { Verb } from './verbs.js';

/**
 * A queue of `{verb, object}` operations; building one never touches the host. Each verb method
 * validates its object; the first failure is latched, later operations are ignored, and the
 * failure is raised when the transaction is run or checked.
 */
export class Transaction {
  readonly #operations: Operation[] = [];
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

  /** Number of queued operations (metrics, "is there anything to do?"). */
  get size(): number {
    return this.#operations.length;
  }

  get operations(): readonly Operation[] {
    return this.#operations;
  }

  /** The latched validation failure, if any. */
  get error(): NftError | undefined {
    return this.#error;
  }

  /** The transaction as nft text (native `destroy`), ending with `# ERROR: …` if one is latched. */
  toString(): string {
    const { text } = renderOperations(this.#operations, { objectComments: true, emulateDestroy: false });
    return this.#error === undefined ? text : `${text}# ERROR: ${this.#error.message}\n`;
  }

  #queue(verb: Verb, object: NftObject): void {
    if (this.#error !== undefined) return;
    const operation: Operation = { verb, object };
    // destroy is checked as add and delete too, so it behaves the same with or without emulation.
    const problem =
      validateObject(object, verb) ??
      (verb === 'destroy' ? (validateObject(object, 'add') ?? validateObject(object, 'delete')) : undefined);
    if (problem !== undefined) {
      this.#error = NftError.invalid(
        `${verb} ${describeObject(object)}: ${problem}`,
        this.#operations.length,
        operation,
      );
      return;
    }
    this.#operations.push(operation);
  }
}
