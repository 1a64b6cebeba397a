/** The IPVS backend's configuration: kube-proxy's IPVS flags and the masquerade knobs it shares with nft. */
export interface IpvsConfig {
  /** `--ipvs-scheduler`; default `rr`. */
  readonly scheduler: string;
  /** `--ipvs-strict-arp`: arp_ignore=1, arp_announce=2 so the node does not answer ARP for kube-ipvs0's addresses. */
  readonly strictARP: boolean;
  /** `--ipvs-tcp-timeout`, `--ipvs-tcpfin-timeout`, `--ipvs-udp-timeout` in seconds; 0 leaves the kernel's value. */
  readonly tcpTimeout: number;
  readonly tcpFinTimeout: number;
  readonly udpTimeout: number;
  /** `--ipvs-exclude-cidrs`: real servers and virtual servers inside these are never touched (nor cleaned up). */
  readonly excludeCIDRs: readonly string[];
  /** Sources inside these are pods: ClusterIP traffic from elsewhere is masqueraded (`--cluster-cidr`). */
  readonly clusterCIDRs: readonly string[];
  /** `--masquerade-all`: masquerade all Service traffic. */
  readonly masqueradeAll: boolean;
  /**
   * Which node addresses NodePorts listen on (`--nodeport-addresses`): CIDRs, or `["primary"]` (the
   * node's first address of each family); empty = every node address, upstream's IPVS default.
   */
  readonly nodePortAddresses: readonly string[];
  /** Mark bit for masquerading (`--iptables-masquerade-bit`, default 14). */
  readonly masqueradeBit: number;
}

export const DEFAULT_IPVS_CONFIG: IpvsConfig = {
  scheduler: 'rr',
  strictARP: false,
  tcpTimeout: 0,
  tcpFinTimeout: 0,
  udpTimeout: 0,
  excludeCIDRs: [],
  clusterCIDRs: [],
  masqueradeAll: false,
  nodePortAddresses: [],
  masqueradeBit: 14,
};

/** `nodePortAddresses: ["primary"]`. */
export const NODE_PORT_PRIMARY = 'primary';

/** The dummy link that holds every Service address, so the kernel delivers them locally to IPVS. */
export const DUMMY_LINK = 'kube-ipvs0';
/** The nftables table (one per family) for what IPVS cannot do: masquerade, reject, drop. */
export const NFT_TABLE = 'kpng-ipvs';
