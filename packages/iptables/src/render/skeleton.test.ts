// Where KUBE-SERVICES hands NodePorts to KUBE-NODEPORTS: every local address, or the addresses core
// resolved from nodePortAddresses over the host's interfaces (LocalNode.nodePortAddresses).
import type { NodePortAddresses } from '@kpng/core';
import { nodeState } from '@kpng/core/testing';
import { describe, expect, it } from 'vitest';
import { resolveConfig, type IptablesConfigInput } from './config.js';
import { renderContext } from './context.js';
import { natStaticRules } from './skeleton.js';

function nodePortTargets(
  family: 'IPv4' | 'IPv6',
  nodePortAddresses: NodePortAddresses | undefined,
  config: IptablesConfigInput = {},
): string[] {
  const base = nodeState([]);
  const node = nodePortAddresses === undefined ? base.node : { ...base.node, nodePortAddresses };
  return natStaticRules(renderContext(resolveConfig(config), family, node, 0), node)
    .filter((rule) => rule.endsWith('-j KUBE-NODEPORTS'))
    .map((rule) =>
      rule.replace(/^-A KUBE-SERVICES -m comment --comment "[^"]*" /, '').replace(/ -j KUBE-NODEPORTS$/, ''),
    );
}

describe('the NodePort rules of KUBE-SERVICES', () => {
  const v4: NodePortAddresses = { IPv4: ['127.0.0.1', '192.0.2.10', '192.0.2.11'], IPv6: 'all' };
  const v6: NodePortAddresses = { IPv4: 'all', IPv6: ['2001:db8::a', '::1'] };

  it.each([
    ['unset (no setting): every local address', 'IPv4', undefined, {}, ['-m addrtype --dst-type LOCAL']],
    [
      'all without localhost NodePorts',
      'IPv4',
      { IPv4: 'all', IPv6: 'all' },
      { localhostNodePorts: false },
      ['-m addrtype --dst-type LOCAL ! -d 127.0.0.0/8'],
    ],
    ['all, IPv6', 'IPv6', v4, {}, ['-m addrtype --dst-type LOCAL ! -d ::1/128']],
    [
      'the resolved addresses, loopback kept with localhost NodePorts',
      'IPv4',
      v4,
      { nodePortAddresses: ['192.0.2.0/24', '127.0.0.0/8'] },
      ['-d 127.0.0.1', '-d 192.0.2.10', '-d 192.0.2.11'],
    ],
    [
      'loopback skipped without localhost NodePorts',
      'IPv4',
      v4,
      { nodePortAddresses: ['192.0.2.0/24', '127.0.0.0/8'], localhostNodePorts: false },
      ['-d 192.0.2.10', '-d 192.0.2.11'],
    ],
    ['loopback skipped on IPv6', 'IPv6', v6, { nodePortAddresses: ['2001:db8::/64', '::1/128'] }, ['-d 2001:db8::a']],
    ['none selected: no rule', 'IPv4', { IPv4: [], IPv6: 'all' }, { nodePortAddresses: ['203.0.113.0/24'] }, []],
  ] as const)('%s', (_name, family, resolved, config, expected) => {
    expect(nodePortTargets(family, resolved, config)).toEqual(expected);
  });
});
