/**
 * Drift: what another program can remove behind the IPVS backend's back, found by `check` every
 * syncPeriod and repaired by the full sync it triggers (each kind labels
 * `kpng_sync_drift_repairs_total{backend="ipvs",kind}`):
 * - `virtual-server`: one deleted (`ipvsadm -D`), all of them (`ipvsadm -C`), or one edited
 *   (`ipvsadm -E`: scheduler, persistence). One netlink dump per check.
 * - `real-server`: one deleted (`ipvsadm -d`) or re-weighted (`ipvsadm -e`). IPVS has no dump of every
 *   real server: each check reads those of a window of virtual servers, taken in turn, so a check
 *   costs at most `window` netlink calls (all of them each period up to that size; at s10k the
 *   window covers the table within the hour, as the full resync, which re-reads it all, also does).
 * - `address` (a Service address removed from kube-ipvs0) and `link` (kube-ipvs0 deleted or set
 *   down): one `ip -j addr show` per check.
 * - `nft-table`, `nft-set`, `nft-chain`: the `kpng-ipvs` table deleted (or `nft flush ruleset`), a
 *   set deleted or flushed, a chain deleted: one check-mode `nft` call (see `NftTableState.probe`).
 */
import { isAlreadyExists, isNotFound, type Nft, type NftError, Transaction } from '@kpng/nftables';
import type { IpvsKernel } from '../ipvs/seam.js';
import { realServerKey, type VirtualServer, type VirtualServerKey, virtualServerKey } from '../ipvs/types.js';
import type { AppliedVirtualServer } from '../render/diff.js';
import type { NftTableState } from './nft-delta.js';

export type IpvsDriftKind =
  'virtual-server' | 'real-server' | 'address' | 'link' | 'nft-table' | 'nft-set' | 'nft-chain';

/** Default number of virtual servers whose real servers one check reads. */
export const REAL_SERVER_WINDOW = 512;

/** IPVS's part of the check: the kernel against what the backend believes it applied. */
export class IpvsDriftProbe {
  readonly #window: number;
  #cursor = 0;

  constructor(window = REAL_SERVER_WINDOW) {
    this.#window = window;
  }

  probe(
    kernel: IpvsKernel,
    applied: ReadonlyMap<VirtualServerKey, AppliedVirtualServer>,
    owned: (vs: VirtualServer) => boolean,
  ): IpvsDriftKind[] {
    const kinds = new Set<IpvsDriftKind>();
    const present = new Map(kernel.listVirtualServers().map((vs) => [virtualServerKey(vs), vs]));
    const ours = [...applied].filter(([, entry]) => owned(entry.vs));
    for (const [key, { vs }] of ours) {
      const found = present.get(key);
      if (found?.scheduler !== vs.scheduler || found.persistentSeconds !== vs.persistentSeconds)
        kinds.add('virtual-server');
    }
    const intact = ours.filter(([key]) => present.has(key));
    const count = Math.min(this.#window, intact.length);
    /** Virtual servers whose real servers differ from what was applied. */
    const realDrift: VirtualServerKey[] = [];
    for (let i = 0; i < count; i++) {
      const [key, entry] = intact[(this.#cursor + i) % intact.length] ?? [];
      if (key === undefined || entry === undefined) continue;
      const reals = new Map(kernel.listRealServers(entry.vs).map((rs) => [realServerKey(rs), rs]));
      if ([...entry.reals].some(([rsKey, rs]) => reals.get(rsKey)?.weight !== rs.weight)) realDrift.push(key);
    }
    this.#cursor = intact.length === 0 ? 0 : (this.#cursor + count) % intact.length;
    if (realDrift.length > 0) {
      // The reads are not one snapshot: a virtual server deleted between the dump and the read of its
      // real servers (`ipvsadm -C` during a check) shows as its real servers gone. Read the virtual
      // servers again and name the drift for what happened.
      const now = new Set(kernel.listVirtualServers().map((vs) => virtualServerKey(vs)));
      const gone = realDrift.filter((key) => !now.has(key)).length;
      if (gone > 0) kinds.add('virtual-server');
      if (gone < realDrift.length) kinds.add('real-server');
    }
    return [...kinds];
  }
}

/**
 * The nft part of the check: the tables' probes in one check-mode transaction. When it fails, a
 * check-mode `create table` per family tells a deleted table (it would succeed) from a set or chain
 * gone inside a table that exists (EEXIST).
 */
export async function nftDrift(nft: Nft, tables: readonly NftTableState[]): Promise<IpvsDriftKind[]> {
  const tx = new Transaction();
  for (const table of tables) table.probe(tx);
  if (tx.size === 0) return [];
  try {
    await nft.check(tx);
    return [];
  } catch (error) {
    if (!isNotFound(error)) throw error;
    for (const table of tables.flatMap((t) => t.table() ?? [])) {
      const create = new Transaction();
      create.create(table);
      const exists = await nft.check(create).then(
        () => false,
        (e: unknown) => {
          if (isAlreadyExists(e)) return true;
          throw e;
        },
      );
      if (!exists) return ['nft-table'];
    }
    const lost = (error as NftError).failures.map((f) => f.operation?.object.kind);
    return [lost.includes('chain') ? 'nft-chain' : 'nft-set'];
  }
}

/** The addresses on kube-ipvs0 against those the backend bound; `link` when the link is gone or down. */
export function addressDrift(
  link: { readonly up: boolean; readonly addresses: readonly string[] } | undefined,
  bound: ReadonlySet<string>,
): IpvsDriftKind[] {
  if (link === undefined || !link.up) return ['link'];
  const present = new Set(link.addresses);
  return [...bound].some((a) => !present.has(a)) ? ['address'] : [];
}
