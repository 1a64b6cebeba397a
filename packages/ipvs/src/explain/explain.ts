/**
 * `explain` for the ipvs backend: the Service from the API server (`ExplainContext.lookupService`:
 * IPVS keeps no names), then, read once and never written, IPVS over netlink (virtual servers with
 * their counters, the selected ones' real servers), kube-ipvs0's addresses (`ip -j addr show`) and
 * each family's `kpng-ipvs` table (`nft list table`), selected by `select.ts`.
 */
import type { ExplainContext, ExplainReport, ServiceRef } from '@kpng/core';
import { inNetns } from '@kpng/kit';
import { parseListing } from '@kpng/nftables';
import { NodeHost } from '../backend/host.js';
import { NetlinkIpvs } from '../ipvs/netlink-ipvs.js';
import type { IpvsFamily, VirtualServer } from '../ipvs/types.js';
import { DUMMY_LINK, NFT_TABLE } from '../render/options.js';
import { filterReport, type FilterElement, ipvsReport, type ObservedReal, selectVirtualServers } from './select.js';

const FAMILIES: readonly IpvsFamily[] = ['IPv4', 'IPv6'];
const firstLine = (e: unknown): string => ((e as Error).message ?? String(e)).split('\n')[0] ?? '';

export async function explainIpvs(service: ServiceRef, ctx: ExplainContext): Promise<ExplainReport[]> {
  if (ctx.lookupService === undefined)
    throw new Error(
      `IPVS keeps no Service names: explain needs the API server to find ${service.namespace}/${service.name}`,
    );
  const model = await ctx.lookupService();
  const host = new NodeHost(ctx.execer, ctx.netns);
  const bound = (await host.inspectLink())?.addresses ?? [];
  const source = `IPVS${ctx.netns === undefined ? '' : ` (netns ${ctx.netns})`} and ${DUMMY_LINK}`;
  const reports: ExplainReport[] = [];
  let selected: ReturnType<typeof selectVirtualServers> = [];
  const reals = new Map<VirtualServer, readonly ObservedReal[]>();
  let ipvs: NetlinkIpvs | undefined;
  try {
    ipvs = new NetlinkIpvs(ctx.netns === undefined ? {} : { netns: ctx.netns });
    selected = selectVirtualServers(model, ipvs.listVirtualServerStats(), bound);
    for (const { observed } of selected) reals.set(observed.vs, ipvs.listRealServerStats(observed.vs));
    reports.push(ipvsReport(source, selected, (vs) => reals.get(vs) ?? [], model, bound));
  } catch (e) {
    reports.push({ source: `${source} (IPVS not readable: ${firstLine(e)})`, sections: [] });
  } finally {
    ipvs?.close();
  }
  const vss = selected.map(({ observed }) => observed.vs);
  const realServers = [...reals.values()].flat().map(({ rs }) => rs);
  for (const family of FAMILIES) {
    const table = ['table', family === 'IPv4' ? 'ip' : 'ip6', NFT_TABLE];
    const tableSource = `nftables ${table.join(' ')}`;
    const listed = await ctx.execer.run(inNetns(ctx.netns, ['nft', 'list', ...table]), '');
    if (listed.exitCode !== 0) {
      reports.push({
        source: `${tableSource} (not readable: ${firstLine(new Error(listed.stderr.trim()))})`,
        sections: [],
      });
      continue;
    }
    const elements: FilterElement[] = [];
    for (const o of parseListing(listed.stdout))
      if (o.kind === 'element' && o.set !== undefined) elements.push({ set: o.set, key: o.key });
    reports.push(filterReport(tableSource, family, elements, vss, realServers));
  }
  return reports;
}
