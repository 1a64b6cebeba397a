/**
 * What belongs to one Service in a table this backend programmed, by its naming (render/names.ts,
 * render/service.ts): the dispatch elements whose comment is one of the Service's port keys
 * (`NAMESPACE/NAME:PORT/PROTO`), the endpoint-map elements keyed by those addresses and ports
 * (NodePorts under the all-zero address), the source ranges of its firewalled load-balancer IPs,
 * its ClusterIP, and the shared chains its elements lead to. Reads `nft -j list table` and
 * `nft list table` output; renders nothing. The table keeps no counters (none are rendered).
 */
import type { ExplainSection, ServiceRef } from '@kpng/core';
import { isDynamicChain, SET } from '../render/names.js';

type Json = unknown;

interface Element {
  readonly container: string;
  readonly key: readonly string[];
  readonly value?: readonly string[];
  readonly comment?: string;
}

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One JSON value of an element's key or value as nft's words: `198.19.0.1`, `tcp`, `goto pick-tcp-1`. */
function words(v: Json): string[] {
  if (typeof v === 'string' || typeof v === 'number') return [String(v)];
  if (!isObject(v)) return [JSON.stringify(v)];
  if (Array.isArray(v['concat'])) return (v['concat'] as Json[]).flatMap(words);
  if (isObject(v['prefix'])) return [`${String(v['prefix']['addr'])}/${String(v['prefix']['len'])}`];
  if (Array.isArray(v['range'])) return [(v['range'] as Json[]).flatMap(words).join('-')];
  for (const verdict of ['goto', 'jump'] as const) {
    const target = v[verdict];
    if (isObject(target)) return [`${verdict} ${String(target['target'])}`];
  }
  for (const verdict of ['drop', 'accept', 'return', 'continue'] as const) if (verdict in v) return [verdict];
  return [JSON.stringify(v)];
}

/** Every element of every set and map of an `nft -j list table` answer. */
export function parseElements(json: string): Element[] {
  const doc = JSON.parse(json) as Json;
  const objects = isObject(doc) && Array.isArray(doc['nftables']) ? (doc['nftables'] as Json[]) : [];
  const out: Element[] = [];
  for (const o of objects) {
    if (!isObject(o)) continue;
    const container = isObject(o['set']) ? o['set'] : isObject(o['map']) ? o['map'] : undefined;
    if (container === undefined || !Array.isArray(container['elem'])) continue;
    const name = String(container['name']);
    for (const raw of container['elem'] as Json[]) {
      const [rawKey, rawValue] = Array.isArray(raw) ? (raw as [Json, Json]) : [raw, undefined];
      const inner = isObject(rawKey) && isObject(rawKey['elem']) ? rawKey['elem'] : undefined;
      const key = words(inner === undefined ? rawKey : inner['val']);
      const comment = typeof inner?.['comment'] === 'string' ? inner['comment'] : undefined;
      out.push({
        container: name,
        key,
        ...(rawValue === undefined ? {} : { value: words(rawValue) }),
        ...(comment === undefined ? {} : { comment }),
      });
    }
  }
  return out;
}

/** `name -> rule lines` of every chain in an `nft list table` answer. */
export function parseChains(text: string): Map<string, string[]> {
  const chains = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    const start = /^\tchain (\S+) \{$/.exec(line);
    if (start !== null) chains.set(start[1]!, (current = []));
    else if (line === '\t}') current = undefined;
    else if (current !== undefined && line.trim() !== '') current.push(line.trim());
  }
  return chains;
}

const show = (e: Element): string =>
  `${e.key.join(' . ')}${e.value === undefined ? '' : ` : ${e.value.join(' . ')}`}${
    e.comment === undefined ? '' : ` # ${e.comment}`
  }`;

const ZERO = new Set(['0.0.0.0', '::']);
const PROTOS = new Set(['tcp', 'udp', 'sctp']);

/**
 * One Service's objects in one family's table, grouped: entry points (dispatch elements by
 * address and NodePort), endpoint elements, and the shared chains those lead to. Empty when
 * the table holds nothing of it.
 */
export function selectServiceObjects(json: string, tableText: string, service: ServiceRef): ExplainSection[] {
  const prefix = `${service.namespace}/${service.name}:`;
  const elements = parseElements(json);
  const entries = elements.filter((e) => e.comment?.startsWith(prefix) === true);
  if (entries.length === 0) return [];
  // (address, port) of each service address, and (zero, NodePort): how endpoint maps are keyed.
  const lists = new Set<string>();
  const firewalled = new Set<string>();
  const addresses = new Set<string>();
  for (const e of entries) {
    const [a, b, c] = e.key;
    if (PROTOS.has(a ?? '') && b !== undefined) {
      for (const zero of ZERO) lists.add(`${zero} ${b}`);
    } else if (a !== undefined && c !== undefined) {
      lists.add(`${a} ${c}`);
      addresses.add(a);
      if (e.container === SET.firewallIPs) firewalled.add(e.key.join(' '));
    }
  }
  const endpoints = elements.filter(
    (e) => e.container.startsWith('endpoints-') && e.key.length === 3 && lists.has(`${e.key[0]} ${e.key[1]}`),
  );
  const related = elements.filter(
    (e) =>
      (e.container === SET.clusterIPs && e.key.length === 1 && addresses.has(e.key[0]!)) ||
      (e.container === SET.firewallAllow && firewalled.has(e.key.slice(0, 3).join(' '))),
  );
  const sections: ExplainSection[] = [
    {
      title: 'service entry points',
      lines: [...entries, ...related].map((e) => ({ text: `@${e.container} { ${show(e)} }` })),
    },
  ];
  if (endpoints.length > 0) {
    sections.push({
      title: 'endpoints (service address . port . slot : endpoint)',
      lines: endpoints.map((e) => ({ text: `@${e.container} { ${show(e)} }` })),
    });
  }
  // The chains its elements lead to, and the chains those lead to: shared by every Service of the same shape.
  const chains = parseChains(tableText);
  const reached: string[] = [];
  const visit = (name: string): void => {
    if (reached.includes(name) || !isDynamicChain(name) || !chains.has(name)) return;
    reached.push(name);
    for (const rule of chains.get(name)!) for (const m of rule.matchAll(/\b(?:goto|jump) (\S+)/g)) visit(m[1]!);
  };
  for (const e of entries) for (const m of (e.value ?? []).join(' ').matchAll(/\b(?:goto|jump) (\S+)/g)) visit(m[1]!);
  for (const name of reached) {
    sections.push({
      title: `chain ${name} (shared by every Service of the same shape)`,
      lines: chains.get(name)!.map((text) => ({ text })),
    });
  }
  return sections;
}
