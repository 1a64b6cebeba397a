import type { TurnBudget } from '@kpng/kit';

/**
 * A long computation written once, as a generator that yields after each item (a Service, a virtual
 * server, an element): `runSteps` runs it at once (the public, synchronous `renderDesired`,
 * `diffTables`, `filterTable`), `runStepsYielding` gives the event loop a turn whenever the budget
 * is spent (the backend's sync: at s10k each of these loops would hold the event loop for tens to
 * hundreds of ms, and the program's /healthz must answer meanwhile). Same items, same order, same result.
 */
export type Steps<T> = Generator<void, T, void>;

export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

export async function runStepsYielding<T>(steps: Steps<T>, budget: TurnBudget): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (budget.due()) await budget.yield();
  }
}
