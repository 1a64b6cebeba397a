/**
 * The policy view rendered into the table's changing part, kept incrementally:
 * - a **peer group** (the pods one rule selects, shared by every pod the policy selects) is one
 *   set per family: its pods' addresses, or for an egress rule's named ports `address . protocol .
 *   port`; a peer's change adds or deletes that set's elements, nothing else;
 * - a **verdict chain** per distinct allow list (direction, rules), both families' rules in one
 *   chain: one rule per allow entry, peer (`ip saddr @group-N`, an ipBlock's address range) and
 *   port span (no anonymous sets up to `EXPAND_LIMIT`: nft's cache costs every transaction per
 *   set and per chain, not per rule), then `counter drop`; local pods with the same allow list
 *   share it, and it never changes (a new list is a new chain);
 * - per isolated local pod IP, one element of its family's verdict map: `IP : jump CHAIN`.
 * A sync turns the changed pods (the view hands out the same object for an unchanged pod) and
 * the changed groups into ordered operations: map elements deleted, unused chains and sets
 * deleted, group elements deleted, then sets, elements, chains and map elements added.
 */
import type { AllowRule, IPFamily, PeerGroup, PeerGroupKey, PodKey, PodPolicy, PolicyState } from '@kpng/core';
import type { NftObject } from '@kpng/nftables';
import { ADDRESS, DIRECTIONS, groupSet, podMap, TABLE, verdictChain, type Direction } from './names.js';
import { addressRange, disjointRanges, formatPorts, formatRange, mergePorts, type AddressRange } from './ranges.js';

export type TableOperation =
  | { readonly verb: 'add' | 'delete' | 'flush'; readonly object: NftObject }
  /**
   * Adds of `count` objects made only when the transaction is rendered (`Transaction.addEach`):
   * a new group's elements, so that a full sync's (~270,000 at 1,000 policies x 10,000 pods) are
   * never all alive at once. `objects()` yields the same objects each time it is called.
   */
  | { readonly verb: 'add'; readonly count: number; readonly objects: () => Iterable<NftObject> };

type GroupKind = PeerGroup['kind'];

interface GroupEntry {
  readonly id: number;
  readonly kind: GroupKind;
  /** Verdict chains naming the group. */
  readonly refs: number;
  /** The content in the kernel (undefined: not created yet). */
  readonly applied: PeerGroup | undefined;
}

interface ChainEntry {
  readonly name: string;
  readonly direction: Direction;
  readonly rules: readonly string[];
  readonly groups: readonly PeerGroupKey[];
  /** Pod IPs whose map element jumps here. */
  readonly refs: number;
}

interface PodEntry {
  readonly policy: PodPolicy;
  /** `map ip` keys this pod claims, with the chain key each jumps to. */
  readonly claims: readonly (readonly [claim: string, chain: string])[];
}

const IN_TABLE = { family: TABLE.family, table: TABLE.name } as const;
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'] as const;
const NFT_PROTOCOL = { TCP: 'tcp', UDP: 'udp', SCTP: 'sctp' } as const;

function familyOf(ip: string): IPFamily {
  return ip.includes(':') ? 'IPv6' : 'IPv4';
}

/** A group's element keys in one family, in the group's order (the view's groups hold no duplicate). */
function* groupKeys(group: PeerGroup | undefined, family: IPFamily): Generator<readonly string[]> {
  if (group?.kind === 'ips') {
    for (const ip of group.ips) if (familyOf(ip) === family) yield [ip];
  } else if (group?.kind === 'endpoints') {
    for (const e of group.endpoints)
      if (familyOf(e.ip) === family) yield [e.ip, NFT_PROTOCOL[e.protocol], String(e.port)];
  }
}

/** A group's element keys in one family, by their text. */
export function groupElements(group: PeerGroup | undefined, family: IPFamily): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const key of groupKeys(group, family)) out.set(key.join(' . '), key);
  return out;
}

function sorted(values: readonly string[]): boolean {
  for (let i = 1; i < values.length; i++) if ((values[i - 1] as string) >= (values[i] as string)) return false;
  return true;
}

/**
 * The element keys of one family that `before` has and `after` lacks, and the reverse. Address
 * groups (the view's are sorted, without duplicates) are merged in one walk, with no map of either
 * side: a peer's change in a group of thousands of pods costs a comparison per address.
 */
