// The iptables backend programming a real node, on iptables-legacy and on iptables-nft: the
// shared behaviour table every Linux backend runs (@kpng/lab BEHAVIOURS) with real TCP and UDP
// packets, IPv4 and IPv6, plus iptables mode's localhost NodePorts and upstream's nfacct counters
// (real objects in the node's namespace, read back through /metrics' collectors). One lab for the
// file; each flavour programs it, runs the table, and cleans up before the other.
import { runExplain } from '@kpng/core/runtime';
import { allFeatures, nodeState } from '@kpng/core/testing';
import {
  BEHAVIOURS,
  behaviourCases,
  createProxyLab,
  kernelE2e,
  LOCALHOST_NODEPORTS,
  sweepLeftovers,
  type Lab,
} from '@kpng/lab';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IptablesBackend } from '../src/backend/iptables-backend.js';
import { backend as iptablesModule } from '../src/cli/backend-module.js';
import { E2E_CONFIG, FLAVOURS, fullSync } from './e2e-helpers.js';

const e2e = await kernelE2e('iptables backend: every feature');

describe.skipIf(!e2e.run)('iptables backend in the lab: every feature', () => {
  let lab: Lab;

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await createProxyLab();
  });
  afterAll(async () => {
    await lab?.delete();
  });

  describe.each(FLAVOURS)('iptables-%s', (flavour) => {
    let backend: IptablesBackend;
    const registry = new Registry();
    beforeAll(async () => {
      backend = new IptablesBackend({ ...E2E_CONFIG, flavour, netns: lab.node.namespace.name, metrics: registry });
      await backend.sync(fullSync(nodeState(allFeatures())));
    });
    afterAll(async () => {
      await backend?.cleanup();
    });

    it("programmed kube-proxy's chains in the node's namespace before the shared cases", async () => {
      const { stdout } = await lab.node.namespace.exec([`iptables-${flavour}-save`, '-t', 'nat']);
      expect(stdout).toMatch(/^:KUBE-SERVICES /m);
      expect(stdout).toMatch(/^-A KUBE-SERVICES .*-d 198\.19\./m);
    });

    it('`kpng explain default/web --backend iptables` prints its chains and counters from the kernel', async () => {
      const out: string[] = [];
      const argv = ['default/web', '--netns', lab.node.namespace.name, '--iptables-flavour', flavour];
      expect(await runExplain('kpng', iptablesModule, argv, { stdout: (t) => out.push(t) })).toBe(0);
      const text = out.join('');
      expect(text).toContain(`# default/web in iptables-${flavour}-save (IPv4)\nservice entry points:\n`);
      expect(text).toMatch(/^ {2}\[\d+ packets, \d+ bytes\] -A KUBE-SERVICES .*-j KUBE-SVC-/m);
      expect(text).toMatch(/^endpoint chain nat KUBE-SEP-[A-Z2-7]{16}:\n {2}\[\d+ packets, \d+ bytes\] -A KUBE-SEP-/m);
      expect(text).not.toContain('default/dns');
    });

    behaviourCases(() => lab, { cases: BEHAVIOURS });
    behaviourCases(() => lab, { cases: LOCALHOST_NODEPORTS, families: ['IPv4'] });

    it("upstream's nfacct counters: objects in the node's namespace, in the INVALID drop and localhost NodePort rules, read by /metrics", async () => {
      const ns = lab.node.namespace;
      const kernel = async (name: string): Promise<number> => {
        const { stdout } = await ns.exec(['nfacct', 'get', name]);
        return Number(/pkts = (\d+)/.exec(stdout)?.[1]);
      };
      const metric = async (name: string): Promise<number> => {
        const text = await registry.metrics();
        return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
      };
      const filter = (await ns.exec([`iptables-${flavour}-save`, '-t', 'filter'])).stdout;
      expect(filter).toMatch(
        /^-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name +ct_state_invalid_dropped_pkts -j DROP$/m,
      );
      const nat = (await ns.exec([`iptables-${flavour}-save`, '-t', 'nat'])).stdout;
      expect(nat).toMatch(
        /^-A KUBE-NODEPORTS -d 127\.0\.0\.0\/8 .*--dport \d+ -m nfacct --nfacct-name +localhost_nps_accepted_pkts -j KUBE-EXT-/m,
      );
      // The localhost NodePort cases above sent packets to 127.0.0.1:NODEPORT: counted, and /metrics says the kernel's number.
      const accepted = await kernel('localhost_nps_accepted_pkts');
      expect(accepted).toBeGreaterThan(0);
      expect(await metric('kubeproxy_iptables_localhost_nodeports_accepted_packets_total')).toBe(accepted);
      expect(await metric('kubeproxy_iptables_ct_state_invalid_dropped_packets_total')).toBe(
        await kernel('ct_state_invalid_dropped_pkts'),
      );
    });
  });
});
