// Injection fuzz against the real nft, inside a network namespace this file creates: whatever
// names, comments or rule text a caller passes, a rendered transaction either is refused by
// validation or nft accepts it and builds exactly the intended objects, nothing else.
// (Imports the lab by path until tools/lab's index re-exports ./netns.)
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createNamespace, kernelE2e, sweepLeftovers, type NetworkNamespace } from '@kpng/lab';
import { dumpObjects } from './canonical.js';
import { createNftClient, type NftClient } from './client.js';
import { FakeNft } from './fake/fake-nft.js';
import type { Family, NftObject } from './objects/types.js';
import { RESERVED_WORDS } from './reserved-words.js';
import { Transaction } from './transaction.js';

const e2e = await kernelE2e('nftables injection fuzz');

/** Reproduce a failure with KPNG_FUZZ_SEED=<seed printed in the failure>. */
const SEED = Number(process.env['KPNG_FUZZ_SEED'] ?? 20240611);
const CASES = 150;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SAFE = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./';
/** Fine inside a comment (nft strings have no escapes), so they must be accepted and read back intact. */
const BENIGN = [
  ' ',
  "'",
  '`',
  ';',
  '{',
  '}',
  '[',
  ']',
  '#',
  '\\',
  '$',
  '@',
  ',',
  ':',
  '=',
  '!',
  '*',
  '&',
  '|',
  'é',
  'ñ',
  '日本',
  '🙂',
  '\u00a0',
  '\u2028',
  '\ufeff',
];
/** Never fine: quotes, line breaks, control characters, broken UTF-16, nft keywords as names. */
const HOSTILE = [
  '"',
  '\n',
  '\t',
  '\r',
  '\0',
  '\u007f',
  '\ud800',
  '\udc00',
  ' ; flush ruleset',
  '} ; add table ip x {',
  '" ; delete table ip kpng ; "',
];
const KEYWORDS = [...RESERVED_WORDS].filter((_, i) => i % 7 === 0);

