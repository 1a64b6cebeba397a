/**
 * A packet tracer over the RENDERED ruleset (not nft's output), in the style of kube-proxy's
 * nftables test helper: it runs the first packet of a connection through the base chains in hook
 * order, follows every branch of a random endpoint choice, and reports where the packet can end
 * up, whether it is masqueraded, and which rules matched. Rule shapes it does not know fail loudly.
 *
 * Arriving packets: filter-prerouting, nat-prerouting, then filter-input (to a local address) or
 * filter-forward, then nat-postrouting. Packets from the host: filter-output, nat-output,
 * filter-output-post-dnat, nat-postrouting (and filter-input when the destination is local).
 * Dynamic sets (ClientIP affinity) hold what the caller says the kernel wrote (empty by default:
 * the packet is a new client's first); what the packet writes comes back in `recorded`.
 */
import { cidrContains, familyOfAddress } from '../render/ip.js';
import { AFFINITY_HASH_MOD, endpointHash } from '../render/jhash.js';
import { CHAIN } from '../render/names.js';
import type { ChainSpec, ElementSpec, FamilyRuleset } from '../render/types.js';
import { familySyntax } from '../render/family.js';
import { parseRule, type Atom, type Statement, type Verdict } from './parse.js';
import type { TraceOptions, TracePacket, TraceNode, TraceRecord, TraceResult, TraceVerdict } from './types.js';

interface State {
  readonly dst: string;
  readonly dport: number;
  readonly mark: number;
  readonly dnat?: string;
  readonly masquerade: boolean;
  /** Entries this packet writes into dynamic sets (ClientIP affinity). */
  readonly recorded: readonly { readonly set: string; readonly key: readonly string[] }[];
  readonly matched: readonly string[];
}

/** `next`: go on with the next rule; `ended`: the chain fell off its end or returned. */
type Flow = 'next' | 'return' | 'ended' | 'accept' | 'drop' | 'reject';
interface Outcome {
  readonly state: State;
  readonly flow: Flow;
}

const MAX_DEPTH = 32;

export class RulesetTracer {
  readonly #chains: Map<string, { spec: ChainSpec; rules: Statement[][] }>;
  readonly #elements = new Map<string, ElementSpec[]>();
  readonly #dynamic: Set<string>;
  #written: TraceOptions['dynamic'];

  constructor(
    readonly ruleset: FamilyRuleset,
    readonly node: TraceNode,
  ) {
    this.#chains = new Map(ruleset.chains.map((spec) => [spec.name, { spec, rules: spec.rules.map(parseRule) }]));
    for (const element of ruleset.elements) {
      let list = this.#elements.get(element.container);
      if (list === undefined) this.#elements.set(element.container, (list = []));
      list.push(element);
    }
    this.#dynamic = new Set(ruleset.sets.filter((s) => s.dynamic === true).map((s) => s.name));
  }

