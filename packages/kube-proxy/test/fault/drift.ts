// The drift cases: another program removes what the proxy programmed, nothing changes in the API.
// Each case is the command the other program runs inside the node namespace, for nft or iptables.
import type { NetworkNamespace } from '@kpng/lab';

export interface DriftCase {
  readonly name: string;
  /** The `kpng_sync_drift_repairs_total` kind the repair is counted under. */
  readonly kind: string;
  /** Found by the check every syncPeriod (`check`), or only by the full resync (`resync`). */
  readonly foundBy: 'check' | 'resync';
  /** Breaks the rules in `ns`; `table` is the program's nft table. */
  readonly run: (ns: NetworkNamespace, table: string, clusterIP: string) => Promise<void>;
}

const nft = async (ns: NetworkNamespace, ...args: string[]): Promise<void> => {
  await ns.exec(['nft', ...args]);
};

export const NFT_DRIFT: readonly DriftCase[] = [
  { name: 'nft flush ruleset', kind: 'table', foundBy: 'check', run: (ns) => nft(ns, 'flush', 'ruleset') },
  {
    name: 'delete table',
    kind: 'table',
    foundBy: 'check',
    run: async (ns, table) => {
      await nft(ns, 'delete', 'table', 'ip', table);
      await nft(ns, 'delete', 'table', 'ip6', table);
    },
  },
  {
    name: 'delete chain nat-prerouting',
    kind: 'chain',
    foundBy: 'check',
    run: (ns, table) => nft(ns, 'delete', 'chain', 'ip', table, 'nat-prerouting'),
  },
  {
    name: 'delete the Service map element',
    kind: 'element',
    foundBy: 'resync',
    run: (ns, table, ip) => nft(ns, 'delete', 'element', 'ip', table, 'service-ips', `{ ${ip} . tcp . 80 }`),
  },
];
