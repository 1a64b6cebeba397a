/**
 * The nftables backend as every kpng program loads it: `kpng-nft`, `kpng --backend nft`, and (with
 * kube-proxy's own flags mapped onto the same options) the compat kube-proxy. Flags are named as
 * kube-proxy names them where one exists. `parseFlags` is pure: values in, validated config out.
 */
import {
  csvFlag as csv,
  defineBackend,
  LOCAL_DETECTOR_FLAGS,
  parseLocalDetector,
  parseWriteTimeout,
  UsageError,
  WRITE_TIMEOUT_FLAG,
  type FlagValues,
  type IPFamily,
} from '@kpng/core';
import { NftBackend } from '../backend/nft-backend.js';
import { explainNft } from '../explain/explain.js';
import { resolveConfig, type NftConfig } from '../render/config.js';

const text = (values: FlagValues, name: string): string | undefined => values[name] as string | undefined;

/** What the flags configure: the rendering, and how long an nft command may run. */
export type NftFlagConfig = NftConfig & { readonly writeTimeoutMs?: number };

/** The nft backend's own flags to its configuration; every problem is a UsageError naming the flag. */
export function parseNftFlags(values: FlagValues): NftFlagConfig {
  const nodePorts = text(values, 'nodeport-addresses');
  const families = csv(text(values, 'ip-families'));
  if (families.some((f) => f !== 'IPv4' && f !== 'IPv6')) throw new UsageError('--ip-families takes IPv4, IPv6');
  const rawBit = text(values, 'masquerade-bit');
  try {
    return {
      ...parseWriteTimeout(values),
      ...resolveConfig({
        ...(families.length > 0 ? { families: families as IPFamily[] } : {}),
        ...(nodePorts === undefined || nodePorts === 'primary' ? {} : { nodePortAddresses: csv(nodePorts) }),
        localDetector: parseLocalDetector(values),
        masqueradeAll: values['masquerade-all'] === true,
        ...(rawBit === undefined ? {} : { masqueradeBit: Number(rawBit) }),
        serviceCIDRs: csv(text(values, 'service-cidrs')),
      }),
    };
  } catch (e) {
    throw e instanceof UsageError ? e : new UsageError((e as Error).message);
  }
}

export const backend = defineBackend<NftFlagConfig>({
  name: 'nft',
  program: 'kpng-nft',
  proxyMode: 'nftables',
  summary: 'programs the nftables tables "ip kpng" and "ip6 kpng" (and nothing else)',
  flags: {
    'nodeport-addresses': {
      type: 'string',
      value: 'LIST',
      help: '"primary" or CIDRs, comma separated (0.0.0.0/0 = every address)',
      default: 'primary',
    },
    ...LOCAL_DETECTOR_FLAGS,
    'service-cidrs': {
      type: 'string',
      value: 'LIST',
      help: 'service CIDRs: traffic to unallocated addresses in them is dropped',
    },
    'masquerade-all': { type: 'boolean', help: 'masquerade all ClusterIP traffic' },
    'masquerade-bit': { type: 'string', value: 'N', help: 'mark bit for masquerading', default: '14' },
    'ip-families': { type: 'string', value: 'LIST', help: 'IPv4,IPv6', default: 'both' },
    ...WRITE_TIMEOUT_FLAG,
  },
  parseFlags: parseNftFlags,
  create: (config, ctx) =>
    new NftBackend({ ...config, ...(ctx.netns === undefined ? {} : { netns: ctx.netns }), metrics: ctx.registry }),
  explain: explainNft,
});
