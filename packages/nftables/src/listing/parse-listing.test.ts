import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { dumpObjects } from '../canonical.js';
import { parseListing } from './parse-listing.js';

/** `nft -a list table inet kp` captured from nft 1.0.6 after loading a sample with every kind. */
const captured = readFileSync(new URL('./testdata/nft-1.0.6-list-table.txt', import.meta.url), 'utf8');

describe('parseListing', () => {
  test('reads every kind from a real nft 1.0.6 listing', () => {
    expect(dumpObjects(parseListing(captured))).toBe(
      [
        'add table inet kp { comment "tbl c" ; }',
        'add chain inet kp c { comment "cc" ; }',
        'add chain inet kp d',
        'add chain inet kp filter-input { type filter hook input priority -110 ; }',
        'add chain inet kp ing { type filter hook ingress device "lo" priority -500 ; }',
        'add chain inet kp nat-prerouting { type nat hook prerouting priority -100 ; comment "base" ; }',
        'add chain inet kp out { type filter hook output priority 0 ; policy drop ; }',
        'add set inet kp aff { type ipv6_addr ; flags dynamic,timeout ; timeout 10800s ; size 65535 ; }',
        'add set inet kp cluster-ips { type ipv4_addr ; comment "cluster" ; }',
        'add set inet kp s2 { type ipv4_addr . inet_proto . inet_service ; flags interval,timeout ; timeout 3600s ; gc-interval 10s ; size 1000 ; policy memory ; auto-merge ; }',
        'add map inet kp ep { typeof ip daddr . tcp dport : ip daddr . tcp dport ; }',
        'add map inet kp m6 { type ipv6_addr : verdict ; }',
        'add map inet kp service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; comment "svc" ; }',
        'add counter inet kp cnt { packets 0 bytes 0 ; comment "count me" ; }',
        'add counter inet kp cnt2 { packets 5 bytes 10 ; }',
        'add element inet kp cluster-ips { 198.19.0.1 comment "ns/svc:p80" }',
        'add element inet kp cluster-ips { 198.19.0.2 }',
        'add element inet kp ep { 198.18.1.10 . 80 : 198.18.1.10 . 8080 }',
        'add element inet kp m6 { 2001:db8::1 : jump c }',
        'add element inet kp s2 { 198.19.0.0/16 . tcp . 80-90 comment "x, y" }',
        'add element inet kp service-ips { 198.19.0.1 . tcp . 80 comment "ns/svc:p80" : goto d }',
        'add element inet kp service-ips { 198.19.0.2 . udp . 53 : drop }',
        'add rule inet kp c ip daddr . meta l4proto . th dport vmap @service-ips',
        'add rule inet kp c ip daddr @cluster-ips reject with icmp port-unreachable comment "rule c"',
        'add rule inet kp c numgen random mod 2 vmap { 0 : goto d, 1 : goto d }',
        'add rule inet kp d counter',
        'add rule inet kp d meta mark set meta mark | 0x00004000',
        'add rule inet kp d update @aff { ip6 saddr }',
        'add rule inet kp d ip saddr != 198.18.0.0/16 counter name "cnt"',
        'add rule inet kp nat-prerouting meta l4proto tcp dnat ip to 198.18.1.10:80',
        'add rule inet kp nat-prerouting jump c',
        '',
      ].join('\n'),
    );
  });

  test('keeps rule handles', () => {
    const rules = parseListing(captured).filter((object) => object.kind === 'rule');
    expect(rules.map((rule) => rule.handle)).toEqual([15, 16, 18, 20, 21, 22, 24, 19, 23]);
  });

  test('an unmodelled block is skipped whole', () => {
    const text = 'table ip t {\n\tquota q {\n\t\t25 mbytes\n\t}\n\tchain c {\n\t\taccept\n\t}\n}\n';
    expect(parseListing(text).map((object) => object.kind)).toEqual(['table', 'chain', 'rule']);
  });

  test('a broken listing names its line', () => {
    expect(() => parseListing('table ip t {\n\tset s {\n\t\tcolour blue\n\t}\n}\n')).toThrow(
      /line 4: unknown set property "colour"/,
    );
  });
});
