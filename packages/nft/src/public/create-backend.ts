/**
 * What core's `kpng --backend @kpng/nft` loads: `createBackend({ nodeName })`. The backend's own
 * flags come from `KPNG_NFT_FLAGS` (the `kpng-nft` flags, e.g. `--cluster-cidr 10.0.0.0/8`); its
 * metrics go to prom-client's default registry, which core's metrics server serves.
 */
import { register } from 'prom-client';
import { NftBackend } from '../backend/nft-backend.js';
import { parseOptions } from '../cli/options.js';

export function createBackend(options: { readonly nodeName: string }, env: NodeJS.ProcessEnv = process.env): NftBackend {
  const flags = (env['KPNG_NFT_FLAGS'] ?? '').split(/\s+/).filter((flag) => flag !== '');
  const parsed = parseOptions(flags, env, options.nodeName);
  return new NftBackend({ ...parsed.config, ...(parsed.netns === undefined ? {} : { netns: parsed.netns }), metrics: register });
}