  /**
   * Where `packet` can go. `options.dynamic` is what the kernel wrote into dynamic sets so far
   * (e.g. the `recorded` entries of earlier traces); they are empty otherwise.
   */
  trace(packet: TracePacket, options: TraceOptions = {}): TraceResult {
    if (familyOfAddress(packet.src) !== packet.family || familyOfAddress(packet.dst) !== packet.family) {
      throw new Error(`packet addresses are not ${packet.family}: ${packet.src} -> ${packet.dst}`);
    }
    this.#written = options.dynamic;
    const start: State = {
      dst: packet.dst,
      dport: packet.dport,
      mark: 0,
      masquerade: false,
      recorded: [],
      matched: [],
    };
    const before =
      packet.fromHost === true
        ? [CHAIN.filterOutput, CHAIN.natOutput, CHAIN.filterOutputPostDnat]
        : [CHAIN.filterPrerouting, CHAIN.natPrerouting];
    const outcomes = this.#hooks(packet, [{ state: start, flow: 'accept' }], before).flatMap((o) => {
      if (o.flow !== 'accept') return [o];
      const local = this.#isLocal(o.state.dst);
      const after =
        packet.fromHost === true
          ? local
            ? [CHAIN.filterInput]
            : []
          : [local ? CHAIN.filterInput : CHAIN.filterForward];
      return this.#hooks(packet, [o], [...after, CHAIN.natPostrouting]);
    });
    return summarize(packet, outcomes);
  }

  /** Base chains in hook order; a chain that ends takes its policy (accept). */
  #hooks(packet: TracePacket, start: Outcome[], names: readonly string[]): Outcome[] {
    let outcomes = start;
    for (const name of names) {
      outcomes = outcomes.flatMap((o) =>
        o.flow !== 'accept'
          ? [o]
          : this.#run(packet, name, o.state, 0).map((r) =>
              r.flow === 'ended' ? { ...r, flow: 'accept' as const } : r,
            ),
      );
    }
    return outcomes;
  }

  #chain(name: string): { spec: ChainSpec; rules: Statement[][] } {
    const chain = this.#chains.get(name);
    if (chain === undefined) throw new Error(`tracer: chain ${name} is referenced but not rendered`);
    return chain;
  }

  /** One chain: outcomes are 'ended', or a final accept/drop/reject. */
  #run(packet: TracePacket, name: string, state: State, depth: number): Outcome[] {
    if (depth > MAX_DEPTH) throw new Error(`tracer: chain depth over ${MAX_DEPTH} at ${name}`);
    const chain = this.#chain(name);
    let live: State[] = [state];
    const done: Outcome[] = [];
    for (const [index, statements] of chain.rules.entries()) {
      const next: State[] = [];
      for (const s of live) {
        for (const o of this.#rule(packet, `${name}: ${chain.spec.rules[index] as string}`, statements, s, depth)) {
          if (o.flow === 'next') next.push(o.state);
          else done.push(o.flow === 'return' ? { ...o, flow: 'ended' } : o);
        }
      }
      live = next;
      if (live.length === 0) break;
    }
    return [...done, ...live.map((s) => ({ state: s, flow: 'ended' as const }))];
  }

  /** One rule: statements left to right; a non-match or a fall-through means 'next'. */
  #rule(packet: TracePacket, where: string, statements: readonly Statement[], start: State, depth: number): Outcome[] {
    let states: State[] = [start];
    const outcomes: Outcome[] = [];
    for (const [i, st] of statements.entries()) {
      const matching: State[] = [];
      for (const s of states) {
        for (const item of this.#statement(packet, where, st, s, depth, i === statements.length - 1)) {
          if ('flow' in item) outcomes.push(item);
          else matching.push(item);
        }
      }
      states = matching;
    }
    return [...outcomes, ...states.map((s) => ({ state: s, flow: 'next' as const }))];
  }

  /** Matching states go on to the next statement; outcomes end the rule for their branch. */
  #statement(
    packet: TracePacket,
    where: string,
    st: Statement,
    s: State,
    depth: number,
    last: boolean,
  ): (State | Outcome)[] {
    const note = (state: State): State => ({ ...state, matched: [...state.matched, where] });
    const nomatch: Outcome = { state: s, flow: 'next' };
    switch (st.kind) {
      case 'ct-new':
        return [s];
      case 'ct-dnat':
        return s.dnat !== undefined ? [s] : [nomatch];
      case 'fib-local':
        return this.#isLocal(st.which === 'saddr' ? packet.src : s.dst) ? [s] : [nomatch];
      case 'iifname': {
        const name = packet.iif ?? '';
        const hit = st.pattern.endsWith('*')
          ? name !== '' && name.startsWith(st.pattern.slice(0, -1))
          : name === st.pattern;
        return hit !== st.negate ? [s] : [nomatch];
      }
      case 'l4proto-is':
        return st.protos.includes(packet.proto) ? [s] : [nomatch];
      case 'not-cidr':
        return this.#value(packet, s, st.key).every((v) => !cidrContains(st.cidr, v)) ? [s] : [nomatch];
      case 'lookup': {
        const hit = this.#keys(packet, s, st.key).some((key) => this.#find(st.set, key) !== undefined);
        return hit !== st.negate ? [s] : [nomatch];
      }
      case 'vmap': {
        const keys = this.#keys(packet, s, st.key);
        if (keys.length !== 1) throw new Error(`tracer: vmap key must be single-valued: ${where}`);
        const element = this.#find(st.map, keys[0] as string[]);
        if (element === undefined) return [nomatch];
        return this.#verdict(packet, parseVerdict(element.value?.join(' ') ?? ''), note(s), depth);
      }
      case 'mark-or':
        return [{ ...s, mark: s.mark | st.bits }];
      case 'mark-xor':
        return [{ ...s, mark: s.mark ^ st.bits }];
      case 'mark-clear':
        return (s.mark & st.bits) === 0 ? [s] : [nomatch];
      case 'masquerade':
        return [{ state: note({ ...s, masquerade: true }), flow: 'accept' }];
      case 'update': {
        if (!this.#dynamic.has(st.set)) throw new Error(`tracer: update of a non-dynamic set ${st.set}`);
        const keys = this.#keys(packet, s, st.key);
        if (keys.length !== 1) throw new Error(`tracer: update key must be single-valued: ${where}`);
        return [{ ...s, recorded: [...s.recorded, { set: st.set, key: keys[0] as string[] }] }];
      }
      case 'dnat-to':
        return [
          { state: note({ ...s, dst: st.ip, dport: st.port, dnat: endpoint(st.ip, String(st.port)) }), flow: 'accept' },
        ];
      case 'dnat':
        return this.#keys(packet, s, st.key).map((key): Outcome => {
          const value = this.#find(st.map, key)?.value;
          if (value === undefined) throw new Error(`tracer: ${where} finds no endpoint for key ${key.join(' . ')}`);
          const [ip, port] = value as [string, string];
          return { state: note({ ...s, dst: ip, dport: Number(port), dnat: endpoint(ip, port) }), flow: 'accept' };
        });
      case 'numgen-vmap': {
        if (!last) throw new Error(`tracer: numgen vmap must end its rule: ${where}`);
        const out: Outcome[] = [];
        for (let i = 0; i < st.mod; i++) {
          const target = st.targets.get(i);
          if (target === undefined) throw new Error(`tracer: numgen value ${i} has no target: ${where}`);
          out.push(...this.#verdict(packet, target, note(s), depth));
        }
        return out;
      }
      case 'verdict':
        return this.#verdict(packet, st.verdict, note(s), depth);
    }
  }

  #verdict(packet: TracePacket, v: Verdict, s: State, depth: number): Outcome[] {
    switch (v.kind) {
      case 'accept':
      case 'drop':
      case 'reject':
        return [{ state: s, flow: v.kind }];
      case 'return':
        return [{ state: s, flow: 'return' }];
      case 'goto':
        return this.#run(packet, v.chain, s, depth + 1).map((o) =>
          o.flow === 'ended' ? { ...o, flow: 'return' as const } : o,
        );
      case 'jump':
        return this.#run(packet, v.chain, s, depth + 1).map((o) =>
          o.flow === 'ended' ? { ...o, flow: 'next' as const } : o,
        );
    }
  }

  #isLocal(address: string): boolean {
    const syntax = familySyntax(familyOfAddress(address));
    return (
      cidrContains(syntax.family === 'IPv4' ? syntax.loopback : `${syntax.loopback}/128`, address) ||
      this.node.localAddresses.includes(address)
    );
  }

  #value(packet: TracePacket, s: State, atom: Atom): string[] {
    switch (atom.kind) {
      case 'addr':
        if (atom.mask !== undefined) {
          if (atom.mask !== '0.0.0.0' && atom.mask !== '::')
            throw new Error(`tracer: unknown address mask ${atom.mask}`);
          return [atom.mask];
        }
        return [atom.which === 'saddr' ? packet.src : s.dst];
      case 'l4proto':
        return [packet.proto];
      case 'dport':
        return [String(s.dport)];
      case 'const':
        return [atom.value];
      case 'ct-original-daddr':
        return [packet.dst];
      case 'ct-original-dport':
        return [String(packet.dport)];
      case 'jhash': {
        const [address, port] = atom.key;
        if (
          atom.key.length !== 2 ||
          address?.kind !== 'addr' ||
          address.which !== 'daddr' ||
          address.mask !== undefined ||
          port?.kind !== 'dport'
        ) {
          throw new Error('tracer: jhash is only used over the destination address and port');
        }
        if (atom.mod !== AFFINITY_HASH_MOD) throw new Error(`tracer: jhash mod ${atom.mod} is not the affinity hash`);
        return [String(endpointHash(packet.family, s.dst, s.dport, atom.seed))];
      }
      case 'numgen':
        return atom.mode === 'inc' && atom.mod !== 1
          ? (() => {
              throw new Error('tracer: numgen inc is only used as a constant (mod 1)');
            })()
          : Array.from({ length: atom.mod }, (_, i) => String(atom.offset + i));
    }
  }

  /** Every concrete key a concatenation can take (numgen random fans out). */
  #keys(packet: TracePacket, s: State, atoms: readonly Atom[]): string[][] {
    let keys: string[][] = [[]];
    for (const atom of atoms) {
      const values = this.#value(packet, s, atom);
      keys = keys.flatMap((key) => values.map((v) => [...key, v]));
    }
    return keys;
  }

  /** Set/map lookup; element parts holding a CIDR match by containment (interval sets). */
  #find(container: string, key: readonly string[]): ElementSpec | undefined {
    if (this.#dynamic.has(container)) {
      const hit = this.#written
        ?.get(container)
        ?.some((entry) => entry.length === key.length && entry.every((part, i) => part === key[i]));
      return hit === true ? { container, key } : undefined;
    }
    return this.#elements
      .get(container)
      ?.find(
        (e) =>
          e.key.length === key.length &&
          e.key.every((part, i) => (part.includes('/') ? cidrContains(part, key[i] as string) : part === key[i])),
      );
  }
}

