/**
 * The iptables backend as every kpng program loads it: `kpng-iptables`, `kpng --backend iptables`,
 * and (with kube-proxy's own flags mapped onto the same options) the compat kube-proxy. Flags are
 * named as kube-proxy names them where one exists. `parseFlags` is pure: values in, config out.
 */
import {
  csvFlag,
  defineBackend,
  LOCAL_DETECTOR_FLAGS,
  parseLocalDetector,
  parseWriteTimeout,
  UsageError,
  WRITE_TIMEOUT_FLAG,
  type FlagValues,
  type IPFamily,
} from '@kpng/core';
import { IptablesBackend } from '../backend/iptables-backend.js';
import { explainIptables } from '../explain/explain.js';
import { resolveConfig, type IptablesConfig, type IptablesFlavour } from '../render/config.js';

const text = (values: FlagValues, name: string): string | undefined => values[name] as string | undefined;

function bool(values: FlagValues, name: string, fallback: boolean): boolean {
  const value = text(values, name);
  if (value === undefined) return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new UsageError(`--${name} takes true or false, not ${JSON.stringify(value)}`);
}

/** What the flags configure: the rendering, and how long an iptables command may run. */
export type IptablesFlagConfig = IptablesConfig & { readonly writeTimeoutMs?: number };

/** The iptables backend's own flags to its configuration; every problem is a UsageError naming the flag. */
export function parseIptablesFlags(values: FlagValues): IptablesFlagConfig {
  const nodePorts = text(values, 'nodeport-addresses');
  const families = csvFlag(text(values, 'ip-families'));
  if (families.some((f) => f !== 'IPv4' && f !== 'IPv6')) throw new UsageError('--ip-families takes IPv4, IPv6');
  const flavour = text(values, 'iptables-flavour') ?? 'auto';
  if (!['auto', 'legacy', 'nft'].includes(flavour))
    throw new UsageError('--iptables-flavour takes auto, legacy or nft');
  const rawBit = text(values, 'masquerade-bit');
  try {
    return {
      ...parseWriteTimeout(values),
      ...resolveConfig({
        ...(families.length > 0 ? { families: families as IPFamily[] } : {}),
        nodePortAddresses: nodePorts === 'primary' ? 'primary' : csvFlag(nodePorts),
        localhostNodePorts: bool(values, 'iptables-localhost-nodeports', true),
        localDetector: parseLocalDetector(values),
        masqueradeAll: values['masquerade-all'] === true,
        ...(rawBit === undefined ? {} : { masqueradeBit: Number(rawBit) }),
        conntrackTCPLiberal: values['conntrack-tcp-be-liberal'] === true,
        flavour: flavour as IptablesFlavour,
      }),
    };
  } catch (e) {
    throw e instanceof UsageError ? e : new UsageError((e as Error).message);
  }
}

export const backend = defineBackend<IptablesFlagConfig>({
  name: 'iptables',
  program: 'kpng-iptables',
  proxyMode: 'iptables',
  summary: "programs kube-proxy's iptables chains (KUBE-SERVICES, KUBE-SVC-*, ...) with iptables-restore",
  flags: {
    'nodeport-addresses': {
      type: 'string',
      value: 'LIST',
      help: '"primary" or CIDRs, comma separated',
      default: 'every local address',
    },
    'iptables-localhost-nodeports': {
      type: 'string',
      value: 'BOOL',
      help: 'accept IPv4 NodePorts on 127.0.0.1 (sets route_localnet)',
      default: 'true',
    },
    ...LOCAL_DETECTOR_FLAGS,
    'masquerade-all': { type: 'boolean', help: 'masquerade all ClusterIP traffic' },
    'masquerade-bit': { type: 'string', value: 'N', help: 'mark bit for masquerading', default: '14' },
    'conntrack-tcp-be-liberal': {
      type: 'boolean',
      help: 'nf_conntrack_tcp_be_liberal is set: do not drop INVALID packets',
    },
    'iptables-flavour': {
      type: 'string',
      value: 'FLAVOUR',
      help: 'auto (the installed iptables), legacy or nft',
      default: 'auto',
    },
    'ip-families': { type: 'string', value: 'LIST', help: 'IPv4,IPv6', default: 'both' },
    ...WRITE_TIMEOUT_FLAG,
  },
  parseFlags: parseIptablesFlags,
  create: (config, ctx) =>
    new IptablesBackend({ ...config, ...(ctx.netns === undefined ? {} : { netns: ctx.netns }), metrics: ctx.registry }),
  explain: explainIptables,
});
