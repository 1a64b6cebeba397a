import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointSliceModel, ObjectKind, ServiceModel } from '../../model/types.js';
import { invalidObjectsTotal } from '../../metrics/objects.js';
import { configureLogging, resetLogging } from '../../util/log.js';
import { parseLogLine } from '../../util/log-line.js';
import { FileSource } from './file-source.js';
import { capturingLogger, eventually, runSource, type RecordingSink } from '../../../test/support/source-sink.js';

const EXAMPLE = fileURLToPath(new URL('../../../../../examples/cluster.yaml', import.meta.url));

async function invalidCounts(): Promise<Record<string, number>> {
  const values = (await invalidObjectsTotal.get()).values;
  return Object.fromEntries(values.map((v) => [String(v.labels['kind']), v.value]));
}

describe('examples/cluster.yaml through the file source', () => {
  const globalLines: string[] = [];
  const log = capturingLogger();
  let sink: RecordingSink;
  let stop: () => Promise<void>;
  let invalidBefore: Record<string, number>;

  beforeAll(async () => {
    configureLogging({ write: (line) => globalLines.push(line) }); // where reportInvalid writes
    invalidBefore = await invalidCounts();
    ({ sink, stop } = runSource(new FileSource({ path: EXAMPLE, log })));
    await eventually('the initial sync', () => sink.syncedKinds.length === 3);
  });
  afterAll(async () => {
    await stop();
    resetLogging();
  });

  const service = (key: string) => sink.get('Service', key)?.object as ServiceModel;
  const slice = (key: string) => sink.get('EndpointSlice', key)?.object as EndpointSliceModel;

  it('converts every object: nothing invalid, no warnings or errors', async () => {
    expect(await invalidCounts()).toEqual(invalidBefore);
    expect(globalLines.filter((l) => parseLogLine(l)?.severity !== 'info')).toEqual([]);
    expect(log.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
    expect(sink.batches).toHaveLength(1);
  });

  it.each<[ObjectKind, string[]]>([
    // orders-db (headless) and payments (ExternalName) are skipped.
    [
      'Service',
      ['default/kubernetes', 'kube-system/kube-dns', 'shop/cart', 'shop/checkout', 'shop/frontend', 'shop/inventory'],
    ],
    // orders-db's slice carries service.kubernetes.io/headless and is never delivered.
    [
      'EndpointSlice',
      [
        'default/kubernetes',
        'kube-system/kube-dns-m2x8c',
        'shop/cart-4vbn9',
        'shop/cart-r8wzt',
        'shop/checkout-9jd5s',
        'shop/frontend-7kq2d',
        'shop/inventory-2hbq7',
      ],
    ],
    ['Node', ['node-a', 'node-b', 'node-c']],
  ])('delivers the expected %s objects', (kind, keys) => {
    expect(sink.keys(kind)).toEqual(keys);
  });

  it('has the LoadBalancer with ETP Local, health check port, ranges and only its VIP ingress', () => {
    expect(service('shop/frontend')).toMatchObject({
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 32100,
      loadBalancerIPs: ['203.0.113.10'],
      loadBalancerSourceRanges: ['198.18.0.0/16', '203.0.113.0/25'],
      ports: [
        { name: 'http', port: 80, nodePort: 30080, targetPort: 'http' },
        { name: 'https', port: 443, nodePort: 30443, targetPort: 'https' },
      ],
    });
    expect(slice('shop/frontend-7kq2d').endpoints.filter((e) => e.terminating)).toEqual([
      { address: '198.18.2.12', ready: false, serving: true, terminating: true, nodeName: 'node-b', zone: 'zone-b' },
    ]);
  });

  it('has the dual-stack, affinity, ITP Local and zone-hinted Services', () => {
    expect(service('shop/cart').clusterIPs).toEqual(['198.19.1.20', '2001:db8:19::20']);
    expect(slice('shop/cart-r8wzt').addressType).toBe('IPv6');
    expect(service('shop/checkout')).toMatchObject({
      type: 'NodePort',
      externalIPs: ['203.0.113.50'],
      sessionAffinity: { type: 'ClientIP', timeoutSeconds: 3600 },
    });
    expect(service('shop/inventory').internalTrafficPolicy).toBe('Local');
    expect(service('kube-system/kube-dns').trafficDistribution).toBe('PreferClose');
    expect(slice('kube-system/kube-dns-m2x8c').endpoints.map((e) => e.zoneHints)).toEqual([['zone-a'], ['zone-b']]);
  });

  it('reads the nodes with their proxy labels and addresses', () => {
    expect(sink.get('Node', 'node-b')?.object).toEqual({
      name: 'node-b',
      labels: {
        'kubernetes.io/hostname': 'node-b',
        'topology.kubernetes.io/region': 'lab',
        'topology.kubernetes.io/zone': 'zone-b',
      },
      podCIDRs: ['198.18.2.0/24', '2001:db8:0:2::/64'],
      addresses: ['198.18.255.2', '2001:db8:ff::2', '203.0.113.2'],
      eligible: true,
    });
  });
});
