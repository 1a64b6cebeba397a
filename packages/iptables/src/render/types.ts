/** A rendered Service for one family: rules for the shared top-level chains and its own nat chains. */
export interface RenderedService {
  /** `-A <top filter chain> ...` lines (KUBE-SERVICES, KUBE-EXTERNAL-SERVICES, KUBE-NODEPORTS, KUBE-PROXY-FIREWALL). */
  readonly filter: readonly string[];
  /** `-A KUBE-SERVICES ...` / `-A KUBE-NODEPORTS ...` nat lines. */
  readonly nat: readonly string[];
  /** The Service's own nat chains (KUBE-SVC/SVL/EXT/FW/SEP), in writing order, with their `-A` lines. */
  readonly chains: ReadonlyMap<string, readonly string[]>;
}

export const EMPTY_SERVICE: RenderedService = { filter: [], nat: [], chains: new Map() };
