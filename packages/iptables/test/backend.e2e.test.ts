// The iptables backend programming a real node, on iptables-legacy and on iptables-nft: the
// shared behaviour table every Linux backend runs (@kpng/lab BEHAVIOURS) with real TCP and UDP
// packets, IPv4 and IPv6, plus iptables mode's localhost NodePorts. One lab for the file; each
// flavour programs it, runs the table, and cleans up before the other.
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
    beforeAll(async () => {
      backend = new IptablesBackend({ ...E2E_CONFIG, flavour, netns: lab.node.namespace.name });
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
  });
});
