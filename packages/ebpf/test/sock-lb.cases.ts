// Kernel test: bpf/sock_lb.c loaded through libbpf and attached to a cgroup this suite creates;
// real connections from a lab pod whose client process is in that cgroup. Service entries are
// written straight into the maps here (the backend's rendering is tested on its own). The cases run
// under vitest on this machine's kernel (sock-lb.kernel.test.ts) and as a plain bundled script in the
// lab VM's 6.1 kernel (guest/sock-lb.guest.ts, booted by kernel-6.1.vm.test.ts): one definition,
// `expect` handed in (vitest's, or the same matchers without vitest in the guest).
import { release } from 'node:os';
import { TurnBudget } from '@kpng/kit';
import { Lab, sweepLeftovers } from '@kpng/lab';
import type { GuestSuite } from '@kpng/lab/guest';
import type { ExpectStatic } from 'vitest';
import { endpointKey, endpointValue, LB_REJECT, LB_UNREACHABLE, lbValue, serviceKey } from '../src/maps/layout.js';
import { SockLb } from '../src/libbpf/sock-lb.js';
import { SOCK_DESTROY, TestCgroup } from './test-cgroup.js';

const V4 = '198.19.0.10';
const V6 = '2001:db8:5e::10';

/** The socket load balancer's kernel cases, asserting through `expect`. */
export function sockLbSuite(expect: ExpectStatic): GuestSuite {
  let lab: Lab;
  let cgroup: TestCgroup;
  let lb: SockLb;

  const beforeAll = async (): Promise<void> => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['client', 'pod-a', 'pod-b'] });
    await Promise.all([lab.startEcho('pod-a', [8080]), lab.startEcho('pod-b', [8080])]);
    cgroup = TestCgroup.create();
    lb = SockLb.load();
    lb.attach(cgroup.path);
    const a = lab.pod('pod-a');
    const b = lab.pod('pod-b');
    lb.maps.endpoints.update([
      [endpointKey(1, 0), endpointValue('IPv4', a.ipv4, 8080)],
      [endpointKey(1, 1), endpointValue('IPv4', b.ipv4, 8080)],
      [endpointKey(2, 0), endpointValue('IPv6', a.ipv6, 8080)],
      [endpointKey(2, 1), endpointValue('IPv6', b.ipv6, 8080)],
    ]);
    const two = (id: number, affinitySeconds = 0) => lbValue({ id, count: 2, affinitySeconds, flags: 0 });
    lb.maps.services4.update([
      [serviceKey('IPv4', V4, 80, 'TCP'), two(1)],
      [serviceKey('IPv4', V4, 53, 'UDP'), two(1)],
      [serviceKey('IPv4', V4, 81, 'TCP'), two(1, 3600)],
      [serviceKey('IPv4', V4, 82, 'TCP'), lbValue({ id: 3, count: 0, affinitySeconds: 0, flags: LB_REJECT })],
      [serviceKey('IPv4', V4, 83, 'TCP'), lbValue({ id: 4, count: 0, affinitySeconds: 0, flags: LB_UNREACHABLE })],
    ]);
    lb.maps.services6.update([
      [serviceKey('IPv6', V6, 80, 'TCP'), two(2)],
      [serviceKey('IPv6', V6, 53, 'UDP'), two(2)],
    ]);
  };

  const afterAll = async (): Promise<void> => {
    lb?.close();
    cgroup?.remove();
    await lab?.delete();
  };

  const servers = (results: readonly { reply?: string }[]) => new Set(results.map((r) => r.reply?.split(' ')[0]));

  return {
    title: 'socket load balancer (kernel)',
    beforeAll,
    afterAll,
    cases: [
      {
        name: 'attaches the eight programs to the test cgroup, each at its hook',
        run: async () => {
          expect(await cgroup.attached()).toEqual([
            'cgroup_inet4_connect kpng_connect4',
            'cgroup_inet4_getpeername kpng_getpeername4',
            'cgroup_inet6_connect kpng_connect6',
            'cgroup_inet6_getpeername kpng_getpeername6',
            'cgroup_udp4_recvmsg kpng_recvmsg4',
            'cgroup_udp4_sendmsg kpng_sendmsg4',
            'cgroup_udp6_recvmsg kpng_recvmsg6',
            'cgroup_udp6_sendmsg kpng_sendmsg6',
          ]);
        },
      },
      {
        name: 'dump() reads back what was written',
        run: async () => {
          const dump = await lb.maps.services4.dump(new TurnBudget(10));
          expect(dump.size).toBe(5);
          expect(dump.get(serviceKey('IPv4', V4, 80, 'TCP').toString('hex'))).toEqual(
            lbValue({ id: 1, count: 2, affinitySeconds: 0, flags: 0 }).toString('hex'),
          );
          expect((await lb.maps.endpoints.dump(new TurnBudget(10))).get(endpointKey(2, 1).toString('hex'))).toEqual(
            endpointValue('IPv6', lab.pod('pod-b').ipv6, 8080).toString('hex'),
          );
        },
      },
      {
        name: 'writes and reads back 10,000 elements in batches, scans them in slices across calls, deletes them',
        run: async () => {
          const other = SockLb.load(); // not attached: its maps alone
          try {
            const entries = Array.from(
              { length: 10_000 },
              (_, i) => [endpointKey(7, i), endpointValue('IPv4', `198.18.${i >> 8}.${i & 255}`, 8080)] as const,
            );
            other.maps.endpoints.update(entries);
            const dump = await other.maps.endpoints.dump(new TurnBudget(10));
            expect(dump.size).toBe(10_000);
            expect(dump.get(endpointKey(7, 9_999).toString('hex'))).toEqual(entries[9_999]![1].toString('hex'));
            // The drift check's reads: slices of about 3,000 (whole batches) from the kernel's batch position, each key once.
            const seen: string[] = [];
            let slices = 0;
            let cursor: Parameters<typeof other.maps.endpoints.scan>[0];
            do {
              const slice = await other.maps.endpoints.scan(cursor, 3_000);
              expect(slice.entries.length).toBeLessThanOrEqual(3_000 + 4_096);
              for (const [key, value] of slice.entries) {
                seen.push(key);
                expect(value).toEqual(dump.get(key));
              }
              cursor = slice.next;
              slices++;
            } while (cursor !== undefined);
            expect(seen.length).toBe(10_000);
            expect(new Set(seen).size).toBe(10_000);
            expect(slices).toBeGreaterThanOrEqual(3);
            other.maps.endpoints.delete(entries.map(([key]) => key));
            expect((await other.maps.endpoints.dump(new TurnBudget(10))).size).toBe(0);
          } finally {
            other.close();
          }
        },
      },
      {
        name: 'TCP to a ClusterIP reaches every endpoint, and getpeername() is the Service address (IPv4, IPv6)',
        run: async () => {
          const client = lab.pod('client');
          const v4 = await cgroup.client(client.namespace, { proto: 'tcp', ip: V4, port: 80, count: 20 });
          expect(v4.every((r) => r.ok && r.peer === `${V4} 80`)).toBe(true);
          expect(servers(v4)).toEqual(new Set(['pod-a', 'pod-b']));
          // Not NATed: the endpoint sees the client's own address.
          expect(v4[0]?.reply?.split(' ')[1]).toBe(client.ipv4);
          const v6 = await cgroup.client(client.namespace, { proto: 'tcp', ip: V6, port: 80, count: 20 });
          expect(v6.every((r) => r.ok && r.peer === `${V6} 80`)).toBe(true);
          expect(servers(v6)).toEqual(new Set(['pod-a', 'pod-b']));
        },
      },
      {
        name: 'UDP, connected and unconnected: replies come from the Service address (IPv4, IPv6)',
        run: async () => {
          const client = lab.pod('client').namespace;
          for (const [ip, peer] of [
            [V4, `${V4} 53`],
            [V6, `${V6} 53`],
          ] as const) {
            for (const proto of ['udp', 'udp-sendto'] as const) {
              const results = await cgroup.client(client, { proto, ip, port: 53, count: 12 });
              expect(results.every((r) => r.ok && r.peer === peer)).toBe(true);
              expect(servers(results)).toEqual(new Set(['pod-a', 'pod-b']));
            }
          }
        },
      },
      {
        name: 'session affinity keeps one client on one endpoint',
        run: async () => {
          const results = await cgroup.client(lab.pod('client').namespace, {
            proto: 'tcp',
            ip: V4,
            port: 81,
            count: 12,
          });
          expect(results.every((r) => r.ok)).toBe(true);
          expect(servers(results).size).toBe(1);
        },
      },
      {
        name: 'no endpoints: connect() fails at once with ECONNREFUSED; none usable: EHOSTUNREACH',
        run: async () => {
          const client = lab.pod('client').namespace;
          expect(await cgroup.client(client, { proto: 'tcp', ip: V4, port: 82 })).toEqual([
            { ok: false, error: 'ECONNREFUSED' },
          ]);
          expect(await cgroup.client(client, { proto: 'tcp', ip: V4, port: 83 })).toEqual([
            { ok: false, error: 'EHOSTUNREACH' },
          ]);
        },
      },
      {
        name: 'an endpoint change is followed by the next connection',
        run: async () => {
          const client = lab.pod('client').namespace;
          lb.maps.endpoints.update([[endpointKey(1, 0), endpointValue('IPv4', lab.pod('pod-b').ipv4, 8080)]]);
          const results = await cgroup.client(client, { proto: 'tcp', ip: V4, port: 80, count: 10 });
          expect(servers(results)).toEqual(new Set(['pod-b']));
          lb.maps.endpoints.update([[endpointKey(1, 0), endpointValue('IPv4', lab.pod('pod-a').ipv4, 8080)]]);
        },
      },
      {
        name: 'stale UDP: a connected socket balanced to a removed endpoint is destroyed (6.5+) or counted as left',
        run: async () => {
          const client = lab.pod('client').namespace;
          const held = await cgroup.hold(client, { ip: V4, port: 53 });
          expect(held.first).toMatchObject({ ok: true, peer: `${V4} 53` });
          const served = held.first.reply!.split(' ')[0] as 'pod-a' | 'pod-b';
          const other = served === 'pod-a' ? 'pod-b' : 'pod-a';
          const ep = (pod: string) => endpointValue('IPv4', lab.pod(pod).ipv4, 8080);
          // The served endpoint leaves lb 1 (both indexes now the other pod); the sync's stale pair swept.
          lb.maps.endpoints.update([
            [endpointKey(1, 0), ep(other)],
            [endpointKey(1, 1), ep(other)],
          ]);
          const sweep = lb.staleUdp([Buffer.concat([endpointValue('IPv4', V4, 53), ep(served)])]);
          const { second, reconnect } = await held.next();
          lb.maps.endpoints.update([
            [endpointKey(1, 0), ep('pod-a')],
            [endpointKey(1, 1), ep('pod-b')],
          ]);
          expect(sweep?.namespaces).toBeGreaterThanOrEqual(1);
          // The VM suite (kernel-6.1.vm.test.ts) reads this line to know which kernel and branch ran.
          console.log(`KPNG-KERNEL ${release()} stale UDP sweep ${JSON.stringify(sweep)}`);
          if (SOCK_DESTROY) {
            expect(sweep).toMatchObject({ found: 1, destroyed: 1, failed: 0, destroys: true });
            expect(second.ok).toBe(false);
            expect(['ECONNABORTED', 'EDESTADDRREQ']).toContain(second.error);
            expect(reconnect).toMatchObject({ ok: true, peer: `${V4} 53` });
            expect(reconnect!.reply!.split(' ')[0]).toBe(other);
          } else {
            // No bpf_sock_destroy (the lab VM's 6.1): found and counted, the socket keeps its endpoint.
            expect(sweep).toMatchObject({ found: 1, destroyed: 0, failed: 0, destroys: false });
            expect(second).toMatchObject({ ok: true, peer: `${V4} 53` });
            expect(second.reply!.split(' ')[0]).toBe(served);
          }
        },
      },
      {
        name: 'a process outside the cgroup is untouched: the ClusterIP is not translated for it',
        run: async () => {
          const [result] = await cgroup.outsider(lab.pod('client').namespace, { proto: 'tcp', ip: V4, port: 80 });
          expect(result?.ok).toBe(false);
        },
      },
      {
        name: 'close() detaches every program: the cgroup translates nothing after',
        run: async () => {
          const again = SockLb.load();
          again.attach(cgroup.path);
          expect(await cgroup.attached()).toHaveLength(16);
          again.close();
          expect(again.attachedTo).toBeUndefined();
          expect(await cgroup.attached()).toHaveLength(8);
          // The first instance is still attached; its own detach leaves the cgroup untranslated.
          lb.detach();
          expect(await cgroup.attached()).toEqual([]);
          const [result] = await cgroup.client(lab.pod('client').namespace, { proto: 'tcp', ip: V4, port: 80 });
          expect(result?.ok).toBe(false);
        },
      },
    ],
  };
}
