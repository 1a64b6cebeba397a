import {
  allowsConnection,
  podKey,
  type AllowRule,
  type Connection,
  type PodPolicy,
  type PolicyState,
} from '@kpng/core';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { renderElements, type DesiredElements } from './elements.js';
import { setNames, type Direction } from './names.js';
import { addressRange } from './ranges.js';

const POD_IP = '198.18.1.10';

function state(
  ingress: PodPolicy['ingress'],
  egress: PodPolicy['egress'] = { isolated: false, allow: [] },
): PolicyState {
  return {
    pods: new Map([
      [podKey('default', 'server'), { namespace: 'default', name: 'server', ips: [POD_IP], ingress, egress }],
    ]),
  };
}

function inRange(text: string, value: string, family: 'IPv4'): boolean {
  const [first, last = first] = text.split('-') as [string, string?];
  const v = addressRange(value, family)!.first;
  return addressRange(first, family)!.first <= v && v <= addressRange(last, family)!.first;
}

function portIn(text: string, port: number): boolean {
  const [first, last = first] = text.split('-').map(Number) as [number, number?];
  return first <= port && port <= last;
}

/** What the rendered sets say about one connection to (ingress) or from (egress) the pod. */
function verdict(elements: DesiredElements, direction: Direction, connection: Connection): boolean {
  const names = setNames(direction, 'IPv4');
  if (!elements.get(names.isolated)?.has(POD_IP)) return true;
  const keys = (set: string) => [...(elements.get(set)?.values() ?? [])];
  if (keys(names.exactAny).some(([pod, peer]) => pod === POD_IP && peer === connection.peer)) return true;
  const exact = [POD_IP, connection.peer, connection.protocol.toLowerCase(), String(connection.port)].join(' . ');
  if (elements.get(names.exactPorts)?.has(exact) === true) return true;
  if (keys(names.any).some(([pod, peer]) => pod === POD_IP && inRange(peer!, connection.peer, 'IPv4'))) return true;
  return keys(names.ports).some(
    ([pod, peer, proto, port]) =>
      pod === POD_IP &&
      inRange(peer!, connection.peer, 'IPv4') &&
      proto === connection.protocol.toLowerCase() &&
      portIn(port!, connection.port),
  );
}

describe('renderElements', () => {
  test('an unselected pod renders nothing; a selected one with no rule is only isolated', () => {
    expect(renderElements(state({ isolated: false, allow: [] }), ['IPv4'])).toEqual(new Map());
    expect(renderElements(state({ isolated: true, allow: [] }), ['IPv4'])).toEqual(
      new Map([[setNames('ingress', 'IPv4').isolated, new Map([[POD_IP, [POD_IP]]])]]),
    );
  });

  test('overlapping peers and ports render as disjoint elements', () => {
    const out = renderElements(
      state({
        isolated: true,
        allow: [
          { peers: ['198.18.1.0/24'], ports: [{ protocol: 'TCP', port: 80, endPort: 90 }] },
          { peers: ['198.18.1.11'], ports: [{ protocol: 'TCP', port: 85, endPort: 100 }] },
        ],
      }),
      ['IPv4'],
    );
    expect([...(out.get(setNames('ingress', 'IPv4').ports)?.keys() ?? [])]).toEqual([
      '198.18.1.10 . 198.18.1.0-198.18.1.10 . tcp . 80-90',
      '198.18.1.10 . 198.18.1.11 . tcp . 80-100',
      '198.18.1.10 . 198.18.1.12-198.18.1.255 . tcp . 80-90',
    ]);
  });

  test('a family the enforcer does not program renders nothing', () => {
    expect(renderElements(state({ isolated: true, allow: [{}] }), ['IPv6'])).toEqual(new Map());
  });

  test('property: the rendered sets give the policy view reference verdict for every connection', () => {
    const peer = fc.constantFrom('198.18.1.0/28', '198.18.1.11', '198.18.1.12', '198.18.0.0/16', '2001:db8::1');
    const range = fc
      .tuple(
        fc.constantFrom('TCP', 'UDP', 'SCTP' as const),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 5 }),
      )
      .map(([protocol, port, width]) => ({ protocol, port, endPort: port + width }));
    const rule: fc.Arbitrary<AllowRule> = fc.record(
      { peers: fc.array(peer, { maxLength: 3 }), ports: fc.array(range, { maxLength: 3 }) },
      { requiredKeys: [] },
    );
    const connection = fc.record({
      peer: fc.constantFrom('198.18.1.11', '198.18.1.12', '198.18.1.20', '198.18.7.1', '203.0.113.2'),
      protocol: fc.constantFrom('TCP', 'UDP', 'SCTP', 'ICMP' as const),
      port: fc.integer({ min: 0, max: 27 }),
    });
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(rule, { maxLength: 4 }),
        fc.array(connection, { minLength: 5, maxLength: 5 }),
        (isolated, allow, connections) => {
          const policy = { isolated, allow };
          const elements = renderElements(state({ isolated: false, allow: [] }, policy), ['IPv4']);
          for (const c of connections) {
            const probe = c.protocol === 'ICMP' ? { ...c, port: 0 } : c;
            expect(verdict(elements, 'egress', probe)).toBe(allowsConnection(policy, probe));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
