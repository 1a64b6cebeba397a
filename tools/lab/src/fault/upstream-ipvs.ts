// Upstream kube-proxy's ipvs mode state on a node, as its source (pkg/proxy/ipvs, v1.28-v1.34)
// programs it for one ClusterIP Service: its 17 ipsets (hash types as its ipsetInfo), its iptables
// chains with their jumps (createAndLinkKubeChain's iptablesJumpChain, writeIptablesRules' rules,
// the masquerade mark 0x4000), and (`ipvsCommands`) `kube-ipvs0` with the ClusterIP and the
// virtual server with its real servers in masquerade mode. The last need IPVS and dummy links: only
// the lab's VM has them; a namespace on this machine holds the ipsets and chains
// (packages/kube-proxy/test/swap.e2e.test.ts).

/** [name, type] of upstream's ipsetInfo. */
export const IPVS_MODE_IPSETS: readonly (readonly [string, string])[] = [
  ['KUBE-LOOP-BACK', 'hash:ip,port,ip'],
  ['KUBE-CLUSTER-IP', 'hash:ip,port'],
  ['KUBE-EXTERNAL-IP', 'hash:ip,port'],
  ['KUBE-EXTERNAL-IP-LOCAL', 'hash:ip,port'],
  ['KUBE-LOAD-BALANCER', 'hash:ip,port'],
  ['KUBE-LOAD-BALANCER-FW', 'hash:ip,port'],
  ['KUBE-LOAD-BALANCER-LOCAL', 'hash:ip,port'],
  ['KUBE-LOAD-BALANCER-SOURCE-IP', 'hash:ip,port,ip'],
  ['KUBE-LOAD-BALANCER-SOURCE-CIDR', 'hash:ip,port,net'],
  ['KUBE-NODE-PORT-TCP', 'bitmap:port range 0-65535'],
  ['KUBE-NODE-PORT-LOCAL-TCP', 'bitmap:port range 0-65535'],
  ['KUBE-NODE-PORT-UDP', 'bitmap:port range 0-65535'],
  ['KUBE-NODE-PORT-LOCAL-UDP', 'bitmap:port range 0-65535'],
  ['KUBE-NODE-PORT-SCTP-HASH', 'hash:ip,port'],
  ['KUBE-NODE-PORT-LOCAL-SCTP-HASH', 'hash:ip,port'],
  ['KUBE-HEALTH-CHECK-NODE-PORT', 'bitmap:port range 0-65535'],
  ['KUBE-IPVS-IPS', 'hash:ip'],
];

/** `ipset restore` input: the sets, and the entries of one ClusterIP Service and a NodePort. */
export function ipsetRestore(clusterIp: string, port: number, endpoint: string, endpointPort: number): string {
  return [
    ...IPVS_MODE_IPSETS.map(([name, type]) => `create ${name} ${type}`),
    `add KUBE-CLUSTER-IP ${clusterIp},tcp:${port}`,
    `add KUBE-IPVS-IPS ${clusterIp}`,
    `add KUBE-LOOP-BACK ${endpoint},tcp:${endpointPort},${endpoint}`,
    'add KUBE-NODE-PORT-TCP 30080',
    '',
  ].join('\n');
}

/** `iptables-restore --noflush` input (IPv4), with the sets' matches as writeIptablesRules writes them. */
export function iptablesRestore(podCidr: string): string {
  return `*nat
:KUBE-SERVICES - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-NODE-PORT - [0:0]
:KUBE-LOAD-BALANCER - [0:0]
:KUBE-MARK-MASQ - [0:0]
-I OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-I PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-I POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING
-A KUBE-SERVICES -s 127.0.0.0/8 -j RETURN
-A KUBE-POSTROUTING -m comment --comment "Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose" -m set --match-set KUBE-LOOP-BACK dst,dst,src -j MASQUERADE
-A KUBE-NODE-PORT -p tcp -m comment --comment "Kubernetes nodeport TCP port for masquerade purpose" -m set --match-set KUBE-NODE-PORT-TCP dst -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst ! -s ${podCidr} -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT
-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT
-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
COMMIT
*filter
:KUBE-FORWARD - [0:0]
:KUBE-NODE-PORT - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-SOURCE-RANGES-FIREWALL - [0:0]
:KUBE-IPVS-FILTER - [0:0]
:KUBE-IPVS-OUT-FILTER - [0:0]
-I FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD
-I INPUT -m comment --comment "kubernetes health check rules" -j KUBE-NODE-PORT
-I INPUT -m comment --comment "kube-proxy firewall rules" -j KUBE-PROXY-FIREWALL
-I FORWARD -m comment --comment "kube-proxy firewall rules" -j KUBE-PROXY-FIREWALL
-I INPUT -m comment --comment "kubernetes ipvs access filter" -j KUBE-IPVS-FILTER
-I OUTPUT -m comment --comment "kubernetes ipvs access filter" -j KUBE-IPVS-OUT-FILTER
-A KUBE-PROXY-FIREWALL -m comment --comment "Kubernetes service load balancer ip + port for load balancer with sourceRange" -m set --match-set KUBE-LOAD-BALANCER-FW dst,dst -j KUBE-SOURCE-RANGES-FIREWALL
-A KUBE-SOURCE-RANGES-FIREWALL -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A KUBE-NODE-PORT -m comment --comment "Kubernetes health check node port" -m set --match-set KUBE-HEALTH-CHECK-NODE-PORT dst -j ACCEPT
-A KUBE-IPVS-FILTER -m set --match-set KUBE-LOAD-BALANCER dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-CLUSTER-IP dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-EXTERNAL-IP dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-EXTERNAL-IP-LOCAL dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-HEALTH-CHECK-NODE-PORT dst -j RETURN
-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set KUBE-IPVS-IPS dst -j REJECT
COMMIT
`;
}

/** `kube-ipvs0` holding the ClusterIP, and its virtual server (rr, masquerade), as upstream's sync makes them. */
export function ipvsCommands(
  clusterIp: string,
  port: number,
  endpoints: readonly string[],
  endpointPort: number,
): string[][] {
  return [
    ['ip', 'link', 'add', 'kube-ipvs0', 'type', 'dummy'],
    ['ip', 'addr', 'add', `${clusterIp}/32`, 'dev', 'kube-ipvs0'],
    ['ipvsadm', '-A', '-t', `${clusterIp}:${port}`, '-s', 'rr'],
    ...endpoints.map((ep) => ['ipvsadm', '-a', '-t', `${clusterIp}:${port}`, '-r', `${ep}:${endpointPort}`, '-m']),
  ];
}