export function groupDiff(
  before: PeerGroup,
  after: PeerGroup,
  family: IPFamily,
): { readonly removed: (readonly string[])[]; readonly added: (readonly string[])[] } {
  const removed: (readonly string[])[] = [];
  const added: (readonly string[])[] = [];
  if (before.kind === 'ips' && after.kind === 'ips' && sorted(before.ips) && sorted(after.ips)) {
    const [a, b] = [before.ips, after.ips];
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      const x = a[i];
      const y = b[j];
      if (y === undefined || (x !== undefined && x < y)) {
        if (familyOf(x as string) === family) removed.push([x as string]);
        i++;
      } else if (x === undefined || y < x) {
        if (familyOf(y) === family) added.push([y]);
        j++;
      } else {
        i++;
        j++;
      }
    }
    return { removed, added };
  }
  const old = groupElements(before, family);
  const now = groupElements(after, family);
  for (const [id, key] of old) if (!now.has(id)) removed.push(key);
  for (const [id, key] of now) if (!old.has(id)) added.push(key);
  return { removed, added };
}

/** How many elements a group has in one family. */
function countElements(group: PeerGroup, family: IPFamily): number {
  let count = 0;
  if (group.kind === 'ips') {
    for (const ip of group.ips) if (familyOf(ip) === family) count++;
  } else for (const e of group.endpoints) if (familyOf(e.ip) === family) count++;
  return count;
}

/**
 * Up to this many port spans (or address ranges) of one rule are written as one nft rule each
 * rather than an anonymous set: every set, anonymous or named, costs every later transaction (nft
 * fetches every set of the ruleset into its cache first), a rule does not. Longer lists (rare)
 * stay one set.
 */
export const EXPAND_LIMIT = 16;

function portMatches(rule: AllowRule): readonly string[] {
  if (rule.ports === undefined) return [''];
  const out: string[] = [];
  for (const protocol of PROTOCOLS) {
    const spans = mergePorts(
      rule.ports.filter((r) => r.protocol === protocol).map((r) => ({ first: r.port, last: r.endPort })),
    );
    if (spans.length === 0) continue;
    const every = spans.length === 1 && spans[0]?.first === 0 && spans[0]?.last === 65535;
    const proto = `meta l4proto ${NFT_PROTOCOL[protocol]}`;
    if (every) out.push(proto);
    else if (spans.length <= EXPAND_LIMIT) for (const span of spans) out.push(`${proto} th dport ${formatPorts(span)}`);
    else out.push(`${proto} th dport { ${spans.map(formatPorts).join(', ')} }`);
  }
  return out;
}

/**
 * The nft rules of one allow list, and the groups they name (`set(key)`: the group's set name).
 * Pure: the same list and group numbering always give the same rules.
 */
export function verdictRules(
  direction: Direction,
  family: IPFamily,
  allow: readonly AllowRule[],
  set: (key: PeerGroupKey, kind: GroupKind) => string,
): { rules: string[]; groups: PeerGroupKey[] } {
  const { match } = ADDRESS[family];
  const verdict = direction === 'ingress' ? 'accept' : 'return';
  const peerField = direction === 'ingress' ? 'saddr' : 'daddr';
  const rules = new Set<string>();
  const groups = new Set<PeerGroupKey>();
  for (const rule of allow) {
    if (rule.endpoints !== undefined) {
      groups.add(rule.endpoints);
      rules.add(`${match} daddr . meta l4proto . th dport @${set(rule.endpoints, 'endpoints')} ${verdict}`);
      continue;
    }
    const peers: string[] = [];
    if (rule.peers === undefined) peers.push('');
    else {
      if (rule.peers.group !== undefined) {
        groups.add(rule.peers.group);
        peers.push(`${match} ${peerField} @${set(rule.peers.group, 'ips')}`);
      }
      const ranges = rule.peers.cidrs
        .map((cidr) => addressRange(cidr, family))
        .filter((range): range is AddressRange => range !== undefined);
      const disjoint = disjointRanges(ranges).map((r) => formatRange(r, family));
      if (disjoint.length > EXPAND_LIMIT) peers.push(`${match} ${peerField} { ${disjoint.join(', ')} }`);
      else for (const r of disjoint) peers.push(`${match} ${peerField} ${r}`);
    }
    for (const peer of peers)
      for (const port of portMatches(rule)) rules.add([peer, port, verdict].filter((part) => part !== '').join(' '));
  }
  return { rules: [...rules], groups: [...groups] };
}

/** What the kernel holds, and the operations that move it to a new state. */
export class PolicyTable {
  readonly #families: readonly IPFamily[];
  #pods = new Map<PodKey, PodEntry>();
  /** `map ip` -> pods claiming it -> chain key (two pods can list one IP while one is replaced). */
  #claims = new Map<string, ReadonlyMap<PodKey, string>>();
  #chains = new Map<string, ChainEntry>();
  #groups = new Map<PeerGroupKey, GroupEntry>();
  #nextId = 0;

