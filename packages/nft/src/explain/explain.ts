/** `explain` for the nft backend: each family's table as JSON (elements) and text (chains), then `selectServiceObjects`. */
import type { ExplainContext, ExplainReport, ServiceRef } from '@kpng/core';
import { inNetns } from '@kpng/kit';
import type { NftConfig } from '../render/config.js';
import { selectServiceObjects } from './select.js';

export async function explainNft(
  config: Pick<NftConfig, 'families' | 'tableName'>,
  service: ServiceRef,
  ctx: ExplainContext,
): Promise<ExplainReport[]> {
  const reports: ExplainReport[] = [];
  for (const family of config.families) {
    const table = ['table', family === 'IPv4' ? 'ip' : 'ip6', config.tableName];
    const source = `nftables ${table.join(' ')}`;
    const json = await ctx.execer.run(inNetns(ctx.netns, ['nft', '-j', 'list', ...table]), '');
    if (json.exitCode !== 0) {
      reports.push({ source: `${source} (not readable: ${json.stderr.trim().split('\n')[0] ?? ''})`, sections: [] });
      continue;
    }
    const text = await ctx.execer.run(inNetns(ctx.netns, ['nft', 'list', ...table]), '');
    reports.push({ source, sections: selectServiceObjects(json.stdout, text.stdout, service) });
  }
  return reports;
}
