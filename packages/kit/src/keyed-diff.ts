/**
 * The one shape of "what turns the applied state into the desired one": two maps by the same key,
 * walked once. Every backend diffs this way and renders the result its own way (IPVS operations,
 * eBPF map writes, nft elements, iptables chains); only the rendering is theirs.
 */
export interface KeyedDiffVisitor<K, W, A> {
  /** A wanted key the applied side lacks. */
  added?(key: K, want: W): void;
  /** A key both sides hold whose values are not `same`. */
  changed?(key: K, want: W, have: A): void;
  /** A key both sides hold with the `same` value. */
  unchanged?(key: K, want: W, have: A): void;
  /** An applied key nothing wants. */
  removed?(key: K, have: A): void;
}

/**
 * Visits every key of `wanted` (in its order: `added`, `changed` or `unchanged`), then every key of
 * `applied` that `wanted` lacks (in its order: `removed`), yielding after each key so that a long
 * diff can give the event loop turns (`runStepsYielding`) or run at once (`runSteps`).
 */
export function* diffKeyed<K, W, A>(
  wanted: ReadonlyMap<K, W>,
  applied: ReadonlyMap<K, A>,
  same: (want: W, have: A) => boolean,
  visit: KeyedDiffVisitor<K, W, A>,
): Steps<void> {
  for (const [key, want] of wanted) {
    const has = applied.has(key);
    if (!has) visit.added?.(key, want);
    else {
      const have = applied.get(key) as A;
      if (same(want, have)) visit.unchanged?.(key, want, have);
      else visit.changed?.(key, want, have);
    }
    yield;
  }
  for (const [key, have] of applied) {
    if (!wanted.has(key)) visit.removed?.(key, have);
    yield;
  }
}

/**
 * A long computation written once, as a generator that yields after each item (a Service, a key):
 * `runSteps` runs it at once, `runStepsYielding` gives the event loop a turn whenever the budget is
 * spent. Same items, same order, same result.
 */
export type Steps<T> = Generator<void, T, void>;

export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}

export async function runStepsYielding<T>(
  steps: Steps<T>,
  budget: { due(): boolean; yield(): Promise<void> },
): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (budget.due()) await budget.yield();
  }
}