function parseVerdict(text: string): Verdict {
  const [word, chain] = text.split(' ');
  if ((word === 'goto' || word === 'jump') && chain !== undefined) return { kind: word, chain };
  if (word === 'drop' || word === 'accept' || word === 'return') return { kind: word };
  throw new Error(`tracer: unknown verdict element value "${text}"`);
}

function endpoint(ip: string, port: string): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function summarize(packet: TracePacket, outcomes: readonly Outcome[]): TraceResult {
  const verdicts = new Set<TraceVerdict>(
    outcomes.map((o) =>
      o.flow === 'drop' || o.flow === 'reject' ? o.flow : o.state.dnat !== undefined ? 'dnat' : 'accept',
    ),
  );
  if (verdicts.size !== 1) {
    throw new Error(
      `tracer: ${packet.src} -> ${packet.dst}:${packet.dport} ends in different verdicts: ${[...verdicts].join(', ')}`,
    );
  }
  const endpoints = new Set<string>();
  const masqueraded = new Set<string>();
  const recorded = new Map<string, TraceRecord>();
  for (const o of outcomes) {
    for (const { set, key } of o.state.recorded) {
      const record = { endpoint: o.state.dnat ?? '', set, key };
      recorded.set(`${record.endpoint} ${set} ${key.join(' . ')}`, record);
    }
    if (o.state.dnat === undefined) continue;
    endpoints.add(o.state.dnat);
    if (o.state.masquerade) masqueraded.add(o.state.dnat);
  }
  const matched = [...new Set(outcomes.flatMap((o) => o.state.matched))];
  return {
    verdict: [...verdicts][0] as TraceVerdict,
    endpoints: [...endpoints].sort(),
    masquerade: outcomes.length > 0 && outcomes.every((o) => o.state.masquerade),
    masqueradedEndpoints: [...masqueraded].sort(),
    sticky: recorded.size > 0,
    recorded: [...recorded.keys()].sort().map((id) => recorded.get(id) as TraceRecord),
    matched,
  };
}
