// ClientIP affinity with real packets: the shared cases every Linux backend runs (@kpng/lab
// affinityCases): per service port across ClusterIP, NodePort and external IP, and expiry.
import { affinityScenario, BRIEF_AFFINITY_SECONDS } from '@kpng/core/testing';
import { affinityCases } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NftBackend } from '../src/backend/nft-backend.js';
import { nodeState } from '../src/testing/fixtures.js';
import { createLab, E2E_CONFIG, fullSync } from './e2e-helpers.js';
import { kernelE2e, sweepLeftovers, type Lab } from './lab.js';

const e2e = await kernelE2e('nft backend: ClientIP affinity');

describe.skipIf(!e2e.run)('nft backend in the lab: ClientIP affinity', () => {
  let lab: Lab;

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await createLab();
    const backend = new NftBackend({ ...E2E_CONFIG, netns: lab.node.namespace.name });
    await backend.sync(fullSync(nodeState(affinityScenario())));
  });
  afterAll(async () => {
    await lab?.delete();
  });

  it("programmed the kpng table in the node's namespace before the shared cases", async () => {
    const { stdout } = await lab.node.namespace.exec(['nft', 'list', 'table', 'ip', 'kpng']);
    expect(stdout).toMatch(/198\.19\./);
  });

  affinityCases(() => lab, BRIEF_AFFINITY_SECONDS);
});
