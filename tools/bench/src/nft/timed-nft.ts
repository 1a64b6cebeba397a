/**
 * An `Nft` that times every transaction it runs (nft's process and the kernel, plus writing the
 * text): benchmarks split a sync into "inside nft" and "ours" with it. A full sync's elements are
 * made, validated and rendered while nft's input is written (`Transaction.addEach`), so for a full
 * sync "inside nft" includes that part of ours (its size at s10k: tools/bench/README.md, `nft`).
 */
import type { Nft, Transaction } from '@kpng/nftables';

export interface TimedRun {
  readonly ms: number;
  readonly operations: number;
}

export class TimedNft implements Nft {
  readonly runs: TimedRun[] = [];

  constructor(readonly inner: Nft) {}

  newTransaction(): Transaction {
    return this.inner.newTransaction();
  }

  async run(tx: Transaction): Promise<void> {
    const start = performance.now();
    await this.inner.run(tx);
    this.runs.push({ ms: performance.now() - start, operations: tx.size });
  }

  check: Nft['check'] = (tx, options) => this.inner.check(tx, options);
  listTable: Nft['listTable'] = (family, table, options) => this.inner.listTable(family, table, options);
  listElements: Nft['listElements'] = (family, table, container, options) =>
    this.inner.listElements(family, table, container, options);

  /** The last run, if any. */
  get last(): TimedRun | undefined {
    return this.runs.at(-1);
  }
}
