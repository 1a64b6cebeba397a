import { describe, expect, it } from 'vitest';
import type { NodeModel } from '../../model/types.js';
import { convertNode } from './node.js';
import { patched, rawNode, type Raw } from '../../../test/support/api-objects.js';

function converted(obj: unknown): NodeModel {
  const result = convertNode(obj);
  if (!result.ok) throw new Error(`unexpected errors: ${result.errors.join('; ')}`);
  return result.value;
}

function errorsOf(obj: unknown): readonly string[] {
  const result = convertNode(obj);
  if (result.ok) throw new Error('expected conversion to fail');
  return result.errors;
}

const variant = (...changes: [string, unknown][]): Raw =>
  changes.reduce((obj, [path, value]) => patched(obj, path, value), rawNode);

describe('convertNode', () => {
  it('keeps only proxy labels, pod CIDRs, InternalIP then ExternalIP', () => {
    expect(converted(rawNode)).toEqual({
      name: 'node-a',
      labels: { 'kubernetes.io/hostname': 'node-a', 'topology.kubernetes.io/zone': 'zone-a' },
      podCIDRs: ['198.18.1.0/24', '2001:db8:1::/64'],
      addresses: ['198.18.255.1', '203.0.113.11'],
      eligible: true,
    } satisfies NodeModel);
  });

  it.each<[string, Raw, Partial<NodeModel>]>([
    ['podCIDR fallback', variant(['spec.podCIDRs', undefined]), { podCIDRs: ['198.18.1.0/24'] }],
    ['no pod CIDRs', variant(['spec', {}]), { podCIDRs: [] }],
    ['IPv6 CIDR canonical', variant(['spec.podCIDRs', ['2001:DB8:0001::/64']]), { podCIDRs: ['2001:db8:1::/64'] }],
    [
      'region label kept',
      variant(['metadata.labels', { 'topology.kubernetes.io/region': 'r1', team: 'x' }]),
      { labels: { 'topology.kubernetes.io/region': 'r1' } },
    ],
    ['no status', variant(['status', undefined]), { addresses: [] }],
    ['being deleted', variant(['metadata.deletionTimestamp', '2025-03-01T10:00:00Z']), { eligible: false }],
    [
      'autoscaler taint',
      variant(['spec.taints', [{ key: 'ToBeDeletedByClusterAutoscaler', value: '1700000000', effect: 'NoSchedule' }]]),
      { eligible: false },
    ],
    [
      'other taints are fine',
      variant(['spec.taints', [{ key: 'dedicated', effect: 'NoSchedule' }]]),
      { eligible: true },
    ],
    [
      'duplicate addresses once',
      variant([
        'status.addresses',
        [
          { type: 'InternalIP', address: '198.18.255.1' },
          { type: 'ExternalIP', address: '198.18.255.1' },
        ],
      ]),
      { addresses: ['198.18.255.1'] },
    ],
  ])('%s', (_name, raw, expected) => {
    expect(converted(raw)).toEqual({ ...converted(rawNode), ...expected });
  });

  it('gives equal labels whatever their order', () => {
    const reordered = variant([
      'metadata.labels',
      { 'topology.kubernetes.io/zone': 'zone-a', 'kubernetes.io/hostname': 'node-a' },
    ]);
    expect(JSON.stringify(converted(reordered))).toBe(JSON.stringify(converted(rawNode)));
  });

  it.each<[string, unknown, string]>([
    ['not an object', null, 'must be an object'],
    ['no metadata', variant(['metadata', undefined]), 'metadata: is required'],
    [
      '1 MB name',
      variant(['metadata.name', 'n'.repeat(1 << 20)]),
      'metadata.name: must be no more than 253 characters',
    ],
    [
      'bad pod CIDR',
      variant(['spec.podCIDRs', ['198.18.1.0/40']]),
      'spec.podCIDRs[0]: must be a valid CIDR, got "198.18.1.0/40"',
    ],
    [
      'bad legacy pod CIDR',
      variant(['spec.podCIDRs', undefined], ['spec.podCIDR', 'x']),
      'spec.podCIDR: must be a valid CIDR, got "x"',
    ],
    [
      'bad InternalIP',
      variant(['status.addresses', [{ type: 'InternalIP', address: '198.18.255' }]]),
      'status.addresses[0].address: InternalIP must be a valid IP address, got "198.18.255"',
    ],
    ['addresses of the wrong type', variant(['status.addresses', 'x']), 'status.addresses: must be a list, got "x"'],
    [
      'label of the wrong type',
      variant(['metadata.labels', { 'topology.kubernetes.io/zone': 3 }]),
      'metadata.labels.topology.kubernetes.io/zone: must be a string, got 3',
    ],
  ])('rejects %s', (_name, raw, expected) => {
    expect(errorsOf(raw).some((e) => e.startsWith(expected))).toBe(true);
  });
});
