/**
 * The IPVS backend as every kpng program loads it: `kpng-ipvs`, `kpng --backend ipvs`, and the compat
 * kube-proxy's `--proxy-mode ipvs`. Flags are named as kube-proxy names them. `parseFlags` is pure.
 */
import { isIP } from 'node:net';
import {
  createLogger,
  defineBackend,
  parseWriteTimeout,
  UsageError,
  WRITE_TIMEOUT_FLAG,
  type FlagValues,
} from '@kpng/core';
import { IpvsBackend } from '../backend/ipvs-backend.js';
import { explainIpvs } from '../explain/explain.js';
import { KERNEL_SCHEDULERS } from '../ipvs/fake-ipvs.js';
import { DEFAULT_IPVS_CONFIG, type IpvsConfig, NODE_PORT_PRIMARY } from '../render/options.js';
import { durationSeconds } from './duration.js';

const csv = (text: string | undefined): string[] =>
  text === undefined || text.trim() === ''
    ? []
    : text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
const text = (values: FlagValues, name: string): string | undefined => values[name] as string | undefined;
const CIDR = /^[0-9a-fA-F:.]+\/\d{1,3}$/;

function cidrs(values: FlagValues, flag: string): string[] {
  const list = csv(text(values, flag));
  const bad = list.find((c) => !CIDR.test(c) || isIP(c.split('/')[0] ?? '') === 0);
  if (bad !== undefined) throw new UsageError(`--${flag}: bad CIDR ${JSON.stringify(bad)}`);
  return list;
}

function seconds(values: FlagValues, flag: string): number {
  const raw = text(values, flag);
  if (raw === undefined) return 0;
  const value = durationSeconds(raw);
  if (value === undefined) throw new UsageError(`--${flag}: not a duration: ${JSON.stringify(raw)} (e.g. 900s, 15m)`);
  return value;
}

/** `primary`, or CIDRs (a bare address is that one address: kpng-ipvs once took addresses). */
function nodePortSelection(list: readonly string[]): string[] {
  if (list.includes(NODE_PORT_PRIMARY)) {
    if (list.length > 1) throw new UsageError(`--nodeport-addresses: can't use both "primary" and CIDRs`);
    return [NODE_PORT_PRIMARY];
  }
  return list.map((entry) => {
    if (isIP(entry) !== 0) return `${entry}/${isIP(entry) === 4 ? 32 : 128}`;
    if (!CIDR.test(entry) || isIP(entry.split('/')[0] ?? '') === 0)
      throw new UsageError(`--nodeport-addresses: not a CIDR or "primary": ${JSON.stringify(entry)}`);
    return entry;
  });
}

/** What the flags configure: IPVS and its tables, and how long an `nft`/`ip` command may run. */
export type IpvsFlagConfig = { readonly ipvs: IpvsConfig; readonly writeTimeoutMs?: number };

/** The IPVS backend's flags to its configuration; every problem is a UsageError naming the flag. */
export function parseIpvsFlags(values: FlagValues): IpvsConfig {
  const scheduler = text(values, 'ipvs-scheduler')?.trim() || DEFAULT_IPVS_CONFIG.scheduler;
  if (!KERNEL_SCHEDULERS.has(scheduler))
    throw new UsageError(
      `--ipvs-scheduler: unknown scheduler ${JSON.stringify(scheduler)} (${[...KERNEL_SCHEDULERS].join(', ')})`,
    );
  const nodePortAddresses = nodePortSelection(csv(text(values, 'nodeport-addresses')));
  const rawBit = text(values, 'masquerade-bit');
  const masqueradeBit = rawBit === undefined ? DEFAULT_IPVS_CONFIG.masqueradeBit : Number(rawBit);
  if (!Number.isInteger(masqueradeBit) || masqueradeBit < 0 || masqueradeBit > 31)
    throw new UsageError('--masquerade-bit must be 0..31');
  return {
    scheduler,
    strictARP: values['ipvs-strict-arp'] === true,
    tcpTimeout: seconds(values, 'ipvs-tcp-timeout'),
    tcpFinTimeout: seconds(values, 'ipvs-tcpfin-timeout'),
    udpTimeout: seconds(values, 'ipvs-udp-timeout'),
    excludeCIDRs: cidrs(values, 'ipvs-exclude-cidrs'),
    clusterCIDRs: cidrs(values, 'cluster-cidr'),
    masqueradeAll: values['masquerade-all'] === true,
    nodePortAddresses,
    masqueradeBit,
  };
}

export const backend = defineBackend<IpvsFlagConfig>({
  name: 'ipvs',
  program: 'kpng-ipvs',
  proxyMode: 'ipvs',
  summary:
    'programs IPVS virtual servers (netlink), addresses on kube-ipvs0 and the nftables tables "ip kpng-ipvs" / "ip6 kpng-ipvs"',
  flags: {
    'ipvs-scheduler': {
      type: 'string',
      value: 'NAME',
      help: 'IPVS scheduler (rr, wrr, lc, wlc, sh, dh, ...)',
      default: 'rr',
    },
    'ipvs-strict-arp': {
      type: 'boolean',
      help: 'arp_ignore=1, arp_announce=2: do not answer ARP for Service addresses',
    },
    'ipvs-tcp-timeout': {
      type: 'string',
      value: 'DURATION',
      help: 'idle TCP connection timeout (0 = the kernel default)',
      default: '0s',
    },
    'ipvs-tcpfin-timeout': {
      type: 'string',
      value: 'DURATION',
      help: 'TCP FIN_WAIT timeout (0 = the kernel default)',
      default: '0s',
    },
    'ipvs-udp-timeout': {
      type: 'string',
      value: 'DURATION',
      help: 'UDP timeout (0 = the kernel default)',
      default: '0s',
    },
    'ipvs-exclude-cidrs': {
      type: 'string',
      value: 'LIST',
      help: 'CIDRs whose virtual servers are not ours: never changed or cleaned up',
    },
    'cluster-cidr': {
      type: 'string',
      value: 'LIST',
      help: 'pod CIDRs: ClusterIP traffic from elsewhere is masqueraded',
    },
    'masquerade-all': { type: 'boolean', help: 'masquerade all Service traffic' },
    'masquerade-bit': { type: 'string', value: 'N', help: 'mark bit for masquerading', default: '14' },
    'nodeport-addresses': {
      type: 'string',
      value: 'LIST',
      help: 'node addresses NodePorts listen on: "primary" (the first of each family) or CIDRs, comma separated',
      default: 'every node address',
    },
    ...WRITE_TIMEOUT_FLAG,
  },
  parseFlags: (values) => ({ ipvs: parseIpvsFlags(values), ...parseWriteTimeout(values) }),
  explain: (_options, service, ctx) => explainIpvs(service, ctx),
  create: ({ ipvs, writeTimeoutMs }, ctx) =>
    new IpvsBackend({
      config: ipvs,
      ...(writeTimeoutMs === undefined ? {} : { writeTimeoutMs }),
      ...(ctx.netns === undefined ? {} : { netns: ctx.netns }),
      metrics: ctx.registry,
      logger: createLogger({ backend: 'ipvs', node: ctx.nodeName }),
    }),
});
