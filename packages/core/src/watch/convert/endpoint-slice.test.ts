import { describe, expect, it } from 'vitest';
import type { EndpointModel, EndpointSliceModel } from '../../model/types.js';
import { convertEndpointSlice, type ConvertedSlice } from './endpoint-slice.js';
import { patched, rawSlice, type Raw } from '../../../test/support/api-objects.js';

function converted(obj: unknown): ConvertedSlice {
  const result = convertEndpointSlice(obj);
  if (!result.ok) throw new Error(`unexpected errors: ${result.errors.join('; ')}`);
  return result.value;
}

function errorsOf(obj: unknown): readonly string[] {
  const result = convertEndpointSlice(obj);
  if (result.ok) throw new Error('expected conversion to fail');
  return result.errors;
}

const variant = (...changes: [string, unknown][]): Raw =>
  changes.reduce((obj, [path, value]) => patched(obj, path, value), rawSlice);
const endpoint = (fields: Record<string, unknown>): Raw =>
  variant(['endpoints', [{ addresses: ['198.18.1.5'], ...fields }]]);

describe('convertEndpointSlice', () => {
  it('converts a slice and its trigger time', () => {
    expect(converted(rawSlice)).toEqual({
      slice: {
        namespace: 'shop',
        name: 'web-abc12',
        serviceName: 'web',
        addressType: 'IPv4',
        ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
        endpoints: [
          { address: '198.18.1.5', ready: true, serving: true, terminating: false, nodeName: 'node-a', zone: 'zone-a' },
        ],
      } satisfies EndpointSliceModel,
      triggerTime: Date.UTC(2025, 2, 1, 10, 0, 0),
    });
  });

  it.each<[string, Raw, Partial<EndpointModel>]>([
    [
      'nil conditions default to ready, serving, not terminating',
      endpoint({}),
      { ready: true, serving: true, terminating: false },
    ],
    [
      'explicit conditions kept',
      endpoint({ conditions: { ready: false, serving: true, terminating: true } }),
      { ready: false, serving: true, terminating: true },
    ],
    ['only addresses[0] is used', endpoint({ addresses: ['198.18.1.7', '198.18.1.8'] }), { address: '198.18.1.7' }],
    [
      'zone hints sorted',
      endpoint({ hints: { forZones: [{ name: 'zone-b' }, { name: 'zone-a' }] } }),
      { zoneHints: ['zone-a', 'zone-b'] },
    ],
    [
      'node hints sorted',
      endpoint({ hints: { forNodes: [{ name: 'node-b' }, { name: 'node-a' }] } }),
      { nodeHints: ['node-a', 'node-b'] },
    ],
  ])('%s', (_name, raw, expected) => {
    expect(converted(raw).slice?.endpoints[0]).toMatchObject(expected);
  });

  it('has no hint fields when there are no hints', () => {
    const model = converted(endpoint({ hints: { forZones: [] } })).slice!.endpoints[0]!;
    expect('zoneHints' in model).toBe(false);
    expect('nodeHints' in model).toBe(false);
  });

  it('canonicalises IPv6 endpoint addresses', () => {
    const raw = variant(['addressType', 'IPv6'], ['endpoints', [{ addresses: ['2001:DB8:0:0::1'] }]]);
    expect(converted(raw).slice?.endpoints[0]?.address).toBe('2001:db8::1');
  });

  it.each<[string, Raw, number]>([
    [
      'endpoints without addresses are skipped',
      variant(['endpoints', [{ addresses: [] }, { conditions: {} }, { addresses: ['198.18.1.9'] }]]),
      1,
    ],
    ['missing endpoints list means none', variant(['endpoints', undefined]), 0],
  ])('%s', (_name, raw, count) => {
    expect(converted(raw).slice?.endpoints).toHaveLength(count);
  });

  it.each<[string, unknown[], string[]]>([
    [
      'port 0 is ignored',
      [
        { name: 'a', port: 0 },
        { name: 'b', port: 81 },
      ],
      ['b'],
    ],
    ['nil port number is ignored', [{ name: 'a' }, { name: 'b', port: 81 }], ['b']],
    ['nil port name is ignored', [{ port: 80 }, { name: '', port: 81 }], ['']],
  ])('%s', (_name, ports, names) => {
    expect(converted(variant(['ports', ports])).slice?.ports.map((p) => p.name)).toEqual(names);
  });

  it.each<[string, Raw]>([
    ['no service-name label', variant(['metadata.labels', { app: 'web' }])],
    ['empty service-name label', variant(['metadata.labels', { 'kubernetes.io/service-name': '' }])],
    ['FQDN address type', variant(['addressType', 'FQDN'], ['endpoints', [{ addresses: ['web.example.com'] }]])],
  ])('ignores a slice with %s (null)', (_name, raw) => {
    expect(converted(raw)).toEqual({ slice: null });
  });

  it.each<[string, string | undefined, number | undefined]>([
    ['RFC3339', '2025-03-01T10:00:00Z', Date.UTC(2025, 2, 1, 10)],
    ['missing', undefined, undefined],
    ['unparsable', 'yesterday', undefined],
  ])('trigger time: %s', (_name, annotation, expected) => {
    const raw = variant([
      'metadata.annotations',
      annotation === undefined ? {} : { 'endpoints.kubernetes.io/last-change-trigger-time': annotation },
    ]);
    expect(converted(raw).triggerTime).toBe(expected);
  });

  it.each<[string, unknown, string]>([
    ['not an object', 42, 'must be an object'],
    ['no metadata', variant(['metadata', undefined]), 'metadata: is required'],
    [
      '1 MB name',
      variant(['metadata.name', 'x'.repeat(1 << 20)]),
      'metadata.name: must be no more than 253 characters, got 1048576',
    ],
    ['no address type', variant(['addressType', undefined]), 'addressType: is required'],
    [
      'unknown address type',
      variant(['addressType', 'IPX']),
      'addressType: must be one of IPv4, IPv6, FQDN, got "IPX"',
    ],
    [
      'bad address',
      endpoint({ addresses: ['198.18.1.500'] }),
      'endpoints[0].addresses[0]: must be a valid IPv4 address, got "198.18.1.500"',
    ],
    [
      'address of the other family',
      endpoint({ addresses: ['2001:db8::1'] }),
      'endpoints[0].addresses[0]: must be a valid IPv4 address, got "2001:db8::1"',
    ],
    ['address of the wrong type', endpoint({ addresses: [7] }), 'endpoints[0].addresses[0]: must be a string, got 7'],
    [
      'ready of the wrong type',
      endpoint({ conditions: { ready: 'yes' } }),
      'endpoints[0].conditions.ready: must be a boolean, got "yes"',
    ],
    ['bad node name', endpoint({ nodeName: 'Node_A' }), 'endpoints[0].nodeName: must be a DNS-1123 subdomain'],
    [
      'hint without a name',
      endpoint({ hints: { forZones: [{}] } }),
      'endpoints[0].hints.forZones[0].name: is required',
    ],
    [
      'negative port',
      variant(['ports', [{ name: 'a', port: -1 }]]),
      'ports[0].port: must be between 0 and 65535, got -1',
    ],
    [
      'port too large',
      variant(['ports', [{ name: 'a', port: 70000 }]]),
      'ports[0].port: must be between 0 and 65535, got 70000',
    ],
    [
      'bad protocol',
      variant(['ports', [{ name: 'a', port: 1, protocol: 'tcp' }]]),
      'ports[0].protocol: must be one of TCP, UDP, SCTP, got "tcp"',
    ],
    ['ports of the wrong type', variant(['ports', 'http']), 'ports: must be a list, got "http"'],
    ['endpoints of the wrong type', variant(['endpoints', {}]), 'endpoints: must be a list, got an object'],
    [
      'bad service name',
      variant(['metadata.labels', { 'kubernetes.io/service-name': 'Web' }]),
      'metadata.labels.kubernetes.io/service-name: must be a DNS-1123 label',
    ],
  ])('rejects %s', (_name, raw, expected) => {
    expect(errorsOf(raw).some((e) => e.startsWith(expected))).toBe(true);
  });
});
