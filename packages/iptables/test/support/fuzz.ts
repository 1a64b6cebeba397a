/**
 * Services whose namespaces, names and port names are fuzzed with quotes, backslashes, line
 * breaks, option-like text and non-ASCII, with every feature that writes a comment (the unit
 * injection test and the kernel `iptables-restore --test` e2e share them).
 */
import type { ServiceFixture } from '@kpng/core/testing';

const NASTY = [
  '"',
  '\\',
  '\n',
  '\r',
  ' -j ACCEPT',
  '" -j ACCEPT "',
  '--comment',
  ';',
  '*filter',
  'COMMIT',
  '#',
  "'",
  '`',
  '$(x)',
  'é',
  '\u0000',
  '\t',
  ':KUBE-X - [0:0]',
];

/** A deterministic PRNG (mulberry32), so a failure names a reproducible seed. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One fuzzed name. */
export function fuzzName(rand: () => number): string {
  let name = '';
  const parts = 1 + Math.floor(rand() * 5);
  for (let i = 0; i < parts; i++)
    name += rand() < 0.5 ? NASTY[Math.floor(rand() * NASTY.length)] : String.fromCharCode(33 + Math.floor(rand() * 94));
  return name;
}

/** Services with fuzzed namespaces, names and port names, every feature that writes a comment. */
export function fuzzedServices(seed: number, count = 20): ServiceFixture[] {
  const rand = random(seed);
  return Array.from({ length: count }, (_, i) => ({
    namespace: fuzzName(rand),
    name: fuzzName(rand),
    clusterIPs: [`198.19.1.${i}`, `2001:db8:5e::1:${i.toString(16)}`],
    externalIPs: [`203.0.113.${100 + i}`],
    loadBalancerIPs: [`203.0.113.${200 + (i % 50)}`],
    sourceRanges: ['203.0.113.0/28'],
    ports: [
      { name: fuzzName(rand), port: 80, nodePort: 30000 + i },
      { name: fuzzName(rand), protocol: 'UDP' as const, port: 53 },
    ],
    ...(i % 2 === 0 ? { affinity: 30 } : {}),
    ...(i % 3 === 0 ? { externalLocal: true } : {}),
    endpoints:
      i % 5 === 4
        ? []
        : [
            { ip: `198.18.1.${10 + (i % 3)}` },
            { ip: `198.18.2.${10 + i}`, node: 'node-b' },
            { ip: `2001:db8:1::${i + 16}` },
          ],
  }));
}
