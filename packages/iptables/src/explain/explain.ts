/** `explain` for the iptables backend: one `iptables-save -c` per family, then `selectServiceRules`. */
import type { ExplainContext, ExplainReport, ServiceRef } from '@kpng/core';
import { inNetns, runChecked } from '@kpng/kit';
import { command } from '../iptables/commands.js';
import type { IptablesConfig } from '../render/config.js';
import { selectServiceRules } from './select.js';

export async function explainIptables(
  config: Pick<IptablesConfig, 'families' | 'flavour'>,
  service: ServiceRef,
  ctx: ExplainContext,
): Promise<ExplainReport[]> {
  const reports: ExplainReport[] = [];
  for (const family of config.families) {
    const save = command(family, config.flavour, 'save');
    const { stdout } = await runChecked(ctx.execer, inNetns(ctx.netns, [save, '-c']));
    reports.push({ source: `${save} (${family})`, sections: selectServiceRules(stdout, service) });
  }
  return reports;
}
