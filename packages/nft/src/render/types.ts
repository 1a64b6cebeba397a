/**
 * The rendered ruleset, as plain data: what the backend wants one family's table to contain.
 * `render` produces it from the node-local state; the apply layer turns it into nft operations;
 * the tracer walks it. Rule text is exactly what is sent to nft.
 */
import type { ChainHook, ChainType } from '@kpng/nftables';

export interface ChainSpec {
  readonly name: string;
  /** Base chains only. */
  readonly base?: { readonly type: ChainType; readonly hook: ChainHook; readonly priority: number };
  readonly rules: readonly string[];
  readonly comment?: string;
}

export interface SetSpec {
  readonly kind: 'set' | 'map';
  readonly name: string;
  /** Exactly one of `type` and `typeof`. */
  readonly type?: string;
  readonly typeof?: string;
  readonly flags?: readonly ('interval' | 'dynamic' | 'timeout')[];
  readonly size?: number;
  readonly comment: string;
  /** Its elements are written by the kernel (the affinity set): never flushed on a resync. */
  readonly dynamic?: boolean;
}

export interface ElementSpec {
  /** The set or map this element belongs to. */
  readonly container: string;
  readonly key: readonly string[];
  /** Map elements only. */
  readonly value?: readonly string[];
  readonly comment?: string;
}

/** An endpoint as a map element's value: the DNAT target. */
export interface EndpointTarget {
  readonly ip: string;
  readonly port: number;
}

/**
 * One endpoint list of one service address, in slot order: the map elements
 * `address . port . offset+i : ip . port` of `container` (an `endpoints-<proto>` map). Kept as a
 * list, not as elements, from render to the store: most of a table's elements are these, and a
 * list costs an array of references to core's own endpoints.
 */
export interface EndpointListSpec {
  readonly container: string;
  /** The service address, or the all-zero address for a NodePort's list. */
  readonly address: string;
  /** The service port, or the NodePort. */
  readonly port: number;
  /** Slot of the first endpoint (0, or the short-circuit offset). */
  readonly offset: number;
  readonly endpoints: readonly EndpointTarget[];
}

/** Slot `index` of a list, as an element. */
export function listElement(list: EndpointListSpec, index: number): ElementSpec {
  const ep = list.endpoints[index] as EndpointTarget;
  return {
    container: list.container,
    key: [list.address, String(list.port), String(list.offset + index)],
    value: [ep.ip, String(ep.port)],
  };
}

/** Every slot of a list, as elements. */
export function listElements(list: EndpointListSpec): ElementSpec[] {
  return list.endpoints.map((_, i) => listElement(list, i));
}

/** One family's whole desired table. */
export interface FamilyRuleset {
  readonly sets: readonly SetSpec[];
  readonly chains: readonly ChainSpec[];
  readonly elements: readonly ElementSpec[];
}
