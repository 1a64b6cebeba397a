import { describe, expect, it } from 'vitest';
import type { ServiceModel } from '../../model/types.js';
import { convertService } from './service.js';
import { patched, rawService, type Raw } from '../../../test/support/api-objects.js';

function converted(obj: unknown): ServiceModel | null {
  const result = convertService(obj);
  if (!result.ok) throw new Error(`unexpected errors: ${result.errors.join('; ')}`);
  return result.value;
}

function errorsOf(obj: unknown): readonly string[] {
  const result = convertService(obj);
  if (result.ok) throw new Error('expected conversion to fail');
  return result.errors;
}

const variant = (...changes: [string, unknown][]): Raw =>
  changes.reduce((obj, [path, value]) => patched(obj, path, value), rawService);

describe('convertService', () => {
  it('converts a plain ClusterIP Service with defaults applied', () => {
    expect(converted(rawService)).toEqual({
      namespace: 'shop',
      name: 'web',
      type: 'ClusterIP',
      clusterIPs: ['198.19.0.10'],
      externalIPs: [],
      loadBalancerIPs: [],
      loadBalancerSourceRanges: [],
      ports: [
        { name: 'http', protocol: 'TCP', port: 80, nodePort: 0, targetPort: 8080 },
        { name: 'dns', protocol: 'UDP', port: 53, nodePort: 0, targetPort: 'dns' },
      ],
      sessionAffinity: { type: 'None' },
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      healthCheckNodePort: 0,
    } satisfies ServiceModel);
  });

  it.each<[string, Raw, Partial<ServiceModel>]>([
    ['clusterIPs falls back to clusterIP', variant(['spec.clusterIPs', undefined]), { clusterIPs: ['198.19.0.10'] }],
    ['empty clusterIPs falls back to clusterIP', variant(['spec.clusterIPs', []]), { clusterIPs: ['198.19.0.10'] }],
    [
      'dual-stack keeps spec order, canonical',
      variant(['spec.clusterIPs', ['2001:DB8:0:0::1', '198.19.0.10']]),
      { clusterIPs: ['2001:db8::1', '198.19.0.10'] },
    ],
    ['IPv6 normalisation', variant(['spec.clusterIPs', ['2001:DB8:0:0::1']]), { clusterIPs: ['2001:db8::1'] }],
    ['missing namespace means default', variant(['metadata.namespace', undefined]), { namespace: 'default' }],
    [
      'protocol defaults to TCP',
      variant(['spec.ports', [{ name: 'a', port: 81 }]]),
      { ports: [{ name: 'a', protocol: 'TCP', port: 81, nodePort: 0, targetPort: 81 }] },
    ],
    [
      'targetPort 0 means port',
      variant(['spec.ports', [{ port: 81, targetPort: 0 }]]),
      { ports: [{ name: '', protocol: 'TCP', port: 81, nodePort: 0, targetPort: 81 }] },
    ],
    [
      'targetPort of digits is a number',
      variant(['spec.ports', [{ port: 81, targetPort: '9090' }]]),
      { ports: [{ name: '', protocol: 'TCP', port: 81, nodePort: 0, targetPort: 9090 }] },
    ],
    [
      'SCTP and nodePort',
      variant(['spec.type', 'NodePort'], ['spec.ports', [{ name: 's', protocol: 'SCTP', port: 9, nodePort: 30009 }]]),
      { type: 'NodePort', ports: [{ name: 's', protocol: 'SCTP', port: 9, nodePort: 30009, targetPort: 9 }] },
    ],
    [
      'externalIPs canonical, sorted, de-duplicated',
      variant(['spec.externalIPs', ['203.0.113.9', '2001:DB8::cb00:71fa', '203.0.113.1', '203.0.113.9']]),
      { externalIPs: ['2001:db8::cb00:71fa', '203.0.113.1', '203.0.113.9'] },
    ],
    [
      'LB ingress: VIP and unset ipMode kept; Proxy and hostnames ignored',
      variant(
        ['spec.type', 'LoadBalancer'],
        [
          'status.loadBalancer.ingress',
          [
            { ip: '203.0.113.20', ipMode: 'VIP' },
            { ip: '203.0.113.10' },
            { ip: '203.0.113.30', ipMode: 'Proxy' },
            { hostname: 'lb.example.com' },
          ],
        ],
      ),
      { type: 'LoadBalancer', loadBalancerIPs: ['203.0.113.10', '203.0.113.20'] },
    ],
    [
      'source ranges trimmed, canonical, sorted',
      variant(['spec.loadBalancerSourceRanges', [' 203.0.113.0/24 ', '198.18.7.7/16', '2001:DB8::/32']]),
      { loadBalancerSourceRanges: ['198.18.0.0/16', '2001:db8::/32', '203.0.113.0/24'] },
    ],
    [
      'ClientIP affinity default timeout',
      variant(['spec.sessionAffinity', 'ClientIP']),
      { sessionAffinity: { type: 'ClientIP', timeoutSeconds: 10800 } },
    ],
    [
      'ClientIP affinity explicit timeout',
      variant(
        ['spec.sessionAffinity', 'ClientIP'],
        ['spec.sessionAffinityConfig', { clientIP: { timeoutSeconds: 125 } }],
      ),
      { sessionAffinity: { type: 'ClientIP', timeoutSeconds: 125 } },
    ],
    [
      'affinity None ignores config',
      variant(['spec.sessionAffinityConfig', { clientIP: { timeoutSeconds: 5 } }]),
      { sessionAffinity: { type: 'None' } },
    ],
    [
      'traffic policies and health check port',
      variant(
        ['spec.externalTrafficPolicy', 'Local'],
        ['spec.internalTrafficPolicy', 'Local'],
        ['spec.healthCheckNodePort', 32000],
      ),
      { externalTrafficPolicy: 'Local', internalTrafficPolicy: 'Local', healthCheckNodePort: 32000 },
    ],
    [
      'internalTrafficPolicy null is Cluster',
      variant(['spec.internalTrafficPolicy', null]),
      { internalTrafficPolicy: 'Cluster' },
    ],
    [
      'trafficDistribution',
      variant(['spec.trafficDistribution', 'PreferClose']),
      { trafficDistribution: 'PreferClose' },
    ],
    [
      'the preserve-destination annotation',
      variant(['metadata.annotations', { 'preserve-destination': 'true' }]),
      { preserveDestination: true },
    ],
  ])('%s', (_name, raw, expected) => {
    expect(converted(raw)).toMatchObject(expected);
  });

  it.each<[string, Record<string, string> | undefined]>([
    ['no annotations', undefined],
    ['"false"', { 'preserve-destination': 'false' }],
    ['"True" (upstream compares with "true" exactly)', { 'preserve-destination': 'True' }],
    ['an empty value', { 'preserve-destination': '' }],
    ['a prefixed key', { 'service.kubernetes.io/preserve-destination': 'true' }],
  ])('preserve-destination stays off (the field absent) with %s', (_name, annotations) => {
    expect(converted(variant(['metadata.annotations', annotations]))).not.toHaveProperty('preserveDestination');
  });

  it.each<[string, Raw]>([
    ['headless (None)', variant(['spec.clusterIP', 'None'], ['spec.clusterIPs', ['None']], ['spec.ports', []])],
    ['no cluster IP at all', variant(['spec.clusterIP', undefined], ['spec.clusterIPs', undefined])],
    ['empty cluster IP', variant(['spec.clusterIP', ''], ['spec.clusterIPs', undefined])],
    [
      'ExternalName',
      variant(
        ['spec.type', 'ExternalName'],
        ['spec.clusterIP', undefined],
        ['spec.clusterIPs', undefined],
        ['spec.externalName', 'db.example.com'],
      ),
    ],
  ])('ignores %s (null)', (_name, raw) => {
    expect(converted(raw)).toBeNull();
  });

  it.each<[string, unknown, string]>([
    ['not an object', 'Service', 'must be an object'],
    ['an array', [], 'must be an object'],
    ['no metadata', variant(['metadata', undefined]), 'metadata: is required'],
    ['metadata of the wrong type', variant(['metadata', 'web']), 'metadata: must be an object, got "web"'],
    ['no name', variant(['metadata.name', undefined]), 'metadata.name: is required'],
    ['name of the wrong type', variant(['metadata.name', 42]), 'metadata.name: must be a string, got 42'],
    [
      '1 MB name',
      variant(['metadata.name', 'a'.repeat(1 << 20)]),
      'metadata.name: must be no more than 253 characters, got 1048576',
    ],
    ['upper-case name', variant(['metadata.name', 'Web']), 'metadata.name: must be a DNS-1123 subdomain'],
    [
      'namespace too long',
      variant(['metadata.namespace', 'n'.repeat(64)]),
      'metadata.namespace: must be no more than 63 characters, got 64',
    ],
    [
      'label of the wrong type',
      variant(['metadata.labels', { app: 1 }]),
      'metadata.labels.app: must be a string, got 1',
    ],
    ['no spec', variant(['spec', undefined]), 'spec: is required'],
    [
      'unknown type',
      variant(['spec.type', 'Magic']),
      'spec.type: must be one of ClusterIP, NodePort, LoadBalancer, ExternalName, got "Magic"',
    ],
    ['no ports', variant(['spec.ports', undefined]), 'spec.ports: is required'],
    ['empty ports', variant(['spec.ports', []]), 'spec.ports: must have at least one port'],
    ['ports of the wrong type', variant(['spec.ports', { port: 80 }]), 'spec.ports: must be a list, got an object'],
    ['port 0', variant(['spec.ports.1.port', 0]), 'spec.ports[1].port: must be between 1 and 65535, got 0'],
    [
      'port too large',
      variant(['spec.ports.0.port', 65536]),
      'spec.ports[0].port: must be between 1 and 65535, got 65536',
    ],
    ['port as a string', variant(['spec.ports.0.port', '80']), 'spec.ports[0].port: must be an integer, got "80"'],
    ['port not an integer', variant(['spec.ports.0.port', 80.5]), 'spec.ports[0].port: must be an integer, got 80.5'],
    ['missing port number', variant(['spec.ports.0.port', undefined]), 'spec.ports[0].port: is required'],
    [
      'nodePort out of range',
      variant(['spec.ports.0.nodePort', -1]),
      'spec.ports[0].nodePort: must be between 0 and 65535, got -1',
    ],
    [
      'bad protocol',
      variant(['spec.ports.0.protocol', 'ICMP']),
      'spec.ports[0].protocol: must be one of TCP, UDP, SCTP, got "ICMP"',
    ],
    [
      'bad target port name',
      variant(['spec.ports.0.targetPort', 'Not_A_Name']),
      'spec.ports[0].targetPort: must be a valid port name',
    ],
    [
      'target port out of range',
      variant(['spec.ports.0.targetPort', 70000]),
      'spec.ports[0].targetPort: must be between 1 and 65535, got 70000',
    ],
    ['bad port name', variant(['spec.ports.0.name', 'HTTP']), 'spec.ports[0].name: must be a DNS-1123 label'],
    [
      'duplicate port key',
      variant(['spec.ports.1', { name: 'http', protocol: 'TCP', port: 81 }]),
      'spec.ports[1]: duplicate port name "http" for protocol TCP',
    ],
    [
      'bad cluster IP',
      variant(['spec.clusterIPs', ['198.19.0.300']]),
      'spec.clusterIPs[0]: must be a valid IP address, got "198.19.0.300"',
    ],
    [
      'bad legacy cluster IP',
      variant(['spec.clusterIPs', undefined], ['spec.clusterIP', 'nope']),
      'spec.clusterIP: must be a valid IP address, got "nope"',
    ],
    [
      'two IPs of one family',
      variant(['spec.clusterIPs', ['198.19.0.10', '198.19.0.11']]),
      'spec.clusterIPs[1]: must not be a second IPv4 address (198.19.0.10 is one), got "198.19.0.11"',
    ],
    [
      'bad external IP',
      variant(['spec.externalIPs', ['203.0.113.1', 'x']]),
      'spec.externalIPs[1]: must be a valid IP address, got "x"',
    ],
    [
      'bad LB IP',
      variant(['status.loadBalancer.ingress', [{ ip: '203.0.113' }]]),
      'status.loadBalancer.ingress[0].ip: must be a valid IP address, got "203.0.113"',
    ],
    [
      'bad source range',
      variant(['spec.loadBalancerSourceRanges', ['203.0.113.0/33']]),
      'spec.loadBalancerSourceRanges[0]: must be a valid CIDR, got "203.0.113.0/33"',
    ],
    [
      'affinity timeout 0',
      variant(
        ['spec.sessionAffinity', 'ClientIP'],
        ['spec.sessionAffinityConfig', { clientIP: { timeoutSeconds: 0 } }],
      ),
      'spec.sessionAffinityConfig.clientIP.timeoutSeconds: must be between 1 and 86400, got 0',
    ],
    [
      'affinity timeout too long',
      variant(
        ['spec.sessionAffinity', 'ClientIP'],
        ['spec.sessionAffinityConfig', { clientIP: { timeoutSeconds: 86401 } }],
      ),
      'spec.sessionAffinityConfig.clientIP.timeoutSeconds: must be between 1 and 86400, got 86401',
    ],
    [
      'bad affinity',
      variant(['spec.sessionAffinity', 'Cookie']),
      'spec.sessionAffinity: must be one of None, ClientIP, got "Cookie"',
    ],
    [
      'bad ETP',
      variant(['spec.externalTrafficPolicy', 'Global']),
      'spec.externalTrafficPolicy: must be one of Cluster, Local, got "Global"',
    ],
    [
      'bad health check port',
      variant(['spec.healthCheckNodePort', 70000]),
      'spec.healthCheckNodePort: must be between 0 and 65535, got 70000',
    ],
  ])('rejects %s', (_name, raw, expected) => {
    expect(errorsOf(raw).some((e) => e.startsWith(expected))).toBe(true);
  });

  it('reports every problem at once', () => {
    const errors = errorsOf(variant(['spec.ports.0.port', 0], ['spec.externalIPs', ['x']]));
    expect(errors).toHaveLength(2);
  });

  it('keeps error messages short for huge values', () => {
    const [error] = errorsOf(variant(['spec.externalIPs', ['9'.repeat(1 << 20)]]));
    expect(error!.length).toBeLessThan(200);
  });

  it('gives equal models for equal content in a different order', () => {
    const a = variant(
      ['spec.externalIPs', ['203.0.113.1', '203.0.113.2']],
      ['spec.loadBalancerSourceRanges', ['203.0.113.0/24', '198.18.0.0/16']],
    );
    const b = variant(
      ['spec.externalIPs', ['203.0.113.2', '203.0.113.1']],
      ['spec.loadBalancerSourceRanges', ['198.18.0.0/16', '203.0.113.0/24']],
    );
    expect(JSON.stringify(converted(a))).toBe(JSON.stringify(converted(b)));
  });
});
