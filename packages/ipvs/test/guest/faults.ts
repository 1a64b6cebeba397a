// The fault suite's cases (issue 15) for the in-process backend of backend.guest.ts, on its lab:
// another program breaks what the backend programmed (drift), or the kernel refuses its writes.
// Real packets show each fault and its repair; each case prints a FAULT-FIGURE line as the compat
// fault suite does (packages/kube-proxy/test/fault). Core's sync loop (the check every syncPeriod,
// the retries, the metrics) runs around the compiled kpng-ipvs in program-faults.guest.ts.
import { join } from 'node:path';
import type { NodeLocalState, SyncOutcome } from '@kpng/core';
import type { Lab, NetworkNamespace } from '@kpng/lab';
import { createNftClient } from '@kpng/nftables';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernelShim, type KernelShim, printFigure } from '@kpng/lab/fault';
import { IpvsBackend } from '../../src/backend/ipvs-backend.js';
import type { IpvsBackendOptions } from '../../src/backend/options.js';
import { NetlinkIpvs } from '../../src/ipvs/netlink-ipvs.js';
import type { E2eScenario } from '../scenarios.js';
import { RefusingIpvs } from './refusing-ipvs.js';

const PROGRAM = 'IpvsBackend in-process (VM, kernel 6.1)';

export interface FaultContext {
  readonly lab: () => Lab;
  readonly backend: () => IpvsBackend;
  /** How backend.guest.ts made its backend (namespace, configuration). */
  readonly options: () => IpvsBackendOptions;
  readonly scenario: E2eScenario;
  /** Syncs `backend` to `state` with the next revision. */
  readonly sync: (backend: IpvsBackend, state: NodeLocalState, full: boolean) => Promise<void | SyncOutcome>;
  /** A Service's IPv4 ClusterIP, or its LB IP. */
  readonly address: (service: string, kind?: 'cluster' | 'lb') => string;
}

/** What is broken while the fault lasts, seen by real connections. */
type Symptom = 'web' | 'itp-local' | 'firewall';

