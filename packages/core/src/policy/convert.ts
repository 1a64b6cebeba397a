/**
 * Raw Pods, Namespaces and `networking.k8s.io/v1` NetworkPolicies to the policy view's models:
 * validated (a clear error list, never a throw), canonical and sorted so equal content hashes
 * equally. Defaulting follows the API server (protocol TCP, policyTypes from the rules present).
 */
import type { Protocol } from '../model/types.js';
import { FieldErrors, fieldPath, isJsonObject, type JsonObject } from '../watch/convert/fields.js';
import { readMetadata } from '../watch/convert/names.js';
import { type Converted, finish, rejected } from '../watch/convert/result.js';
import { PROTOCOLS } from '../watch/convert/service-ports.js';
import { canonicalCIDR, canonicalIP, cidrContains, parseCIDR } from '../util/ip.js';
import type {
  IPBlock,
  LabelSelector,
  NamedPort,
  NetworkPolicyModel,
  PolicyNamespace,
  PolicyPeer,
  PolicyPod,
  PolicyPort,
  PolicyRule,
  PolicyType,
  SelectorOperator,
  SelectorRequirement,
} from './types.js';

/** Bounds that keep one hostile object from costing unbounded memory or time downstream. */
export const POLICY_LIMITS = { rules: 256, peers: 256, ports: 256, except: 64, values: 256, expressions: 64 } as const;

const OPERATORS: readonly SelectorOperator[] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];
const POLICY_TYPES: readonly PolicyType[] = ['Ingress', 'Egress'];
const PORT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function boundedArray(fields: FieldErrors, value: unknown, path: string, max: number): readonly unknown[] {
  const list = fields.array(value, path) ?? [];
  if (list.length > max) {
    fields.add(path, `must have at most ${max} entries, got ${list.length}`);
    return [];
  }
  return list;
}

function sortedRecord(map: JsonObject, fields: FieldErrors, path: string): Readonly<Record<string, string>> {
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(map)) {
    const text = fields.string(value, fieldPath(path, key));
    if (text !== undefined) out.push([key, text]);
  }
  return Object.fromEntries(out.sort(([a], [b]) => (a < b ? -1 : 1)));
}

function readRequirement(fields: FieldErrors, value: unknown, at: string): SelectorRequirement | undefined {
  const entry = fields.object(value, at, { required: true });
  if (!entry) return undefined;
  const key = fields.string(entry['key'], fieldPath(at, 'key'), { required: true });
  const operator = fields.string(entry['operator'], fieldPath(at, 'operator'), { required: true });
  const values = boundedArray(fields, entry['values'], fieldPath(at, 'values'), POLICY_LIMITS.values).map((v, i) =>
    fields.string(v, fieldPath(fieldPath(at, 'values'), i), { required: true }),
  );
  if (operator !== undefined && !(OPERATORS as readonly string[]).includes(operator)) {
    fields.invalid(fieldPath(at, 'operator'), `must be one of ${OPERATORS.join(', ')}`, operator);
    return undefined;
  }
  const set = operator === 'In' || operator === 'NotIn';
  if (set && values.length === 0) fields.add(fieldPath(at, 'values'), `must be non-empty for ${operator}`);
  if (!set && values.length > 0) fields.add(fieldPath(at, 'values'), `must be empty for ${operator}`);
  if (key === undefined || operator === undefined || values.some((v) => v === undefined)) return undefined;
  return { key, operator: operator as SelectorOperator, values: [...new Set(values as string[])].sort() };
}

export function readSelector(fields: FieldErrors, value: unknown, path: string): LabelSelector | undefined {
  const selector = fields.object(value, path);
  if (!selector) return undefined;
  const matchLabels = sortedRecord(
    fields.object(selector['matchLabels'], fieldPath(path, 'matchLabels')) ?? {},
    fields,
    fieldPath(path, 'matchLabels'),
  );
  const expressions = boundedArray(
    fields,
    selector['matchExpressions'],
    fieldPath(path, 'matchExpressions'),
    POLICY_LIMITS.expressions,
  );
  const matchExpressions = expressions
    .map((entry, i) => readRequirement(fields, entry, fieldPath(fieldPath(path, 'matchExpressions'), i)))
    .filter((requirement): requirement is SelectorRequirement => requirement !== undefined)
    .sort((a, b) => (a.key === b.key ? (a.operator < b.operator ? -1 : 1) : a.key < b.key ? -1 : 1));
  return { matchLabels, matchExpressions };
}

