import type { IPFamily } from '../../model/types.js';
import { type FieldErrors, fieldPath, type JsonObject } from './fields.js';
import { formatCIDR, formatParsedIP, parseCIDR, parseIP } from '../../util/ip.js';

/** Canonical, de-duplicated and sorted: the order of these lists carries no meaning. */
function sortedUnique(values: readonly string[]): readonly string[] {
  return [...new Set(values)].sort();
}

function readIP(fields: FieldErrors, value: unknown, path: string): { family: IPFamily; text: string } | undefined {
  const text = fields.string(value, path, { required: true });
  if (text === undefined) return undefined;
  const ip = parseIP(text);
  if (ip) return { family: ip.family, text: formatParsedIP(ip, text) };
  fields.invalid(path, 'must be a valid IP address', text);
  return undefined;
}

/**
 * `spec.clusterIPs`, falling back to the single `spec.clusterIP`. Returns null for a Service the
 * proxy skips (no ClusterIP, or `None`: headless), otherwise at most one canonical IP per family.
 */
export function readClusterIPs(fields: FieldErrors, spec: JsonObject): readonly string[] | null {
  const list = fields.array(spec['clusterIPs'], 'spec.clusterIPs');
  const [values, path] =
    list && list.length > 0 ? [list, 'spec.clusterIPs'] : [[spec['clusterIP']] as const, 'spec.clusterIP'];
  const first = values[0];
  if (first === undefined || first === null || first === '' || first === 'None') return null;
  const ips: string[] = [];
  const seen = new Map<IPFamily, string>();
  values.forEach((value, i) => {
    const at = path === 'spec.clusterIP' ? path : fieldPath(path, i);
    const ip = readIP(fields, value, at);
    if (!ip) return;
    const other = seen.get(ip.family);
    if (other !== undefined) {
      fields.invalid(at, `must not be a second ${ip.family} address (${other} is one)`, ip.text);
      return;
    }
    seen.set(ip.family, ip.text);
    ips.push(ip.text);
  });
  return ips;
}

/** `spec.externalIPs`: any invalid entry fails the whole Service, as API validation would. */
export function readExternalIPs(fields: FieldErrors, spec: JsonObject): readonly string[] {
  const list = fields.array(spec['externalIPs'], 'spec.externalIPs') ?? [];
  const ips = list.map((value, i) => readIP(fields, value, fieldPath('spec.externalIPs', i))?.text);
  return sortedUnique(ips.filter((ip) => ip !== undefined));
}

/**
 * `status.loadBalancer.ingress[].ip` for entries whose `ipMode` is VIP or unset. Hostname-only
 * entries are ignored, and so is `ipMode: Proxy` (the load balancer delivers to the node itself).
 */
export function readLoadBalancerIPs(fields: FieldErrors, obj: JsonObject): readonly string[] {
  const status = fields.object(obj['status'], 'status');
  const loadBalancer = fields.object(status?.['loadBalancer'], 'status.loadBalancer');
  const ingress = fields.array(loadBalancer?.['ingress'], 'status.loadBalancer.ingress') ?? [];
  const ips: string[] = [];
  ingress.forEach((value, i) => {
    const at = fieldPath('status.loadBalancer.ingress', i);
    const entry = fields.object(value, at);
    const ipMode = fields.string(entry?.['ipMode'], fieldPath(at, 'ipMode'));
    if (entry?.['ip'] === undefined || entry['ip'] === null || entry['ip'] === '') return;
    if (ipMode !== undefined && ipMode !== '' && ipMode !== 'VIP') return;
    const ip = readIP(fields, entry['ip'], fieldPath(at, 'ip'));
    if (ip) ips.push(ip.text);
  });
  return sortedUnique(ips);
}

/** `spec.loadBalancerSourceRanges`: trimmed like kube-proxy does, canonical, invalid => error. */
export function readSourceRanges(fields: FieldErrors, spec: JsonObject): readonly string[] {
  const list = fields.array(spec['loadBalancerSourceRanges'], 'spec.loadBalancerSourceRanges') ?? [];
  const ranges: string[] = [];
  list.forEach((value, i) => {
    const at = fieldPath('spec.loadBalancerSourceRanges', i);
    const text = fields.string(value, at, { required: true });
    if (text === undefined) return;
    const cidr = parseCIDR(text.trim());
    if (cidr) ranges.push(formatCIDR(cidr));
    else fields.invalid(at, 'must be a valid CIDR', text);
  });
  return sortedUnique(ranges);
}