class Generator {
  readonly #random: () => number;
  /** The chance that any one piece of text is hostile; drawn per case so clean cases are common. */
  hostility = 0;
  constructor(seed: number) {
    this.#random = mulberry32(seed);
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#random() * items.length)] as T;
  }
  chance(p: number): boolean {
    return this.#random() < p;
  }
  #text(pieces: number, benign: readonly string[]): string {
    let text = '';
    for (let i = 0; i < pieces; i++) text += this.chance(this.hostility) ? this.pick(HOSTILE) : this.pick(benign);
    return text;
  }
  /** An identifier, sometimes hostile, sometimes a keyword, sometimes longer than nft allows. */
  name(): string {
    if (this.chance(this.hostility)) return this.pick(KEYWORDS);
    const length = this.chance(0.03) ? 256 + Math.floor(this.#random() * 20) : 1 + Math.floor(this.#random() * 20);
    return (
      this.pick([...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_']) +
      this.#text(length - 1, [...SAFE, ...(this.chance(this.hostility) ? BENIGN : [])])
    );
  }
  comment(): string | undefined {
    if (this.chance(0.25)) return undefined;
    const length = this.chance(0.05) ? 120 + Math.floor(this.#random() * 30) : Math.floor(this.#random() * 40);
    return this.#text(length, [...SAFE, ...BENIGN]);
  }
}

function withComment<T extends NftObject>(object: T, comment: string | undefined): T {
  return comment === undefined ? object : { ...object, comment };
}

/** One table with one of everything, every name and comment drawn at random. */
function randomObjects(gen: Generator): { family: Family; table: string; objects: NftObject[] } {
  const family = gen.pick(['ip', 'ip6', 'inet'] as const);
  const addrType = family === 'ip6' ? 'ipv6_addr' : 'ipv4_addr';
  const address = family === 'ip6' ? '2001:db8:5e::1' : '198.19.0.1'; // + one more digit
  const match = family === 'ip6' ? 'ip6 daddr' : 'ip daddr';
  const names = new Set<string>();
  const fresh = (): string => {
    for (let i = 0; i < 10; i++) {
      const name = gen.name();
      if (!names.has(name)) {
        names.add(name);
        return name;
      }
    }
    throw new Error('no fresh name');
  };
  const [table, chain, target, set, map, counter] = [fresh(), fresh(), fresh(), fresh(), fresh(), fresh()];
  const t = { family, table } as const;
  return {
    family,
    table,
    objects: [
      withComment({ kind: 'table', family, name: table }, gen.comment()),
      withComment({ kind: 'chain', ...t, name: chain }, gen.comment()),
      withComment({ kind: 'chain', ...t, name: target }, gen.comment()),
      withComment({ kind: 'set', ...t, name: set, type: addrType }, gen.comment()),
      withComment({ kind: 'map', ...t, name: map, type: `${addrType} : verdict` }, gen.comment()),
      withComment({ kind: 'counter', ...t, name: counter }, gen.comment()),
      // Several elements of one set or map: written as one batched line.
      ...[1, 2, 3].map(
        (n) => withComment({ kind: 'element', ...t, set, key: [`${address}${n}`] }, gen.comment()) as NftObject,
      ),
      ...[1, 2].map(
        (n) =>
          withComment(
            { kind: 'element', ...t, map, key: [`${address}${n}`], value: [`goto ${target}`] },
            gen.comment(),
          ) as NftObject,
      ),
      withComment({ kind: 'rule', ...t, chain, rule: `${match} @${set} jump ${target}` }, gen.comment()),
      withComment({ kind: 'rule', ...t, chain, rule: `${match} vmap @${map}` }, gen.comment()),
      withComment({ kind: 'rule', ...t, chain, rule: `counter name "${counter}"` }, gen.comment()),
    ],
  };
}

/** Pieces of valid rule text, and pieces that try to leave the rule's line. */
const RULE_FRAGMENTS = [
  'accept',
  'drop',
  'counter',
  'ip daddr 198.19.0.1',
  'tcp dport 80',
  'meta mark set 1',
  'ip saddr { 198.18.0.1, 198.18.0.2 }',
  'return',
  'reject',
  'iifname "eth0"',
  'numgen random mod 2 vmap { 0 : drop, 1 : accept }',
  'ip saddr 198.18.0.0/16',
  'jump',
  '@s',
  ':',
];
const RULE_ESCAPES = [
  ';',
  'flush ruleset',
  '\n',
  '{',
  '}',
  '"',
  '#',
  'comment "x"',
  'add table ip evil',
  '$x',
  '\\',
  ',',
  '(',
  ')',
  '"a;b"',
];

// Each case starts two to four nft processes in the namespace: 150 cases take seconds on an idle machine and
// ran past vitest's default 30 s at load ~35. The bound only guards against a hang; it is not a figure.
const FUZZ_TIMEOUT_MS = 300_000;

describe.skipIf(!e2e.run)(
  `injection fuzz against the real nft (kernel, seed ${SEED})`,
  { timeout: FUZZ_TIMEOUT_MS },
  () => {
    let namespace: NetworkNamespace;
    let client: NftClient;

    beforeAll(async () => {
      await sweepLeftovers();
      namespace = await createNamespace('nftfuzz');
      client = await createNftClient({ netns: namespace.name });
    });

    afterAll(async () => {
      await namespace?.delete();
    });

    const tablesInNamespace = async (): Promise<string> =>
      (await namespace.exec(['nft', 'list', 'tables'])).stdout.trim();

    test('random names and comments are refused, or build exactly the intended table', async () => {
      const gen = new Generator(SEED);
      let refused = 0;
      let applied = 0;
      for (let i = 0; i < CASES; i++) {
        gen.hostility = gen.pick([0, 0, 0, 0.01, 0.05, 0.3]);
        const { family, table, objects } = randomObjects(gen);
        const tx = new Transaction();
        for (const object of objects) tx.add(object);
        const context = `case ${i} (seed ${SEED}):\n${tx.toString()}`;
        if (tx.error !== undefined) {
          expect(tx.error.kind, context).toBe('invalid');
          refused++;
          continue;
        }
        await namespace.exec(['nft', 'flush', 'ruleset']);
        await expect(client.check(tx), context).resolves.toBeUndefined();
        await expect(client.run(tx), context).resolves.toBeUndefined();
        const fake = new FakeNft();
        await fake.run(tx);
        expect(dumpObjects(await client.listTable(family, table)), context).toBe(fake.dump());
        expect(await tablesInNamespace(), context).toBe(`table ${family} ${table}`);
        applied++;
      }
      console.log(`name/comment fuzz: ${JSON.stringify({ refused, applied })}`);
      // Both outcomes must really be exercised, or the fuzz proves nothing.
      expect(refused).toBeGreaterThan(CASES / 10);
      expect(applied).toBeGreaterThan(CASES / 10);
    });

    test('random rule text is refused, fails on its own line, or adds exactly one rule', async () => {
      const gen = new Generator(SEED + 1);
      const outcomes = { refused: 0, failedAlone: 0, applied: 0 };
      for (let i = 0; i < CASES; i++) {
        const escapes = gen.pick([0, 0.1, 0.4]);
        const pieces = 1 + Math.floor(gen.chance(0.5) ? 1 : 4);
        const text = Array.from({ length: pieces }, () =>
          gen.pick(gen.chance(escapes) ? RULE_ESCAPES : RULE_FRAGMENTS),
        ).join(gen.chance(0.8) ? ' ' : '');
        const tx = new Transaction();
        tx.add({ kind: 'table', family: 'ip', name: 'fuzz' });
        tx.add({ kind: 'chain', family: 'ip', table: 'fuzz', name: 'c' });
        tx.add({ kind: 'rule', family: 'ip', table: 'fuzz', chain: 'c', rule: text });
        const context = `case ${i} (seed ${SEED + 1}): ${JSON.stringify(text)}`;
        if (tx.error !== undefined) {
          outcomes.refused++;
          continue;
        }
        await namespace.exec(['nft', 'flush', 'ruleset']);
        const error = await client.check(tx).catch((e: unknown) => e as { failures: readonly { line: number }[] });
        if (error !== undefined) {
          // nft may reject the rule, but only ever on the rule's own line.
          expect(
            error.failures.map((failure) => failure.line),
            context,
          ).toEqual(error.failures.map(() => 3));
          outcomes.failedAlone++;
          continue;
        }
        await client.run(tx);
        const listed = await client.listTable('ip', 'fuzz');
        expect(
          listed.map((object) => object.kind),
          context,
        ).toEqual(['table', 'chain', 'rule']);
        expect(await tablesInNamespace(), context).toBe('table ip fuzz');
        outcomes.applied++;
      }
      console.log(`rule text fuzz: ${JSON.stringify(outcomes)}`);
      expect(outcomes.refused).toBeGreaterThan(CASES / 10);
      expect(outcomes.applied).toBeGreaterThan(CASES / 20);
    });
  },
);
