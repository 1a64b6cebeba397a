// Names and comments can never inject nft syntax: whatever a Service is called, every operation
// the backend writes passes the library's validation and stays on its own line.
import { describe, expect, it } from 'vitest';
import { FakeNft } from '@kpng/nftables/testing';
import { renderOperations } from '@kpng/nftables';
import { NftBackend } from '../backend/nft-backend.js';
import { serviceKey, type NodeName, type ServiceModel } from '@kpng/core';
import { computeNodeLocalState, type ModelReader } from '@kpng/core/runtime';
import { RecordingLogger } from '@kpng/core/testing';
import { elementComment } from './service.js';

const NASTY = [
  '"',
  ';',
  '#',
  '\\',
  '\n',
  '{',
  '}',
  '} ; flush ruleset ; {',
  '"; delete table ip kpng; "',
  '\u0000',
  '\u202e',
  '😀',
  ' ',
  '\t',
  'a'.repeat(300),
];

function randomText(seed: number): string {
  let s = seed;
  const next = (): number => (s = (s * 1103515245 + 12345) % 2 ** 31);
  let out = '';
  for (let i = 0; i < 1 + (next() % 6); i++) out += NASTY[next() % NASTY.length] ?? '';
  return out;
}

function model(n: number): ModelReader {
  const services = new Map<string, ServiceModel>();
  for (let i = 0; i < n; i++) {
    const svc: ServiceModel = {
      namespace: `ns${randomText(i * 3 + 1)}`,
      name: `svc${randomText(i * 3 + 2)}`,
      type: 'NodePort',
      clusterIPs: [`198.19.1.${i}`],
      externalIPs: [],
      loadBalancerIPs: [],
      loadBalancerSourceRanges: [],
      ports: [{ name: randomText(i * 3 + 3), protocol: 'TCP', port: 80, nodePort: 30000 + i, targetPort: 8080 }],
      sessionAffinity: { type: 'ClientIP', timeoutSeconds: 10 },
      externalTrafficPolicy: 'Local',
      internalTrafficPolicy: 'Cluster',
      healthCheckNodePort: 0,
    };
    services.set(serviceKey(svc.namespace, svc.name), svc);
  }
  return {
    revision: 1,
    service: (key) => services.get(key),
    slicesOf: () => [],
    node: () => undefined,
    serviceKeys: () => services.keys() as never,
  };
}

describe('injection', () => {
  it('comments keep only characters nft reads literally', () => {
    for (const text of NASTY) expect(elementComment(`x${text}y`)).toMatch(/^[A-Za-z0-9._:/-]*$/);
  });

  it('fuzzed Service, namespace and port names render to valid one-line operations', async () => {
    const nft = new FakeNft();
    const backend = new NftBackend({ nft, conntrack: false, families: ['IPv4'], log: new RecordingLogger() });
    const state = computeNodeLocalState(model(60), 'node-a' as NodeName);
    expect(state.services.length).toBe(60);
    await backend.sync({ state, changes: { triggerTimes: new Map(), nodeChanged: false }, full: true, revision: 1 });
    const tx = nft.lastTransaction;
    expect(tx?.error).toBeUndefined();
    const { text } = renderOperations(tx?.operations ?? [], { objectComments: true, emulateDestroy: false });
    expect(text.trimEnd().split('\n')).toHaveLength(tx?.size ?? -1);
    expect(text).not.toMatch(/flush ruleset|delete table ip kpng;/);
    // As the client writes it: elements batched per set, every line still one command.
    const batched = renderOperations(tx?.operations ?? [], {
      objectComments: true,
      emulateDestroy: false,
      batchElements: true,
    });
    const lines = batched.text.trimEnd().split('\n');
    expect(lines).toHaveLength(batched.lineCounts.length);
    expect(batched.lineCounts.reduce((a, b) => a + b, 0)).toBe(tx?.size);
    expect(lines.length).toBeLessThan(tx?.size ?? 0);
    for (const line of lines) expect(line).toMatch(/^(add|flush|delete) (table|chain|set|map|element|rule) ip kpng/);
    expect(batched.text).not.toMatch(/flush ruleset|delete table ip kpng;/);
  });
});
