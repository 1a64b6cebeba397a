/** The few places where an IPv4 and an IPv6 table differ, as data. */
import type { IPFamily } from '@kpng/core';
import type { Family } from '@kpng/nftables';

export interface FamilySyntax {
  readonly family: IPFamily;
  /** The nft table family. */
  readonly nft: Extract<Family, 'ip' | 'ip6'>;
  /** The payload protocol keyword in rules: `ip saddr`, `ip6 daddr`. */
  readonly addr: 'ip' | 'ip6';
  /** The nft data type of an address. */
  readonly addrType: 'ipv4_addr' | 'ipv6_addr';
  /** The all-zero address: NodePort keys mask the destination down to it. */
  readonly anyAddr: string;
  /** Never a NodePort address (semantics 3.3). */
  readonly loopback: string;
}

export const IPV4: FamilySyntax = {
  family: 'IPv4',
  nft: 'ip',
  addr: 'ip',
  addrType: 'ipv4_addr',
  anyAddr: '0.0.0.0',
  loopback: '127.0.0.0/8',
};

export const IPV6: FamilySyntax = {
  family: 'IPv6',
  nft: 'ip6',
  addr: 'ip6',
  addrType: 'ipv6_addr',
  anyAddr: '::',
  loopback: '::1',
};

export function familySyntax(family: IPFamily): FamilySyntax {
  return family === 'IPv4' ? IPV4 : IPV6;
}