/** Declares the fault cases; call inside backend.guest.ts's suite, after its other cases (they resync to the initial state). */
export function describeFaults(ctx: FaultContext): void {
  const ns = (): NetworkNamespace => ctx.lab().node.namespace;
  /**
   * Whether a TCP connection from `from` to ip:80 opens within 1 s: bash's /dev/tcp, because a
   * Node probe process costs seconds to start under emulation and these cases probe often.
   */
  const connects = async (from: 'pod-a' | 'external', ip: string): Promise<boolean> => {
    const namespace = from === 'external' ? ctx.lab().external.namespace : ctx.lab().pod(from).namespace;
    const script = `exec 3<>/dev/tcp/${ip}/80`;
    return (await namespace.exec(['timeout', '1', 'bash', '-c', script], { check: false })).exitCode === 0;
  };
  const healthy: Record<Symptom, () => Promise<boolean>> = {
    web: () => connects('pod-a', ctx.address('web')),
    'itp-local': () => connects('pod-a', ctx.address('itp-local')),
    // lb-denied's source ranges leave the external client out: it must not get through.
    firewall: async () => !(await connects('external', ctx.address('lb-denied', 'lb'))),
  };
  const drift: readonly { name: string; kind: string; symptom: Symptom; run: () => Promise<unknown> }[] = [
    { name: 'ipvsadm -C', kind: 'virtual-server', symptom: 'web', run: () => ns().exec(['ipvsadm', '-C']) },
    {
      name: "ipvsadm -d (itp-local's only real server)",
      kind: 'real-server',
      symptom: 'itp-local',
      run: () => ns().exec(['ipvsadm', '-d', '-t', `${ctx.address('itp-local')}:80`, '-r', '198.18.1.11:8080']),
    },
    {
      name: "ip addr del (web's ClusterIP on kube-ipvs0)",
      kind: 'address',
      symptom: 'web',
      run: () => ns().exec(['ip', 'addr', 'del', `${ctx.address('web')}/32`, 'dev', 'kube-ipvs0']),
    },
    {
      name: 'nft delete table ip kpng-ipvs',
      kind: 'nft-table',
      symptom: 'firewall',
      run: () => ns().exec(['nft', 'delete', 'table', 'ip', 'kpng-ipvs']),
    },
    {
      name: 'nft flush set ip kpng-ipvs firewall',
      kind: 'nft-set',
      symptom: 'firewall',
      run: () => ns().exec(['nft', 'flush', 'set', 'ip', 'kpng-ipvs', 'firewall']),
    },
  ];

  describe.each(drift)('drift: $name', ({ name, kind, symptom, run }) => {
    it(`breaks ${symptom} until the full sync after check (kind ${kind}) repairs it, without an API change`, async () => {
      await run();
      expect(await healthy[symptom](), 'the fault is visible to connections').toBe(false);
      const checked = performance.now();
      expect(await ctx.backend().check(), 'exactly this drift, nothing else').toEqual([kind]);
      const synced = performance.now();
      const outcome = await ctx.sync(ctx.backend(), ctx.scenario.initial, true);
      const done = performance.now();
      expect(outcome?.repaired).toEqual([kind]);
      expect(await healthy[symptom](), 'repaired').toBe(true);
      // Time to repair = up to one syncPeriod (when core's loop calls check) + check + the full sync.
      printFigure(PROGRAM, `drift: ${name}`, {
        kind,
        checkMs: Math.round(synced - checked),
        repairSyncMs: Math.round(done - synced),
      });
    });
  });

  describe('injected write failures', () => {
    let shim: KernelShim;
    let kernel: RefusingIpvs;
    let registry: Registry;
    let faulty: IpvsBackend;
    const counted = async (metric: string): Promise<number> =>
      ((await registry.getSingleMetric(metric)?.get())?.values ?? []).reduce((sum, v) => sum + v.value, 0);
    beforeAll(async () => {
      shim = await createKernelShim();
      kernel = new RefusingIpvs(new NetlinkIpvs({ netns: ns().name }));
      registry = new Registry();
      // A second backend on the same namespace, writing through the refusing seams: it takes over.
      faulty = new IpvsBackend({
        ...ctx.options(),
        kernel,
        nft: await createNftClient({ netns: ns().name, nftPath: join(shim.dir, 'nft') }),
        metrics: registry,
      });
      await faulty.setup();
      await ctx.sync(faulty, ctx.scenario.initial, true);
    });
    afterAll(async () => {
      await faulty?.close();
      kernel?.close();
      await shim?.remove();
    });

    // Each case changes held (pod-a leaves, then comes back) while the fault lasts.
    it.each([
      {
        name: 'netlink refuses every IPVS write',
        metric: 'kpng_ipvs_netlink_failures_total',
        fault: (on: boolean) => void (kernel.refusing = on),
        target: () => ctx.scenario.heldWithoutA,
        podA: false,
      },
      {
        name: 'nft refuses the kpng-ipvs transaction',
        metric: 'kubeproxy_sync_proxy_rules_nftables_sync_failures_total',
        fault: (on: boolean) => shim.set({ kind: on ? 'fail' : 'pass' }),
        target: () => ctx.scenario.initial,
        podA: true,
      },
    ])('$name: the sync fails and is counted, Services keep serving, the retry converges once it ends', async (c) => {
      const before = await counted(c.metric);
      await c.fault(true);
      // The change, then core's retry (a full sync) while the fault lasts.
      await expect(ctx.sync(faulty, c.target(), false)).rejects.toThrow();
      await expect(ctx.sync(faulty, c.target(), true)).rejects.toThrow();
      const failures = (await counted(c.metric)) - before;
      const serving = (await healthy.web()) && (await healthy.firewall());
      await c.fault(false);
      await ctx.sync(faulty, c.target(), true);
      const held = (await ns().exec(['ipvsadm', '-Ln', '-t', `${ctx.address('held')}:90`])).stdout;
      printFigure(PROGRAM, `write failure: ${c.name}`, {
        countedFailures: failures,
        servingDuringFault: String(serving),
      });
      expect(failures).toBeGreaterThanOrEqual(2);
      expect(serving, 'web answers and the LB firewall holds while the writes fail').toBe(true);
      expect(held.includes('198.18.1.10:9090'), 'converged: pod-a in held or not, as asked').toBe(c.podA);
      expect(held).toContain('198.18.1.11:9090');
    });
  });

  // What a kill -9 and restart leaves: IPVS, kube-ipvs0 and the nft tables are the kernel's and stay;
  // a new backend knows nothing and its first sync is full. It must find the kernel already right:
  // its seam refuses every IPVS write, so a write would fail the sync (the compiled program's kill -9
  // under traffic is program-faults.guest.ts, opt-in: two program starts under emulation).
  it('restart: a new backend over the kernel state syncs in full without one IPVS write; Services serve throughout', async () => {
    const listing = async () => (await ns().exec(['ipvsadm', '-Sn'])).stdout.split('\n').sort();
    const before = await listing();
    const servingBefore = (await healthy.web()) && (await healthy.firewall());
    const kernel = new RefusingIpvs(new NetlinkIpvs({ netns: ns().name }));
    kernel.refusing = true;
    const restarted = new IpvsBackend({ ...ctx.options(), kernel, metrics: new Registry() });
    try {
      const started = performance.now();
      await restarted.setup();
      await ctx.sync(restarted, ctx.scenario.initial, true);
      const syncedMs = Math.round(performance.now() - started);
      const servingAfter = (await healthy.web()) && (await healthy.firewall());
      printFigure(PROGRAM, 'restart (new backend, full sync over the kernel state)', {
        ipvsWrites: kernel.refused,
        firstSyncMs: syncedMs,
        rulesIdentical: String((await listing()).join('\n') === before.join('\n')),
      });
      expect(servingBefore && servingAfter, 'web answers and the LB firewall holds').toBe(true);
      expect(kernel.refused, 'IPVS writes the first sync attempted').toBe(0);
      expect(await listing()).toEqual(before);
    } finally {
      await restarted.close();
      kernel.close();
    }
  });
}