  constructor(families: readonly IPFamily[]) {
    this.#families = families;
  }

  /** Elements of the groups, and verdict chains, in the kernel (for the log). */
  get size(): { readonly groups: number; readonly chains: number; readonly pods: number } {
    return { groups: this.#groups.size, chains: this.#chains.size, pods: this.#pods.size };
  }

  /** Forgets everything (the table is rewritten from scratch next). */
  reset(): void {
    this.#pods = new Map();
    this.#claims = new Map();
    this.#chains = new Map();
    this.#groups = new Map();
  }

  /**
   * The operations that move the kernel to `state`. Nothing is remembered until `commit` (a failed
   * transaction is followed by `reset`).
   */
  update(state: PolicyState): { readonly operations: readonly TableOperation[]; commit(): void } {
    const pods = new Map(this.#pods);
    const claims = new Map(this.#claims);
    const chains = new Map(this.#chains);
    const groups = new Map(this.#groups);
    const touched = new Set<string>();

    const groupSetName = (key: PeerGroupKey, kind: GroupKind, family: IPFamily): string => {
      // The key says the kind (`.../named`: endpoints), so an entry never changes kind.
      let entry = groups.get(key);
      if (entry === undefined) groups.set(key, (entry = { id: this.#nextId++, kind, refs: 0, applied: undefined }));
      return groupSet(entry.id, family);
    };
    const claim = (key: string, pod: PodKey, chain: string | undefined): void => {
      const next = new Map(claims.get(key));
      if (chain === undefined) next.delete(pod);
      else next.set(pod, chain);
      if (next.size === 0) claims.delete(key);
      else claims.set(key, next);
      touched.add(key);
    };
    const refChain = (key: string, by: number): void => {
      const entry = chains.get(key) as ChainEntry;
      chains.set(key, { ...entry, refs: entry.refs + by });
    };
    const release = (podKey: PodKey): void => {
      const entry = pods.get(podKey);
      if (entry === undefined) return;
      for (const [key, chain] of entry.claims) {
        claim(key, podKey, undefined);
        refChain(chain, -1);
      }
      pods.delete(podKey);
    };
    /** The chain of one allow list, both families' rules in it (a pod's addresses of either family jump there). */
    const chainOf = (direction: Direction, allow: readonly AllowRule[]): string => {
      const rules: string[] = [];
      const named = new Set<PeerGroupKey>();
      for (const family of this.#families) {
        const list = verdictRules(direction, family, allow, (key, kind) => groupSetName(key, kind, family));
        rules.push(...list.rules);
        list.groups.forEach((key) => named.add(key));
      }
      const chainKey = [direction, ...rules].join('\n');
      if (!chains.has(chainKey))
        chains.set(chainKey, {
          name: verdictChain(direction, this.#nextId++),
          direction,
          rules,
          groups: [...named],
          refs: 0,
        });
      return chainKey;
    };
    const acquire = (podKey: PodKey, policy: PodPolicy): void => {
      const taken: (readonly [string, string])[] = [];
      for (const direction of DIRECTIONS) {
        const { isolated, allow } = direction === 'ingress' ? policy.ingress : policy.egress;
        if (!isolated) continue;
        let chainKey: string | undefined;
        for (const ip of policy.ips) {
          const family = familyOf(ip);
          if (!this.#families.includes(family)) continue;
          chainKey ??= chainOf(direction, allow);
          refChain(chainKey, 1);
          const key = `${podMap(direction, family)} ${ip}`;
          claim(key, podKey, chainKey);
          taken.push([key, chainKey]);
        }
      }
      pods.set(podKey, { policy, claims: taken });
    };

    for (const podKey of this.#pods.keys()) if (!state.pods.has(podKey)) release(podKey);
    for (const [podKey, policy] of state.pods) {
      if (pods.get(podKey)?.policy === policy) continue;
      release(podKey);
      acquire(podKey, policy);
    }

    // Group references follow the chains that appear and disappear.
    const refGroups = (entry: ChainEntry, by: number): void => {
      for (const key of entry.groups) {
        const group = groups.get(key) as GroupEntry;
        groups.set(key, { ...group, refs: group.refs + by });
      }
    };
    const addedChains: ChainEntry[] = [];
    const deletedChains: ChainEntry[] = [];
    for (const [key, entry] of chains) {
      const existed = (this.#chains.get(key)?.refs ?? 0) > 0;
      if (entry.refs > 0 && !existed) {
        addedChains.push(entry);
        refGroups(entry, 1);
      } else if (entry.refs <= 0) {
        chains.delete(key);
        if (existed) {
          deletedChains.push(entry);
          refGroups(entry, -1);
        }
      }
    }

    const deletes: TableOperation[] = [];
    const adds: TableOperation[] = [];
    const element = (set: string, key: readonly string[]): NftObject => ({ kind: 'element', ...IN_TABLE, set, key });
    const mapElement = (map: string, key: readonly string[], value?: readonly string[]): NftObject => ({
      kind: 'element',
      ...IN_TABLE,
      map,
      key,
      ...(value === undefined ? {} : { value }),
    });
    const jump = (key: string | undefined): string | undefined => {
      if (key === undefined) return undefined;
      return (chains.get(key) ?? this.#chains.get(key))?.name;
    };
    const winner = (pods: ReadonlyMap<PodKey, string> | undefined): string | undefined =>
      pods === undefined ? undefined : pods.get([...pods.keys()].sort()[0] as PodKey);
    for (const key of touched) {
      const before = jump(winner(this.#claims.get(key)));
      const after = jump(winner(claims.get(key)));
      if (before === after) continue;
      const [map, ip] = key.split(' ') as [string, string];
      if (before !== undefined) deletes.push({ verb: 'delete', object: mapElement(map, [ip]) });
      if (after !== undefined) adds.push({ verb: 'add', object: mapElement(map, [ip], [`jump ${after}`]) });
    }
    for (const entry of deletedChains) {
      const chain: NftObject = { kind: 'chain', ...IN_TABLE, name: entry.name };
      deletes.push({ verb: 'flush', object: chain }, { verb: 'delete', object: chain });
    }

    const setType = (kind: GroupKind, family: IPFamily): string =>
      kind === 'ips' ? ADDRESS[family].type : `${ADDRESS[family].type} . inet_proto . inet_service`;
    const groupAdds: TableOperation[] = [];
    const groupDeletes: TableOperation[] = [];
    for (const [key, entry] of groups) {
      if (entry.refs <= 0) {
        groups.delete(key);
        if (entry.applied !== undefined)
          for (const family of this.#families)
            deletes.push({
              verb: 'delete',
              object: { kind: 'set', ...IN_TABLE, name: groupSet(entry.id, family) },
            });
        continue;
      }
      const content = state.groups.get(key);
      if (entry.applied !== undefined && entry.applied === content) continue;
      for (const family of this.#families) {
        const name = groupSet(entry.id, family);
        if (entry.applied === undefined) {
          // A new set: its elements are made as the transaction is written, not held until then.
          groupAdds.push({
            verb: 'add',
            object: { kind: 'set', ...IN_TABLE, name, type: setType(entry.kind, family) },
          });
          const count = content === undefined ? 0 : countElements(content, family);
          if (count > 0)
            groupAdds.push({
              verb: 'add',
              count,
              objects: function* () {
                for (const key of groupKeys(content, family)) yield element(name, key);
              },
            });
          continue;
        }
        const { removed, added } = groupDiff(entry.applied, content ?? EMPTY[entry.kind], family);
        for (const k of removed) groupDeletes.push({ verb: 'delete', object: element(name, k) });
        for (const k of added) groupAdds.push({ verb: 'add', object: element(name, k) });
      }
      groups.set(key, { ...entry, applied: content ?? EMPTY[entry.kind] });
    }
    const chainAdds: TableOperation[] = [];
    for (const entry of addedChains) {
      chainAdds.push({ verb: 'add', object: { kind: 'chain', ...IN_TABLE, name: entry.name } });
      for (const rule of entry.rules)
        chainAdds.push({ verb: 'add', object: { kind: 'rule', ...IN_TABLE, chain: entry.name, rule } });
      chainAdds.push({
        verb: 'add',
        object: {
          kind: 'rule',
          ...IN_TABLE,
          chain: entry.name,
          rule: 'counter drop',
          comment: `${entry.direction} not allowed by policy`,
        },
      });
    }
    return {
      operations: [...deletes, ...groupDeletes, ...groupAdds, ...chainAdds, ...adds],
      commit: () => {
        this.#pods = pods;
        this.#claims = claims;
        this.#chains = chains;
        this.#groups = groups;
      },
    };
  }
}

const EMPTY: Readonly<Record<GroupKind, PeerGroup>> = {
  ips: { kind: 'ips', ips: [] },
  endpoints: { kind: 'endpoints', endpoints: [] },
};
