import { FakeNft } from '@kpng/nftables/testing';
import { IpvsBackend } from '../../src/backend/ipvs-backend.js';
import type { IpvsBackendOptions } from '../../src/backend/options.js';
import { FakeIpvs } from '../../src/ipvs/fake-ipvs.js';
import { FakeHostExecer } from './fake-host.js';

const SILENT = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {}, with: () => SILENT };

/**
 * For unit tests that compare two backends: an `IpvsBackend` set up on fresh fakes (FakeIpvs,
 * FakeNft, fake ip/sysctl), and `snapshot()`, everything it programmed in a comparable form:
 * the IPVS table, the nft ruleset and last write, the kube-ipvs0 addresses, the netlink calls.
 */
export async function backendRig(options: Partial<IpvsBackendOptions> = {}) {
  const kernel = new FakeIpvs();
  const nft = new FakeNft();
  const host = new FakeHostExecer();
  const backend = new IpvsBackend({
    kernel,
    nft,
    execer: host,
    logger: SILENT,
    drainIntervalMs: 3_600_000,
    ...options,
  });
  await backend.setup();
  const snapshot = () => ({
    ipvs: kernel
      .listVirtualServers()
      .map((vs) => ({ vs, reals: kernel.listRealServers(vs) }))
      .sort((a, b) => JSON.stringify(a.vs).localeCompare(JSON.stringify(b.vs))),
    nft: nft.dump(),
    write: (nft.lastTransaction?.operations ?? []).map((o) => `${o.verb} ${JSON.stringify(o.object)}`).sort(),
    addresses: [...host.addresses].sort(),
    calls: kernel.calls.map((c) => JSON.stringify(c)).sort(),
  });
  return { kernel, nft, host, backend, snapshot };
}
