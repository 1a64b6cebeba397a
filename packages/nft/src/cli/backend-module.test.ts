import { UsageError } from '@kpng/core';
import { describe, expect, it } from 'vitest';
import { parseNftFlags } from './backend-module.js';

/** The flags as node's parseArgs hands them over: strings, `true` for booleans. */
const values = (argv: string[]): Record<string, string | boolean> => {
  const out: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!.slice(2);
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) out[name] = true;
    else out[name] = (i++, next);
  }
  return out;
};

describe('parseNftFlags', () => {
  it('defaults: primary node addresses, no local detector, both families', () => {
    const config = parseNftFlags({});
    expect(config.nodePortAddresses).toBe('primary');
    expect(config.localDetector).toEqual({ mode: 'None' });
    expect(config.families).toEqual(['IPv4', 'IPv6']);
  });

  const good: { argv: string[]; check: (o: ReturnType<typeof parseNftFlags>) => unknown; expected: unknown }[] = [
    {
      argv: ['--cluster-cidr', '10.0.0.0/8, fd00::/48'],
      check: (o) => o.localDetector,
      expected: { mode: 'ClusterCIDR', clusterCIDRs: ['10.0.0.0/8', 'fd00::/48'] },
    },
    {
      argv: ['--detect-local-mode', 'InterfaceNamePrefix', '--pod-interface-name-prefix', 'veth'],
      check: (o) => o.localDetector,
      expected: { mode: 'InterfaceNamePrefix', prefix: 'veth' },
    },
    {
      argv: ['--nodeport-addresses', '0.0.0.0/0,::/0'],
      check: (o) => o.nodePortAddresses,
      expected: ['0.0.0.0/0', '::/0'],
    },
    {
      argv: ['--masquerade-all', '--masquerade-bit', '3'],
      check: (o) => [o.masqueradeAll, o.masqueradeBit],
      expected: [true, 3],
    },
    { argv: ['--ip-families', 'IPv6'], check: (o) => o.families, expected: ['IPv6'] },
    { argv: ['--write-timeout', '1m30s'], check: (o) => o.writeTimeoutMs, expected: 90_000 },
    { argv: [], check: (o) => o.writeTimeoutMs, expected: undefined },
  ];
  it.each(good)('$argv', ({ argv, check, expected }) => {
    expect(check(parseNftFlags(values(argv)))).toEqual(expected);
  });

  const bad: { argv: string[]; message: RegExp }[] = [
    { argv: ['--detect-local-mode', 'ClusterCIDR'], message: /needs --cluster-cidr/ },
    { argv: ['--detect-local-mode', 'Magic'], message: /unknown --detect-local-mode/ },
    { argv: ['--cluster-cidr', 'not-a-cidr'], message: /bad CIDR/ },
    {
      argv: ['--detect-local-mode', 'BridgeInterface', '--pod-bridge-interface', 'br0"; drop'],
      message: /bad bridge interface name/,
    },
    { argv: ['--masquerade-bit', '40'], message: /masqueradeBit/ },
    { argv: ['--ip-families', 'IPv5'], message: /--ip-families/ },
    { argv: ['--write-timeout', '0'], message: /--write-timeout must be longer than 0/ },
  ];
  it.each(bad)('refuses $argv', ({ argv, message }) => {
    expect(() => parseNftFlags(values(argv))).toThrow(UsageError);
    expect(() => parseNftFlags(values(argv))).toThrow(message);
  });
});
