// The nft backend programming a real node: the lab's node namespace gets the rules, and real TCP
// and UDP connections from local pods, remote pods, the node itself and an external client show
// where each Service feature sends them, in IPv4 and IPv6: the shared behaviour table every Linux
// backend runs (@kpng/lab BEHAVIOURS), plus nftables mode's ClusterIP guard.
import { runExplain } from '@kpng/core/runtime';
import { BEHAVIOURS, behaviourCases, CLUSTER_IP_GUARD } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NftBackend } from '../src/backend/nft-backend.js';
import { backend as nftModule } from '../src/cli/backend-module.js';
import { nodeState } from '../src/testing/fixtures.js';
import { allFeatures } from '../src/testing/scenarios.js';
import { createLab, E2E_CONFIG, fullSync } from './e2e-helpers.js';
import { kernelE2e, sweepLeftovers, type Lab } from './lab.js';

const e2e = await kernelE2e('nft backend: every feature');

describe.skipIf(!e2e.run)('nft backend in the lab: every feature', () => {
  let lab: Lab;

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await createLab();
    const backend = new NftBackend({ ...E2E_CONFIG, netns: lab.node.namespace.name });
    await backend.sync(fullSync(nodeState(allFeatures())));
  });
  afterAll(async () => {
    await lab?.delete();
  });

  it("programmed the kpng table in the node's namespace before the shared cases", async () => {
    const { stdout } = await lab.node.namespace.exec(['nft', 'list', 'table', 'ip', 'kpng']);
    expect(stdout).toMatch(/198\.19\./);
  });

  it('`kpng explain default/web --backend nft` prints its elements and endpoints from the kernel', async () => {
    const out: string[] = [];
    const argv = ['default/web', '--netns', lab.node.namespace.name];
    expect(await runExplain('kpng', nftModule, argv, { stdout: (t) => out.push(t) })).toBe(0);
    const text = out.join('');
    expect(text).toContain('# default/web in nftables table ip kpng\nservice entry points:\n');
    expect(text).toMatch(/^ {2}@service-ips \{ 198\.19\.\S+ \. tcp \. 80 : goto \S+ # default\/web:\/TCP \}$/m);
    expect(text).toMatch(/^ {2}@endpoints-tcp \{ 198\.19\.\S+ \. 80 \. 0 : 198\.18\.\S+ \. 8080 \}$/m);
    expect(text).not.toContain('default/dns');
  });

  behaviourCases(() => lab, { cases: [...BEHAVIOURS, ...CLUSTER_IP_GUARD] });
});
