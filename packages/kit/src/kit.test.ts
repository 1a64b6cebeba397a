import { describe, expect, it } from 'vitest';
import { inNetns } from './netns.js';
import { metricsOn, registeredOr } from './metrics.js';
import { TurnBudget } from './turn-budget.js';

describe('inNetns', () => {
  it('prefixes ip netns exec, or leaves the command alone without a namespace', () => {
    expect(inNetns('lab-a', ['nft', '-f', '-'])).toEqual(['ip', 'netns', 'exec', 'lab-a', 'nft', '-f', '-']);
    expect(inNetns(undefined, ['nft', '-f', '-'])).toEqual(['nft', '-f', '-']);
  });

  it('enters the network namespace only with nsenter when asked', () => {
    expect(inNetns('lab-a', ['iptables-save'], { via: 'nsenter' })).toEqual([
      'nsenter',
      '--net=/run/netns/lab-a',
      'iptables-save',
    ]);
  });

  it.each(['', '.', '..', '../x', '-n', 'a b', 'a\0b', 'a\nb'])('refuses the namespace name %j', (name) => {
    expect(() => inNetns(name, ['true'])).toThrow(/invalid network namespace name/);
    expect(() => inNetns(name, ['true'], { via: 'nsenter' })).toThrow(/invalid network namespace name/);
  });
});

describe('registeredOr', () => {
  it('creates once, then returns what the registry holds', () => {
    const held = new Map<string, unknown>();
    const registry = { getSingleMetric: (name: string) => held.get(name) };
    let created = 0;
    const create = () => {
      created++;
      const metric = { name: 'm' };
      held.set('m', metric);
      return metric;
    };
    const first = registeredOr(registry, 'm', create);
    expect(registeredOr(registry, 'm', create)).toBe(first);
    expect(created).toBe(1);
  });
});

describe('metricsOn', () => {
  /** A registry as prom-client's behaves: a metric registers itself on each of its `registers`. */
  class FakeRegistry {
    readonly held = new Map<string, unknown>();
    getSingleMetric(name: string): unknown {
      return this.held.get(name);
    }
  }
  class FakeCounter {
    constructor(readonly configuration: { name: string; help: string; registers: FakeRegistry[] }) {
      for (const registry of configuration.registers) registry.held.set(configuration.name, this);
    }
  }

  it('declares a metric with its configuration, registered on that registry alone; a second declaration shares it', () => {
    const registry = new FakeRegistry();
    const other = new FakeRegistry();
    const metric = metricsOn(registry);
    const first = metric(FakeCounter, { name: 'a_total', help: 'A.' });
    expect(first.configuration).toEqual({ name: 'a_total', help: 'A.', registers: [registry] });
    expect(metric(FakeCounter, { name: 'a_total', help: 'ignored' })).toBe(first);
    expect(metricsOn(other)(FakeCounter, { name: 'a_total', help: 'A.' })).not.toBe(first);
    expect(metric(FakeCounter, { name: 'b_total', help: 'B.' })).not.toBe(first);
  });
});

describe('TurnBudget', () => {
  it('is due only after its budget has passed, checked every 16 calls, and counts its yields', async () => {
    const spent = new TurnBudget(0);
    const due = Array.from({ length: 32 }, () => spent.due());
    expect(due.filter(Boolean)).toHaveLength(2);
    expect(due[15]).toBe(true);
    const never = new TurnBudget(Number.POSITIVE_INFINITY);
    expect(Array.from({ length: 64 }, () => never.due()).some(Boolean)).toBe(false);
    for (let i = 0; i < 16; i++) await spent.maybeYield();
    expect(spent.yields).toBe(1);
  });

  it('gives the event loop a turn: a queued setImmediate runs during yield()', async () => {
    let ran = false;
    setImmediate(() => (ran = true));
    await new TurnBudget(0).yield();
    expect(ran).toBe(true);
  });
});
