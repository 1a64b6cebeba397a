import { describe, expect, it } from 'vitest';
import { ConfigDecodeError, decodeConfiguration } from './decode.js';

const HEAD = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n';

describe('decodeConfiguration', () => {
  it('reads YAML: durations, nested sections, lists, maps', () => {
    const { config, warnings } = decodeConfiguration(
      HEAD +
        [
          'mode: nftables',
          'clusterCIDR: 198.18.0.0/16,2001:db8::/48',
          'nodePortAddresses: [198.18.255.0/24]',
          'featureGates: {SomeGate: true}',
          'nftables:',
          '  syncPeriod: 1m30s',
          '  minSyncPeriod: 0s',
          '  masqueradeBit: 13',
          'conntrack:',
          '  maxPerCore: 0',
          '  tcpBeLiberal: true',
          'clientConnection:',
          '  qps: 7.5',
          'logging:',
          '  vmodule: [{filePattern: proxier, verbosity: 4}]',
          '  flushFrequency: 1000000000',
        ].join('\n'),
    );
    expect(config).toEqual({
      mode: 'nftables',
      clusterCIDR: '198.18.0.0/16,2001:db8::/48',
      nodePortAddresses: ['198.18.255.0/24'],
      featureGates: { SomeGate: true },
      nftables: { syncPeriod: 90_000, minSyncPeriod: 0, masqueradeBit: 13 },
      conntrack: { maxPerCore: 0, tcpBeLiberal: true },
      clientConnection: { qps: 7.5 },
      logging: { vmodule: [{ filePattern: 'proxier', verbosity: 4 }], flushFrequency: 1_000 },
    });
    expect(warnings).toEqual([]);
  });

  it('reads the same configuration as JSON', () => {
    const json = JSON.stringify({
      apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
      kind: 'KubeProxyConfiguration',
      mode: 'nftables',
      nftables: { syncPeriod: '1m30s' },
    });
    expect(decodeConfiguration(json).config).toEqual({ mode: 'nftables', nftables: { syncPeriod: 90_000 } });
  });

  it('leaves null fields unset, as Go does', () => {
    expect(decodeConfiguration(`${HEAD}nodePortAddresses: null\nnftables:\n  masqueradeBit: null\n`).config).toEqual({
      nftables: {},
    });
  });

  it('skips fields kube-proxy removed, with a warning naming them', () => {
    const { config, warnings } = decodeConfiguration(`${HEAD}udpIdleTimeout: 250ms\nmode: nftables\n`);
    expect(config).toEqual({ mode: 'nftables' });
    expect(warnings).toEqual(['field "udpIdleTimeout" is no longer used by kube-proxy and is ignored']);
  });

  // Upstream's loadConfig: strict first, then lenient with the strict error logged.
  it.each([
    [
      'an unknown top-level field',
      `${HEAD}mode: nftables\nproxyMode: nftables\n`,
      'strict decoding error: unknown field "proxyMode"',
      { mode: 'nftables' },
    ],
    [
      'unknown nested fields, every one',
      `${HEAD}nftables:\n  syncPeriodd: 1s\n  minSyncPeriod: 2s\nconntrack:\n  max: 5\n`,
      'strict decoding error: unknown field "nftables.syncPeriodd", unknown field "conntrack.max"',
      { nftables: { minSyncPeriod: 2000 }, conntrack: {} },
    ],
    [
      'an unknown field in a list item',
      `${HEAD}logging:\n  vmodule: [{file: x, verbosity: 1}]\n`,
      'strict decoding error: unknown field "logging.vmodule[0].file"',
      { logging: { vmodule: [{ verbosity: 1 }] } },
    ],
    [
      'a duplicate field (the last wins)',
      `${HEAD}nftables:\n  syncPeriod: 1s\n  syncPeriod: 2s\n`,
      'strict decoding error: duplicate field "syncPeriod" (line 5)',
      { nftables: { syncPeriod: 2000 } },
    ],
  ])('loads %s leniently, logging the strict error; strict: true refuses it', (_name, text, strictError, config) => {
    const decoded = decodeConfiguration(text);
    expect(decoded.config).toEqual(config);
    expect(decoded.warnings).toEqual([`Using lenient decoding as strict decoding failed: ${strictError}`]);
    expect(() => decodeConfiguration(text, { strict: true })).toThrow(new ConfigDecodeError(strictError));
  });

  it.each([
    [
      'a string where a number belongs',
      `${HEAD}nftables:\n  masqueradeBit: "14"\n`,
      'failed to decode: cannot unmarshal string into Go struct field KubeProxyConfiguration.nftables.masqueradeBit of type int32',
    ],
    [
      'an int32 out of range',
      `${HEAD}conntrack:\n  min: 4294967296\n`,
      'failed to decode: cannot unmarshal number 4294967296 into Go struct field KubeProxyConfiguration.conntrack.min of type int32',
    ],
    [
      'a string where a bool belongs (YAML 1.2: yes is a string)',
      `${HEAD}nftables:\n  masqueradeAll: yes\n`,
      'failed to decode: cannot unmarshal string into Go struct field KubeProxyConfiguration.nftables.masqueradeAll of type bool',
    ],
    [
      'a bad duration',
      `${HEAD}nftables:\n  syncPeriod: 30\n`,
      'failed to decode: cannot unmarshal number 30 into Go struct field KubeProxyConfiguration.nftables.syncPeriod of type v1.Duration',
    ],
    [
      'an unparsable duration',
      `${HEAD}configSyncPeriod: soon\n`,
      'failed to decode: KubeProxyConfiguration.configSyncPeriod: invalid duration "soon"',
    ],
    [
      'a section that is not an object',
      `${HEAD}nftables: fast\n`,
      'failed to decode: cannot unmarshal string into Go struct field KubeProxyConfiguration.nftables of type struct',
    ],
    ['a missing kind', 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nmode: nftables\n', "Object 'Kind' is missing"],
    ['a missing apiVersion', 'kind: KubeProxyConfiguration\n', "Object 'apiVersion' is missing"],
    [
      'another version',
      'apiVersion: kubeproxy.config.k8s.io/v1alpha2\nkind: KubeProxyConfiguration\n',
      'no kind "KubeProxyConfiguration" is registered for version "kubeproxy.config.k8s.io/v1alpha2" (only kubeproxy.config.k8s.io/v1alpha1 KubeProxyConfiguration is supported)',
    ],
    [
      'another kind',
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n',
      'no kind "KubeletConfiguration" is registered for version "kubelet.config.k8s.io/v1beta1" (expected apiVersion kubeproxy.config.k8s.io/v1alpha1)',
    ],
    ['an empty file', '', "Object 'Kind' is missing in the (empty) file"],
    [
      'a list instead of an object',
      '- a\n- b\n',
      "failed to decode: Object 'Kind' is missing: the file is not a YAML/JSON object",
    ],
    [
      'broken YAML',
      `${HEAD}nftables: [1\n`,
      'failed to decode: Flow sequence in block collection must be sufficiently indented and end with a ] (line 4)',
    ],
    [
      'two documents',
      `${HEAD}---\n${HEAD}`,
      'failed to decode: expected one KubeProxyConfiguration document, found several',
    ],
  ])('refuses %s', (_name, text, message) => {
    expect(() => decodeConfiguration(text)).toThrow(new ConfigDecodeError(message));
  });

  it('refuses an unresolved alias as a decode error, not the yaml library throwing (found by the property test)', () => {
    for (const text of ['*!', `${HEAD}mode: *nowhere\n`]) {
      expect(() => decodeConfiguration(text)).toThrow(ConfigDecodeError);
    }
  });
});
