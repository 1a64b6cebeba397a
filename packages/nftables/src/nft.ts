import type { Element, Family, NftObject } from './objects/types.js';
import type { Transaction } from './transaction.js';

export interface RunOptions {
  readonly signal?: AbortSignal;
}

/**
 * What a backend needs from nftables. `NftClient` implements it against the real `nft`;
 * `FakeNft` (from the testing entry) in memory, with the same errors.
 */
export interface Nft {
  newTransaction(): Transaction;
  /** Applies the whole transaction atomically, or throws `NftError` and changes nothing. */
  run(tx: Transaction, options?: RunOptions): Promise<void>;
  /** Like `run`, but only checks that the transaction would apply. */
  check(tx: Transaction, options?: RunOptions): Promise<void>;
  /**
   * Everything in one table, in dump order (see `dumpObjects`); rules carry their handles.
   * Throws `NftError` kind `not-found` when the table does not exist.
   */
  listTable(family: Family, table: string, options?: RunOptions): Promise<readonly NftObject[]>;
  /** The elements of one named set or map. */
  listElements(
    family: Family,
    table: string,
    container: { readonly set: string } | { readonly map: string },
    options?: RunOptions,
  ): Promise<readonly Element[]>;
  /** Ends what the client keeps running between commands, if anything. */
  close?(): Promise<void>;
}
