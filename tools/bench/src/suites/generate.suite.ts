import { generate, SCENARIO_NAMES } from '../scenarios/catalog.js';
import { createChurn, type ChurnStep } from '../scenarios/churn.js';
import { serializeScenario, toList } from '../scenarios/write.js';
import { defineSuite } from './suite.js';

/**
 * The generators themselves: time to build and serialise each scenario, and its size. References:
 * a deep copy of the same objects (`structuredClone`) for generation, plain `JSON.stringify` for
 * serialisation: both are the cost of just touching that much data on this machine.
 */
export default defineSuite({
  name: 'generate',
  description: 'time to generate and serialise a scenario (JSON and YAML) and its size in bytes',
  scenarios: SCENARIO_NAMES,
  async run(ctx) {
    const objects = ctx.objects();
    await ctx.measureAgainst('generate', () => generate(ctx.scenario, { seed: ctx.seed }), {
      name: 'structured-clone',
      fn: () => structuredClone(objects),
    });
    const stringify = { name: 'json-stringify', fn: () => JSON.stringify(toList(objects)) };
    for (const format of ['json', 'yaml'] as const) {
      ctx.reportValue(`serialize.${format}.bytes`, Buffer.byteLength(serializeScenario(objects, format)), 'bytes');
      await ctx.measureAgainst(`serialize.${format}`, () => serializeScenario(objects, format), stringify);
    }
    if (ctx.scenario === 'churn') {
      const drain = (): ChurnStep[] => {
        const churn = createChurn(objects);
        const steps: ChurnStep[] = [];
        for (let step = churn.next(); step; step = churn.next()) steps.push(step);
        return steps;
      };
      const changed = drain().map((s) => s.slice);
      ctx.reportValue('churn.changes', changed.length, 'changes');
      await ctx.measureAgainst('churn.sequence', drain, {
        name: 'structured-clone',
        fn: () => structuredClone(changed),
      });
    }
  },
});