function readIPBlock(fields: FieldErrors, value: JsonObject, at: string): IPBlock | undefined {
  const text = fields.string(value['cidr'], fieldPath(at, 'cidr'), { required: true });
  const cidr = text === undefined ? undefined : canonicalCIDR(text);
  if (text !== undefined && cidr === undefined) fields.invalid(fieldPath(at, 'cidr'), 'must be a valid CIDR', text);
  const except: string[] = [];
  boundedArray(fields, value['except'], fieldPath(at, 'except'), POLICY_LIMITS.except).forEach((entry, i) => {
    const path = fieldPath(fieldPath(at, 'except'), i);
    const exceptText = fields.string(entry, path, { required: true });
    const canonical = exceptText === undefined ? undefined : canonicalCIDR(exceptText);
    const parsed = canonical === undefined ? undefined : parseCIDR(canonical);
    const outer = cidr === undefined ? undefined : parseCIDR(cidr);
    if (exceptText !== undefined && canonical === undefined) fields.invalid(path, 'must be a valid CIDR', exceptText);
    else if (
      parsed &&
      outer &&
      (parsed.prefixLength < outer.prefixLength || !cidrContains(outer, canonical!.split('/')[0]!))
    )
      fields.invalid(path, `must be inside ${cidr}`, exceptText);
    else if (canonical !== undefined) except.push(canonical);
  });
  return cidr === undefined ? undefined : { cidr, except: [...new Set(except)].sort() };
}

function readPeer(fields: FieldErrors, value: unknown, at: string): PolicyPeer | undefined {
  const entry = fields.object(value, at, { required: true });
  if (!entry) return undefined;
  const ipBlock = fields.object(entry['ipBlock'], fieldPath(at, 'ipBlock'));
  const podSelector = readSelector(fields, entry['podSelector'], fieldPath(at, 'podSelector'));
  const namespaceSelector = readSelector(fields, entry['namespaceSelector'], fieldPath(at, 'namespaceSelector'));
  if (ipBlock) {
    if (podSelector || namespaceSelector) fields.add(at, 'ipBlock may not be combined with a selector');
    const block = readIPBlock(fields, ipBlock, fieldPath(at, 'ipBlock'));
    return block === undefined ? undefined : { ipBlock: block };
  }
  if (!podSelector && !namespaceSelector) {
    fields.add(at, 'must specify podSelector, namespaceSelector or ipBlock');
    return undefined;
  }
  return {
    ...(podSelector === undefined ? {} : { podSelector }),
    ...(namespaceSelector === undefined ? {} : { namespaceSelector }),
  };
}

function readPolicyPort(fields: FieldErrors, value: unknown, at: string): PolicyPort | undefined {
  const entry = fields.object(value, at, { required: true });
  if (!entry) return undefined;
  const protocol = fields.oneOf(entry['protocol'], fieldPath(at, 'protocol'), PROTOCOLS, 'TCP');
  const raw = entry['port'];
  let port: number | string | undefined;
  if (typeof raw === 'string' && !/^[0-9]+$/.test(raw)) {
    if (raw.length <= 15 && PORT_NAME.test(raw) && /[a-z]/.test(raw)) port = raw;
    else fields.invalid(fieldPath(at, 'port'), 'must be a valid port name', raw);
  } else if (raw !== undefined && raw !== null) {
    port = fields.int(typeof raw === 'string' ? Number(raw) : raw, fieldPath(at, 'port'), { min: 1, max: 65535 });
  }
  const endPort = fields.int(entry['endPort'], fieldPath(at, 'endPort'), { min: 1, max: 65535 });
  if (endPort !== undefined && typeof port !== 'number')
    fields.add(fieldPath(at, 'endPort'), 'requires a numeric port');
  else if (endPort !== undefined && typeof port === 'number' && endPort < port)
    fields.add(fieldPath(at, 'endPort'), `must be at least port ${port}, got ${endPort}`);
  if (protocol === undefined) return undefined;
  return { protocol, ...(port === undefined ? {} : { port }), ...(endPort === undefined ? {} : { endPort }) };
}

function readRules(
  fields: FieldErrors,
  value: unknown,
  path: string,
  peersField: 'from' | 'to',
): readonly PolicyRule[] {
  return boundedArray(fields, value, path, POLICY_LIMITS.rules).flatMap((entry, i) => {
    const at = fieldPath(path, i);
    const rule = fields.object(entry, at, { required: true });
    if (!rule) return [];
    const peersAt = fieldPath(at, peersField);
    const peerList = boundedArray(fields, rule[peersField], peersAt, POLICY_LIMITS.peers);
    const peers = peerList.map((peer, j) => readPeer(fields, peer, fieldPath(peersAt, j)));
    const portsAt = fieldPath(at, 'ports');
    const ports = boundedArray(fields, rule['ports'], portsAt, POLICY_LIMITS.ports).map((port, j) =>
      readPolicyPort(fields, port, fieldPath(portsAt, j)),
    );
    if (peers.some((p) => p === undefined) || ports.some((p) => p === undefined)) return [];
    return [
      {
        ...(peers.length === 0 ? {} : { peers: peers as PolicyPeer[] }),
        ports: ports as PolicyPort[],
      },
    ];
  });
}

