import { describe, expect, test } from 'vitest';
import { convertNamespace, convertNetworkPolicy, convertPod, POLICY_LIMITS } from './convert.js';

const meta = { namespace: 'default', name: 'np' };

function errors(result: { ok: boolean; errors?: readonly string[] }): readonly string[] {
  return result.ok ? [] : (result.errors ?? []);
}

describe('convertNetworkPolicy', () => {
  test.each([
    ['no rules: Ingress only', { podSelector: {} }, ['Ingress']],
    ['ingress rules: Ingress', { podSelector: {}, ingress: [{}] }, ['Ingress']],
    ['egress rules: Ingress and Egress', { podSelector: {}, egress: [{}] }, ['Ingress', 'Egress']],
    ['empty egress list: Ingress only', { podSelector: {}, egress: [] }, ['Ingress']],
    [
      'given types are kept, in canonical order',
      { podSelector: {}, policyTypes: ['Egress', 'Ingress'] },
      ['Ingress', 'Egress'],
    ],
    ['Egress alone', { podSelector: {}, policyTypes: ['Egress'] }, ['Egress']],
  ])('policyTypes defaulting: %s', (_name, spec, expected) => {
    const result = convertNetworkPolicy({ metadata: meta, spec });
    expect(result.ok && result.value.policyTypes).toEqual(expected);
  });

  test('an empty from list means every peer; ports default to TCP', () => {
    const result = convertNetworkPolicy({
      metadata: meta,
      spec: { podSelector: {}, ingress: [{ from: [], ports: [{ port: '80' }, { port: 'http' }] }] },
    });
    expect(result.ok && result.value.ingress).toEqual([
      {
        ports: [
          { protocol: 'TCP', port: 80 },
          { protocol: 'TCP', port: 'http' },
        ],
      },
    ]);
  });

  test('selectors and ipBlocks come out canonical', () => {
    const result = convertNetworkPolicy({
      metadata: meta,
      spec: {
        podSelector: {
          matchLabels: { b: '2', a: '1' },
          matchExpressions: [{ key: 'k', operator: 'In', values: ['y', 'x', 'y'] }],
        },
        ingress: [{ from: [{ ipBlock: { cidr: '2001:DB8:0:0::/32', except: ['2001:db8:0:1::/64'] } }] }],
      },
    });
    expect(result.ok && result.value.podSelector).toEqual({
      matchLabels: { a: '1', b: '2' },
      matchExpressions: [{ key: 'k', operator: 'In', values: ['x', 'y'] }],
    });
    expect(result.ok && result.value.ingress[0]?.peers).toEqual([
      { ipBlock: { cidr: '2001:db8::/32', except: ['2001:db8:0:1::/64'] } },
    ]);
  });

  test.each([
    [
      'a bad operator',
      { podSelector: { matchExpressions: [{ key: 'k', operator: 'Gt', values: ['1'] }] } },
      'must be one of',
    ],
    ['In without values', { podSelector: { matchExpressions: [{ key: 'k', operator: 'In' }] } }, 'must be non-empty'],
    [
      'Exists with values',
      { podSelector: { matchExpressions: [{ key: 'k', operator: 'Exists', values: ['x'] }] } },
      'must be empty',
    ],
    ['an invalid CIDR', { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '300.1.1.1/8' } }] }] }, 'valid CIDR'],
    [
      'an except outside the block',
      { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '198.18.0.0/16', except: ['10.0.0.0/8'] } }] }] },
      'must be inside',
    ],
    [
      'ipBlock with a selector',
      { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '198.18.0.0/16' }, podSelector: {} }] }] },
      'may not be combined',
    ],
    ['an empty peer', { podSelector: {}, ingress: [{ from: [{}] }] }, 'must specify'],
    [
      'endPort with a named port',
      { podSelector: {}, ingress: [{ ports: [{ port: 'http', endPort: 90 }] }] },
      'requires a numeric port',
    ],
    [
      'endPort below port',
      { podSelector: {}, ingress: [{ ports: [{ port: 90, endPort: 80 }] }] },
      'must be at least port 90',
    ],
    ['port out of range', { podSelector: {}, ingress: [{ ports: [{ port: 70000 }] }] }, 'between 1 and 65535'],
    [
      'a bad protocol',
      { podSelector: {}, ingress: [{ ports: [{ protocol: 'ICMP' }] }] },
      'must be one of TCP, UDP, SCTP',
    ],
    ['a bad policy type', { podSelector: {}, policyTypes: ['Sideways'] }, 'must be one of Ingress, Egress'],
    [
      'too many rules',
      { podSelector: {}, ingress: Array.from({ length: POLICY_LIMITS.rules + 1 }, () => ({})) },
      'at most',
    ],
    [
      'a port name of 1 MB',
      { podSelector: {}, ingress: [{ ports: [{ port: 'x'.repeat(1 << 20) }] }] },
      '(1048576 characters)',
    ],
  ])('refuses %s with a clear error', (_name, spec, message) => {
    const found = errors(convertNetworkPolicy({ metadata: meta, spec }));
    expect(found.join('\n')).toContain(message);
  });

  test('refuses what is not an object', () => {
    expect(errors(convertNetworkPolicy('np'))).toEqual(['must be an object']);
    expect(errors(convertNetworkPolicy({ metadata: meta, spec: [] })).join()).toContain('must be an object');
  });
});

describe('convertPod', () => {
  const raw = (status: object, spec: object = {}) => ({
    metadata: { namespace: 'ns', name: 'p', labels: { z: '1', a: '2' } },
    spec: { nodeName: 'n', ...spec },
    status,
  });

  test('reduces a pod to IPs, labels, node and named ports', () => {
    const result = convertPod(
      raw(
        { phase: 'Running', podIPs: [{ ip: '198.18.1.10' }, { ip: '2001:DB8::10' }] },
        {
          containers: [
            { name: 'a', ports: [{ name: 'http', containerPort: 80 }, { containerPort: 81 }] },
            { name: 'b', ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }] },
          ],
        },
      ),
    );
    expect(result).toEqual({
      ok: true,
      value: {
        namespace: 'ns',
        name: 'p',
        ips: ['198.18.1.10', '2001:db8::10'],
        labels: { a: '2', z: '1' },
        nodeName: 'n',
        hostNetwork: false,
        ports: [
          { name: 'dns', protocol: 'UDP', port: 53 },
          { name: 'http', protocol: 'TCP', port: 80 },
        ],
      },
    });
  });

  test('a terminated pod has no IPs; podIP is read when podIPs is absent', () => {
    expect(convertPod(raw({ phase: 'Succeeded', podIPs: [{ ip: '198.18.1.10' }] }))).toMatchObject({
      value: { ips: [] },
    });
    expect(convertPod(raw({ podIP: '198.18.1.10' }))).toMatchObject({ value: { ips: ['198.18.1.10'] } });
  });

  test('refuses a bad IP', () => {
    expect(errors(convertPod(raw({ podIPs: [{ ip: 'nope' }] }))).join()).toContain('must be a valid IP address');
  });
});

describe('convertNamespace', () => {
  test('keeps the labels, sorted', () => {
    expect(convertNamespace({ metadata: { name: 'ns', labels: { b: '1', a: '2' } } })).toEqual({
      ok: true,
      value: { name: 'ns', labels: { a: '2', b: '1' } },
    });
  });
});
