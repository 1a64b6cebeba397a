import { expect, test } from 'vitest';
import { concat } from './concat.js';

test.each([
  [['ip daddr', '@', 'service-ips'], 'ip daddr @service-ips'],
  [['ip daddr', '198.19.0.1', 'tcp dport', 80, 'jump', 'x'], 'ip daddr 198.19.0.1 tcp dport 80 jump x'],
  [[['meta l4proto', 'tcp'], 'dnat to', '198.18.1.10:80'], 'meta l4proto tcp dnat to 198.18.1.10:80'],
  [['', ' accept ', ''], 'accept'],
  [['update', '@', 'affinity-x', '{ ip saddr }'], 'update @affinity-x { ip saddr }'],
] as const)('concat(%j) is %j', (parts, expected) => {
  expect(concat(...parts)).toBe(expected);
});
