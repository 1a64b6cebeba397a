import type { DesiredVirtualServer } from './desired.js';

/** The filter table's sets that virtual servers fill, in the order the table writes them. */
export const VS_SETS = [
  'firewall_allow',
  'service_ports',
  'reject_ports',
  'drop_ports',
  'masq_always',
  'masq_outside',
  'hairpin',
  'firewall',
  'health_check_ports',
] as const;

/** The set elements one virtual server contributes to its family's filter table (sets deduplicate). */
export function contribute(d: DesiredVirtualServer, put: (set: string, key: string[]) => void): void {
  const proto = d.vs.protocol.toLowerCase();
  const element = [d.vs.address, proto, String(d.vs.port)];
  put('service_ports', element);
  if (d.reject) put('reject_ports', element);
  if (d.drop) put('drop_ports', element);
  if (d.masqueradeAlways) put('masq_always', element);
  else if (d.exposure === 'cluster-ip') put('masq_outside', element);
  for (const rs of d.reals) put('hairpin', [rs.address, proto, String(rs.port), rs.address]);
  if (d.sourceRanges.length > 0) put('firewall', element);
  for (const range of d.sourceRanges) put('firewall_allow', [...element, range]);
  if (d.healthCheckNodePort > 0) put('health_check_ports', [String(d.healthCheckNodePort)]);
}

/**
 * The elements virtual servers put in each set, and how many put each one: a partial sync takes
 * the changed virtual servers' contributions out and puts the new ones in, and writes only the
 * elements whose count left or reached zero (another virtual server may hold the same one).
 */
export class ElementCounts {
  readonly #sets = new Map<string, Map<string, { readonly key: string[]; count: number }>>(
    VS_SETS.map((set) => [set, new Map()]),
  );

  /** Counts `key` in `set`; true when it is new there. */
  add(set: string, key: string[]): boolean {
    const elements = this.#elements(set);
    const id = key.join(' . ');
    const entry = elements.get(id);
    if (entry !== undefined) return (entry.count++, false);
    elements.set(id, { key, count: 1 });
    return true;
  }

  /** Uncounts `key` in `set`; true when no virtual server holds it any more. */
  remove(set: string, key: string[]): boolean {
    const elements = this.#elements(set);
    const id = key.join(' . ');
    const entry = elements.get(id);
    if (entry === undefined || --entry.count > 0) return false;
    elements.delete(id);
    return true;
  }

  /** Each set's elements, first counted first. */
  *entries(): Generator<readonly [string, string[]]> {
    for (const [set, elements] of this.#sets) for (const { key } of elements.values()) yield [set, key];
  }

  #elements(set: string): Map<string, { readonly key: string[]; count: number }> {
    const elements = this.#sets.get(set);
    if (elements === undefined) throw new Error(`no filter set ${set}`);
    return elements;
  }
}
