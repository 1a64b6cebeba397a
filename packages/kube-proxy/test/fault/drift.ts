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
  {
    name: 'nft flush ruleset',
    kind: 'table',
    foundBy: 'check',
    run: (ns) => nft(ns, 'flush', 'ruleset'),
  },
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

const iptables = async (ns: NetworkNamespace, ...args: string[]): Promise<void> => {
  await ns.exec(['iptables', '-w', '5', ...args]);
};

const restoreEmpty = async (ns: NetworkNamespace, tables: readonly string[]): Promise<void> => {
  await ns.exec(['iptables-restore', '-w', '5'], { input: tables.map((t) => `*${t}\nCOMMIT\n`).join('') });
};

export const IPTABLES_DRIFT: readonly DriftCase[] = [
  {
    name: 'iptables -t nat -F',
    kind: 'rule',
    foundBy: 'check',
    run: (ns) => iptables(ns, '-t', 'nat', '-F'),
  },
  {
    name: 'iptables -t filter -F',
    kind: 'rule',
    foundBy: 'check',
    run: (ns) => iptables(ns, '-t', 'filter', '-F'),
  },
  {
    // iptables-restore without --noflush empties the tables it names and deletes their chains,
    // in one step (a check can never see half of it), as a firewall reload does.
    name: 'KUBE-* chains deleted (nat reloaded empty)',
    kind: 'rule',
    foundBy: 'check',
    run: (ns) => restoreEmpty(ns, ['nat']),
  },
  {
    name: 'one rule deleted (PREROUTING -> KUBE-SERVICES)',
    kind: 'rule',
    foundBy: 'check',
    run: (ns) =>
      iptables(
        ns,
        '-t',
        'nat',
        '-D',
        'PREROUTING',
        '-m',
        'comment',
        '--comment',
        'kubernetes service portals',
        '-j',
        'KUBE-SERVICES',
      ),
  },
  {
    name: 'nat, filter and mangle reloaded empty (the canary too)',
    kind: 'table',
    foundBy: 'check',
    // mangle (the canary) first: iptables-nft-restore commits table by table, and a check between
    // two commits must already see the canary gone.
    run: (ns) => restoreEmpty(ns, ['mangle', 'nat', 'filter']),
  },
];
