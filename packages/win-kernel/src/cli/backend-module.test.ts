import { UsageError } from '@kpng/core';
import { describe, expect, it } from 'vitest';
import { backend, parseWinKernelFlags } from './backend-module.js';

describe('kpng-win-kernel flags', () => {
  it("maps upstream's Windows flags onto the backend options", () => {
    expect(
      parseWinKernelFlags(
        {
          'network-name': 'vxlan0',
          'source-vip': '198.18.1.254',
          'enable-dsr': true,
          'root-hnsendpoint-name': 'host-ep',
          'forward-healthcheck-vip': true,
          'healthz-port': '10266',
          'ip-families': 'IPv4',
        },
        {},
      ),
    ).toEqual({
      networkName: 'vxlan0',
      sourceVip: '198.18.1.254',
      enableDSR: true,
      rootHnsEndpointName: 'host-ep',
      forwardHealthCheckVip: true,
      healthzPort: 10266,
      families: ['IPv4'],
    });
  });

  it('takes the network from $KUBE_NETWORK as upstream does', () => {
    expect(parseWinKernelFlags({}, { KUBE_NETWORK: 'cbr0' })).toMatchObject({
      networkName: 'cbr0',
      enableDSR: false,
      forwardHealthCheckVip: false,
    });
  });

  const bad: { values: Record<string, string | boolean>; message: RegExp }[] = [
    { values: {}, message: /--network-name is required/ },
    {
      values: { 'network-name': 'n', 'source-vip': 'not-an-ip' },
      message: /--source-vip "not-an-ip" is not an IP address/,
    },
    { values: { 'network-name': 'n', 'healthz-port': '70000' }, message: /--healthz-port: invalid port/ },
    { values: { 'network-name': 'n', 'ip-families': 'IPv5' }, message: /--ip-families/ },
  ];
  it.each(bad)('refuses $values', ({ values, message }) => {
    expect(() => parseWinKernelFlags(values, {})).toThrow(UsageError);
    expect(() => parseWinKernelFlags(values, {})).toThrow(message);
  });

  it('is the kernelspace backend, program kpng-win-kernel, every flag documented', () => {
    expect([backend.name, backend.program, backend.proxyMode]).toEqual([
      'win-kernel',
      'kpng-win-kernel',
      'kernelspace',
    ]);
    for (const [name, flag] of Object.entries(backend.flags)) expect(flag.help, name).not.toBe('');
    // preserve-destination is the Service's annotation, read by core: no flag names Services.
    expect(Object.keys(backend.flags)).not.toContain('preserve-destination');
  });
});
