import { Counter, type Registry } from 'prom-client';
import { registeredOr } from '@kpng/kit';
import { processFaultCounts } from '../runtime/process-faults.js';

/** One counter per process, reading the fault policy's counts (runtime/process-faults.ts) when scraped. */
let faults: Counter<'kind'> | undefined;

/** Exposes `kpng_unexpected_errors_total` on `registry` (core's metrics do; so do the test clients'). */
export function registerProcessFaults(registry: Registry): Counter<'kind'> {
  faults ??= new Counter({
    name: 'kpng_unexpected_errors_total',
    help: 'Exceptions and promise rejections nothing handled, by kind (uncaughtException, unhandledRejection); the process logs each and carries on',
    labelNames: ['kind'] as const,
    registers: [],
    collect() {
      this.reset();
      for (const [kind, n] of processFaultCounts()) this.inc({ kind }, n);
    },
  });
  const counter = faults;
  return registeredOr(registry, 'kpng_unexpected_errors_total', () => {
    registry.registerMetric(counter);
    return counter;
  });
}
