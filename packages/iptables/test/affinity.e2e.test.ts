// ClientIP affinity with real packets on iptables-legacy and iptables-nft (`recent` lists per
// endpoint chain): the shared cases every Linux backend runs (@kpng/lab affinityCases). One lab.
import { affinityScenario, BRIEF_AFFINITY_SECONDS, nodeState } from '@kpng/core/testing';
import { affinityCases, createProxyLab, kernelE2e, sweepLeftovers, type Lab } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IptablesBackend } from '../src/backend/iptables-backend.js';
import { E2E_CONFIG, FLAVOURS, fullSync } from './e2e-helpers.js';

const e2e = await kernelE2e('iptables backend: ClientIP affinity');

describe.skipIf(!e2e.run)('iptables backend in the lab: ClientIP affinity', () => {
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
      backend = new IptablesBackend({ ...E2E_CONFIG, flavour, netns: lab.node.namespace.name, conntrack: false });
      await backend.sync(fullSync(nodeState(affinityScenario())));
    });
    afterAll(async () => {
      await backend?.cleanup();
    });

    it("programmed kube-proxy's chains in the node's namespace before the shared cases", async () => {
      const { stdout } = await lab.node.namespace.exec([`iptables-${flavour}-save`, '-t', 'nat']);
      expect(stdout).toMatch(/^:KUBE-SERVICES /m);
      expect(stdout).toMatch(/^-A KUBE-SERVICES .*-d 198\.19\./m);
    });

    affinityCases(() => lab, BRIEF_AFFINITY_SECONDS);
  });
});
