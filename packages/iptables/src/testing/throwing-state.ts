import type { LocalService, NodeLocalState } from '@kpng/core';

/**
 * The state with one Service whose rendering throws (a bug in rendering, or a broken object):
 * `where` is what throws, `ports` before rendering starts (the endpoint count), `families` while
 * rendering, after every other Service (it is last).
 */
export function throwingState(state: NodeLocalState, where: 'ports' | 'families' = 'ports'): NodeLocalState {
  const [first, ...rest] = state.services;
  const broken = Object.create(first as LocalService, {
    [where]: {
      get() {
        throw new Error('render bug');
      },
    },
  }) as LocalService;
  return { ...state, services: [...rest, broken] };
}
