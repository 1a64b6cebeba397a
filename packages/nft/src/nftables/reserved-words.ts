/**
 * Words nft's scanner turns into keywords somewhere in its grammar. A keyword can never be an
 * object name (nft only accepts bare identifiers as names, and refuses quoted ones), so names
 * equal to any of these are rejected up front.
 *
 * The list is the union of the bison token names compiled into libnftables 1.0.6 and the
 * literals of a newer scanner.l. Many are keywords only in one scanner state (e.g. `ll` after
 * `@`), but we reserve them everywhere: being conservative keeps names valid on every nft release
 * and in every position a name can appear (table, chain, `@set`, `goto chain`).
 */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'a-rwnd', 'abort', 'accept', 'ackseq', 'add', 'addr', 'ah', 'all', 'and', 'arp', 'asconf',
  'asconf-ack', 'auto-merge', 'avgpkt', 'bridge', 'burst', 'bypass', 'bytes', 'cfi', 'cgroup',
  'cgroupv2', 'chain', 'chains', 'check', 'checksum', 'chunk', 'classid', 'code', 'colon',
  'comma', 'comment', 'comp', 'constant', 'continue', 'cookie-ack', 'cookie-echo', 'count',
  'counter', 'counters', 'cpi', 'cpu', 'create', 'csumcov', 'ct', 'cum-tsn-ack', 'cwr',
  'daddr', 'data', 'day', 'dccp', 'define', 'dei', 'delete', 'describe', 'destroy', 'device',
  'devices', 'direction', 'dnat', 'doff', 'dport', 'drop', 'dscp', 'dst', 'dup', 'dynamic',
  'echo', 'ecn', 'ecne', 'element', 'elements', 'eol', 'eq', 'error', 'esp', 'ether', 'event',
  'exists', 'expectation', 'expiration', 'expires', 'export', 'exthdr', 'fanout', 'fastopen',
  'fib', 'flags', 'flow', 'flowlabel', 'flowtable', 'flowtables', 'flush', 'forward-tsn',
  'frag', 'frag-off', 'fully-random', 'fwd', 'gateway', 'gc-interval', 'ge', 'geneve',
  'get', 'goto', 'gre', 'gretap', 'group', 'gt', 'handle', 'hbh', 'hdrlength', 'heartbeat',
  'heartbeat-ack', 'helper', 'helpers', 'hlen', 'hook', 'hooks', 'hoplimit', 'hour', 'htype',
  'ibriport', 'ibrname', 'icmp', 'icmpv6', 'icmpx', 'id', 'igmp', 'iif', 'iifgroup', 'iifname',
  'iiftype', 'import', 'in', 'inc', 'include', 'index', 'inet', 'init', 'init-ack', 'init-tag',
  'initial-tsn', 'insert', 'interval', 'ip', 'ip6', 'ipsec', 'jhash', 'json', 'jump', 'junk',
  'l3proto', 'label', 'last', 'last-entry', 'le', 'left', 'length', 'level', 'limit', 'limits',
  'list', 'll', 'log', 'lowest-tsn', 'lshift', 'lsrr', 'lt', 'map', 'maps', 'mark', 'masquerade',
  'max-delay', 'maxseg', 'md5sig', 'memory', 'meta', 'meter', 'meters', 'mh', 'minute',
  'missing', 'mod', 'monitor', 'more-fragments', 'mptcp', 'mrt', 'mss', 'mtu', 'name', 'ne',
  'netdev', 'never', 'new-cum-tsn', 'newline', 'nexthdr', 'nexthop', 'nftrace', 'nh', 'noop',
  'nop', 'not', 'notrack', 'num', 'num-dup-tsns', 'num-gap-ack-blocks', 'num-inbound-streams',
  'num-outbound-streams', 'number', 'numgen', 'obriport', 'obrname', 'offload', 'offset',
  'oif', 'oifgroup', 'oifname', 'oiftype', 'operation', 'option', 'options', 'or', 'original',
  'osf', 'out', 'over', 'packets', 'param-problem', 'pcp', 'performance', 'persistent',
  'pkttype', 'plen', 'policy', 'port', 'position', 'ppid', 'prefix', 'priority', 'proto-dst',
  'proto-src', 'protocol', 'ptr', 'ptype', 'queue', 'queue-threshold', 'quota', 'quotas',
  'ra', 'random', 'rate', 'redefine', 'redirect', 'reject', 'rename', 'replace', 'reply',
  'reqid', 'reserved', 'reserved2', 'reset', 'return', 'right', 'rr', 'rshift', 'rt', 'rt0',
  'rt2', 'rtclassid', 'rule', 'rules', 'ruleset', 'sack', 'sack-perm', 'sack-permitted',
  'sack0', 'sack1', 'sack2', 'sack3', 'saddr', 'sctp', 'secmark', 'secmarks', 'second',
  'seed', 'seg-left', 'semicolon', 'seq', 'seqno', 'sequence', 'set', 'sets', 'shutdown',
  'shutdown-ack', 'shutdown-complete', 'sid', 'size', 'skgid', 'skuid', 'snaplen', 'snat',
  'socket', 'spi', 'spnum', 'sport', 'srh', 'ssn', 'ssrr', 'state', 'status', 'stream',
  'string', 'subtype', 'symhash', 'synproxy', 'synproxys', 'table', 'tables', 'taddr', 'tag',
  'tcp', 'th', 'time', 'timeout', 'timestamp', 'to', 'tos', 'tproxy', 'trace', 'transparent',
  'tsecr', 'tsn', 'tsval', 'ttl', 'tunnel', 'tunnels', 'type', 'typeof', 'udp', 'udplite',
  'undefine', 'until', 'update', 'urgptr', 'used', 'value', 'version', 'vlan', 'vm', 'vmap',
  'vni', 'vtag', 'vxlan', 'week', 'wildcard', 'window', 'with', 'wscale', 'xml', 'xor', 'xt',
  'zone',
]);
