import type { NodeModel } from '../../model/types.js';
import { FieldErrors, fieldPath, isJsonObject, type JsonObject } from './fields.js';
import { formatCIDR, formatIP, parseCIDR, parseIP } from '../../util/ip.js';
import { readMetadata } from './names.js';
import { OBJECT_LIMITS } from './limits.js';
import { type Converted, finish, rejected } from './result.js';

/** The cluster autoscaler's taint on a node it is about to remove. */
export const TO_BE_DELETED_TAINT = 'ToBeDeletedByClusterAutoscaler';
const HOSTNAME_LABEL = 'kubernetes.io/hostname';
const TOPOLOGY_LABEL_PREFIX = 'topology.kubernetes.io/';
/** Order matters: InternalIP addresses come first. */
const ADDRESS_TYPES = ['InternalIP', 'ExternalIP'] as const;

/**
 * Only the labels the proxy uses, so other label changes leave the node's model (and hash) alone;
 * each key and value free-form text (no control character, bounded).
 */
function proxyLabels(fields: FieldErrors, labels: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const kept = Object.entries(labels).filter(
    ([key]) => key === HOSTNAME_LABEL || key.startsWith(TOPOLOGY_LABEL_PREFIX),
  );
  if (kept.length > OBJECT_LIMITS.listEntries)
    fields.add('metadata.labels', `must have at most ${OBJECT_LIMITS.listEntries} entries, got ${kept.length}`);
  for (const [key, value] of kept) {
    const at = fieldPath('metadata.labels', key.slice(0, 300));
    if (fields.text(key, `${at} key`) !== undefined) fields.text(value, at);
  }
  return Object.fromEntries(kept.sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** `spec.podCIDRs`, falling back to the legacy single `spec.podCIDR`. */
function readPodCIDRs(fields: FieldErrors, spec: JsonObject | undefined): readonly string[] {
  const list = fields.array(spec?.['podCIDRs'], 'spec.podCIDRs');
  const [values, path] = list && list.length > 0 ? [list, 'spec.podCIDRs'] : [[spec?.['podCIDR']], 'spec.podCIDR'];
  const cidrs: string[] = [];
  values.forEach((value, i) => {
    const at = path === 'spec.podCIDR' ? path : fieldPath(path, i);
    const text = fields.string(value, at);
    if (text === undefined || text === '') return;
    const cidr = parseCIDR(text);
    if (cidr) cidrs.push(formatCIDR(cidr));
    else fields.invalid(at, 'must be a valid CIDR', text);
  });
  return cidrs;
}

function readAddresses(fields: FieldErrors, status: JsonObject | undefined): readonly string[] {
  const entries = (fields.array(status?.['addresses'], 'status.addresses') ?? []).map((value, i) => {
    const at = fieldPath('status.addresses', i);
    const entry = fields.object(value, at, { required: true });
    return { at, type: fields.string(entry?.['type'], fieldPath(at, 'type')), address: entry?.['address'] };
  });
  const addresses: string[] = [];
  const seen = new Set<string>();
  for (const wanted of ADDRESS_TYPES) {
    for (const { at, type, address } of entries.filter((e) => e.type === wanted)) {
      const text = fields.string(address, fieldPath(at, 'address'), { required: true });
      const ip = text === undefined ? undefined : parseIP(text);
      if (text !== undefined && !ip)
        fields.invalid(fieldPath(at, 'address'), `${type} must be a valid IP address`, text);
      if (ip && !seen.has(formatIP(ip))) {
        seen.add(formatIP(ip));
        addresses.push(formatIP(ip));
      }
    }
  }
  return addresses;
}

function hasToBeDeletedTaint(fields: FieldErrors, spec: JsonObject | undefined): boolean {
  const taints = fields.array(spec?.['taints'], 'spec.taints') ?? [];
  return taints.some((taint) => isJsonObject(taint) && taint['key'] === TO_BE_DELETED_TAINT);
}

/** A Node as the proxy needs it, passing `nodeProblems` (validate.ts) by construction. */
export function convertNode(obj: unknown): Converted<NodeModel> {
  if (!isJsonObject(obj)) return rejected(['must be an object']);
  const fields = new FieldErrors();
  const meta = readMetadata(fields, obj, false);
  const spec = fields.object(obj['spec'], 'spec');
  const status = fields.object(obj['status'], 'status');
  const podCIDRs = readPodCIDRs(fields, spec);
  const addresses = readAddresses(fields, status);
  const beingRemoved = hasToBeDeletedTaint(fields, spec);
  const labels = meta ? proxyLabels(fields, meta.labels) : {};
  return finish(fields, () => ({
    name: meta!.name,
    labels,
    podCIDRs,
    addresses,
    eligible: !meta!.deleting && !beingRemoved,
  }));
}
