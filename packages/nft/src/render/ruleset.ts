/**
 * `render(state, config)`: the whole desired table of each family, from scratch. The backend
 * renders the same pieces incrementally (see `apply/`); this composition is what tests, the
 * tracer and golden dumps look at.
 */
import type { IPFamily, NodeLocalState } from '@kpng/core';
import { resolveConfig, type NftConfig, type NftConfigInput } from './config.js';
import { renderContext } from './context.js';
import { renderNodeElements } from './node.js';
import { renderService } from './service.js';
import { skeletonChains, skeletonSets } from './skeleton.js';
import { SlotMemory } from './slots.js';
import { listElements, type ChainSpec, type ElementSpec, type FamilyRuleset } from './types.js';

export function renderFamily(
  state: NodeLocalState,
  config: NftConfig,
  family: IPFamily,
  slots = new SlotMemory(),
): FamilyRuleset {
  const ctx = renderContext(config, family, state.node);
  const chains = new Map<string, ChainSpec>(skeletonChains(ctx).map((c) => [c.name, c]));
  const elements = new Map<string, ElementSpec>();
  const add = (element: ElementSpec): void => {
    const id = `${element.container} ${element.key.join(' . ')}`;
    if (!elements.has(id)) elements.set(id, element); // first Service (by key order) wins a contested key
  };
  renderNodeElements(ctx, state.node).forEach(add);
  for (const svc of state.services) {
    const assignment = slots.begin(svc.key);
    const rendered = renderService(svc, ctx, assignment);
    slots.remember(svc.key, assignment);
    rendered.elements.forEach(add);
    for (const list of rendered.lists) listElements(list).forEach(add);
    for (const chain of rendered.chains) if (!chains.has(chain.name)) chains.set(chain.name, chain);
  }
  return { sets: skeletonSets(ctx), chains: [...chains.values()], elements: [...elements.values()] };
}

export function render(state: NodeLocalState, input: NftConfig | NftConfigInput = {}): Map<IPFamily, FamilyRuleset> {
  const config = resolveConfig(input);
  return new Map(config.families.map((family) => [family, renderFamily(state, config, family)]));
}
