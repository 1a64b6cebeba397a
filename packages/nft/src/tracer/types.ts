import type { IPFamily } from '@kpng/core';
import type { Proto } from '../render/names.js';

/** A new connection's first packet, as the node sees it. */
export interface TracePacket {
  readonly family: IPFamily;
  readonly src: string;
  readonly proto: Proto;
  readonly dst: string;
  readonly dport: number;
  /** Sent by the node itself (output path); `src` should then be a node address. */
  readonly fromHost?: boolean;
  /** Input interface, for interface-based local detectors (e.g. `veth1a2b`). */
  readonly iif?: string;
}

/** Facts about the node the tracer cannot read from the ruleset. */
export interface TraceNode {
  /** Addresses for which `fib … type local` is true (the node's own); loopback is always local. */
  readonly localAddresses: readonly string[];
}

export type TraceVerdict = 'dnat' | 'drop' | 'reject' | 'accept';

export interface TraceResult {
  readonly verdict: TraceVerdict;
  /** Every endpoint the packet may be DNATed to (`ip:port`, `[ip6]:port`), sorted. */
  readonly endpoints: readonly string[];
  /** Masqueraded whatever the endpoint chosen. */
  readonly masquerade: boolean;
  /** The endpoints for which the packet is masqueraded (hairpin: only the client itself). */
  readonly masqueradedEndpoints: readonly string[];
  /** The endpoint choice records ClientIP affinity. */
  readonly sticky: boolean;
  /** What the packet writes into dynamic sets, per endpoint it may go to (deduplicated, sorted). */
  readonly recorded: readonly TraceRecord[];
  /** Chain and rule text of every rule that matched, in order, for readable failures. */
  readonly matched: readonly string[];
}

/** One dynamic-set entry a traced packet writes. */
export interface TraceRecord {
  /** The endpoint (`ip:port`, `[ip6]:port`) of the branch that writes it. */
  readonly endpoint: string;
  readonly set: string;
  readonly key: readonly string[];
}

export interface TraceOptions {
  /** Entries in dynamic sets (by set name), e.g. the `recorded` entries of earlier packets. */
  readonly dynamic?: ReadonlyMap<string, readonly (readonly string[])[]>;
}
