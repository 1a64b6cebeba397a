import { UsageError } from '@kpng/core';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { EbpfBackend } from '../backend/ebpf-backend.js';
import { backend, parseEbpfFlags } from './backend-module.js';

describe('parseEbpfFlags', () => {
  it('needs an absolute --cgroup-root; both families and the default map sizes otherwise', () => {
    expect(parseEbpfFlags({ 'cgroup-root': '/sys/fs/cgroup' })).toEqual({
      cgroup: '/sys/fs/cgroup',
      families: ['IPv4', 'IPv6'],
      maxEntries: {},
    });
    expect(() => parseEbpfFlags({})).toThrow(UsageError);
    expect(() => parseEbpfFlags({ 'cgroup-root': ' ' })).toThrow(/--cgroup-root is required/);
    expect(() => parseEbpfFlags({ 'cgroup-root': 'relative/cg' })).toThrow(/absolute/);
  });

  it('families and map sizes, each checked', () => {
    expect(
      parseEbpfFlags({ 'cgroup-root': '/cg', 'ip-families': 'IPv6', 'max-services': '1000', 'max-endpoints': '5000' }),
    ).toEqual({ cgroup: '/cg', families: ['IPv6'], maxEntries: { services4: 1000, services6: 1000, endpoints: 5000 } });
    expect(() => parseEbpfFlags({ 'cgroup-root': '/cg', 'ip-families': 'IPv5' })).toThrow(/--ip-families/);
    for (const bad of ['0', '-1', '1e6', '16777217', '99999999999', 'lots'])
      expect(() => parseEbpfFlags({ 'cgroup-root': '/cg', 'max-endpoints': bad })).toThrow(/--max-endpoints takes/);
  });

  it('the module: kpng --backend ebpf and kpng-ebpf build an EbpfBackend; a netns is refused', () => {
    expect(backend).toMatchObject({ name: 'ebpf', program: 'kpng-ebpf', proxyMode: 'ebpf' });
    const config = parseEbpfFlags({ 'cgroup-root': '/cg' });
    expect(backend.create(config, { nodeName: 'n', registry: new Registry() })).toBeInstanceOf(EbpfBackend);
    expect(() => backend.create(config, { nodeName: 'n', registry: new Registry(), netns: 'x' })).toThrow(UsageError);
  });

  it('--packet-path nft configures the nft backend (north-south only) from its own flags; anything else is refused', () => {
    const config = parseEbpfFlags({ 'cgroup-root': '/cg', 'packet-path': 'nft', 'masquerade-all': true });
    expect(config.nft).toMatchObject({ masqueradeAll: true, scope: 'north-south' });
    expect(parseEbpfFlags({ 'cgroup-root': '/cg' }).nft).toBeUndefined();
    expect(() => parseEbpfFlags({ 'cgroup-root': '/cg', 'packet-path': 'iptables' })).toThrow(/--packet-path/);
    expect(backend.create(config, { nodeName: 'n', registry: new Registry() })).toBeInstanceOf(EbpfBackend);
  });
});
