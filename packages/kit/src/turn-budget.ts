/**
 * Cooperative yielding for the long loops of a full sync (10,000 Services rendered, 100,000
 * elements written): in the loop, `if (budget.due()) await budget.yield()` gives the event loop a
 * turn once `budgetMs` has passed since the last one, so the program's health and metrics servers
 * answer while a big cluster is programmed. The planned transaction is only applied at the end,
 * so a sync stays atomic.
 */
export class TurnBudget {
  #since = performance.now();
  #calls = 0;
  /** Turns given so far. */
  yields = 0;

  constructor(readonly budgetMs: number) {}

  /** Whether the budget is spent (the clock is read every 16 calls: it costs too). */
  due(): boolean {
    return ++this.#calls % 16 === 0 && performance.now() - this.#since >= this.budgetMs;
  }

  /** `yield()` when `due()`: the one line a long loop needs. */
  async maybeYield(): Promise<void> {
    if (this.due()) await this.yield();
  }

  async yield(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.yields++;
    this.#since = performance.now();
  }
}