export function convertNetworkPolicy(obj: unknown): Converted<NetworkPolicyModel> {
  if (!isJsonObject(obj)) return rejected(['must be an object']);
  const fields = new FieldErrors();
  const meta = readMetadata(fields, obj, true);
  const spec = fields.object(obj['spec'], 'spec', { required: true }) ?? {};
  const podSelector = readSelector(fields, spec['podSelector'], 'spec.podSelector') ?? {
    matchLabels: {},
    matchExpressions: [],
  };
  const ingress = readRules(fields, spec['ingress'], 'spec.ingress', 'from');
  const egress = readRules(fields, spec['egress'], 'spec.egress', 'to');
  const given = boundedArray(fields, spec['policyTypes'], 'spec.policyTypes', 2).map((type, i) =>
    fields.oneOf(type, fieldPath('spec.policyTypes', i), POLICY_TYPES, 'Ingress'),
  );
  // The API server's defaulting: Ingress always, Egress when egress rules are present.
  const policyTypes: PolicyType[] =
    given.length > 0
      ? POLICY_TYPES.filter((type) => given.includes(type))
      : ['Ingress', ...(fields.array(spec['egress'], 'spec.egress')?.length ? (['Egress'] as const) : [])];
  return finish(fields, () => ({
    namespace: meta!.namespace,
    name: meta!.name,
    podSelector,
    policyTypes,
    ingress,
    egress,
  }));
}

export function convertNamespace(obj: unknown): Converted<PolicyNamespace> {
  if (!isJsonObject(obj)) return rejected(['must be an object']);
  const fields = new FieldErrors();
  const meta = readMetadata(fields, obj, false);
  return finish(fields, () => ({ name: meta!.name, labels: sortedRecord(meta!.labels, fields, 'metadata.labels') }));
}

function readContainerPorts(fields: FieldErrors, spec: JsonObject): readonly NamedPort[] {
  const ports = new Map<string, NamedPort>();
  for (const group of ['initContainers', 'containers'] as const) {
    boundedArray(fields, spec[group], fieldPath('spec', group), POLICY_LIMITS.ports).forEach((container, i) => {
      const at = fieldPath(fieldPath('spec', group), i);
      const entry = fields.object(container, at);
      boundedArray(fields, entry?.['ports'], fieldPath(at, 'ports'), POLICY_LIMITS.ports).forEach((value, j) => {
        const portAt = fieldPath(fieldPath(at, 'ports'), j);
        const port = fields.object(value, portAt);
        const name = fields.string(port?.['name'], fieldPath(portAt, 'name'));
        if (!port || name === undefined || name === '') return;
        const number = fields.int(port['containerPort'], fieldPath(portAt, 'containerPort'), { min: 1, max: 65535 });
        const protocol: Protocol | undefined = fields.oneOf(
          port['protocol'],
          fieldPath(portAt, 'protocol'),
          PROTOCOLS,
          'TCP',
        );
        if (number === undefined || protocol === undefined) return;
        ports.set(`${name}/${protocol}`, { name, protocol, port: number });
      });
    });
  }
  return [...ports.values()].sort((a, b) =>
    a.name === b.name ? (a.protocol < b.protocol ? -1 : 1) : a.name < b.name ? -1 : 1,
  );
}

function readPodIPs(fields: FieldErrors, status: JsonObject | undefined): readonly string[] {
  const phase = status?.['phase'];
  if (phase === 'Succeeded' || phase === 'Failed') return [];
  const entries = fields.array(status?.['podIPs'], 'status.podIPs') ?? [];
  const texts =
    entries.length > 0 ? entries.map((entry) => (isJsonObject(entry) ? entry['ip'] : entry)) : [status?.['podIP']];
  const ips: string[] = [];
  texts.slice(0, 2).forEach((text, i) => {
    if (text === undefined || text === null || text === '') return;
    const ip = typeof text === 'string' ? canonicalIP(text) : undefined;
    if (ip === undefined) fields.invalid(fieldPath('status.podIPs', i), 'must be a valid IP address', text);
    else if (!ips.includes(ip)) ips.push(ip);
  });
  return ips;
}

/** A Pod reduced to what policy needs (a terminated pod keeps no IPs: it is no peer or target). */
export function convertPod(obj: unknown): Converted<PolicyPod> {
  if (!isJsonObject(obj)) return rejected(['must be an object']);
  const fields = new FieldErrors();
  const meta = readMetadata(fields, obj, true);
  const spec = fields.object(obj['spec'], 'spec') ?? {};
  const status = fields.object(obj['status'], 'status');
  const nodeName = fields.string(spec['nodeName'], 'spec.nodeName') ?? '';
  const hostNetwork = fields.boolean(spec['hostNetwork'], 'spec.hostNetwork') ?? false;
  const ports = readContainerPorts(fields, spec);
  const ips = readPodIPs(fields, status);
  return finish(fields, () => ({
    namespace: meta!.namespace,
    name: meta!.name,
    ips,
    labels: sortedRecord(meta!.labels, fields, 'metadata.labels'),
    nodeName,
    hostNetwork,
    ports,
  }));
}
