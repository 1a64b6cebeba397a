import type { EndpointModel, EndpointSliceModel, EndpointSlicePort, IPFamily } from '../../model/types.js';
import { FieldErrors, fieldPath, isJsonObject } from './fields.js';
import { formatParsedIP, parseIP } from '../../util/ip.js';
import { nameProblem, readMetadata } from './names.js';
import { OBJECT_LIMITS } from './limits.js';
import { type Converted, finish, rejected } from './result.js';
import { PROTOCOLS } from './service-ports.js';
import { parseTriggerTime, TRIGGER_TIME_ANNOTATION } from './trigger-time.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const ADDRESS_TYPES = ['IPv4', 'IPv6', 'FQDN'] as const;

export interface ConvertedSlice {
  /** null for a slice the proxy ignores: no service-name label, or addressType FQDN. */
  readonly slice: EndpointSliceModel | null;
  /** `endpoints.kubernetes.io/last-change-trigger-time`, epoch ms. */
  readonly triggerTime?: number;
}

/** Semantics 2.3: a port with a nil name, or a nil or zero port number, is ignored, not an error. */
function readSlicePorts(fields: FieldErrors, value: unknown): readonly EndpointSlicePort[] {
  const ports: EndpointSlicePort[] = [];
  (fields.array(value, 'ports', { max: OBJECT_LIMITS.slicePorts }) ?? []).forEach((item, i) => {
    const at = fieldPath('ports', i);
    const entry = fields.object(item, at, { required: true });
    if (!entry) return;
    const name = fields.string(entry['name'], fieldPath(at, 'name'));
    const nameError = name ? nameProblem(name, 'label') : undefined;
    if (nameError) fields.add(fieldPath(at, 'name'), nameError);
    const protocol = fields.oneOf(entry['protocol'], fieldPath(at, 'protocol'), PROTOCOLS, 'TCP');
    const port = fields.int(entry['port'], fieldPath(at, 'port'), { min: 0, max: 65535 });
    if (name === undefined || !port || protocol === undefined || nameError) return;
    ports.push({ name, protocol, port });
  });
  return ports;
}

/** `hints.forZones[].name` or `hints.forNodes[].name`, sorted; undefined when there are none. */
function readHintNames(fields: FieldErrors, value: unknown, path: string): readonly string[] | undefined {
  const names: string[] = [];
  (fields.array(value, path, { max: OBJECT_LIMITS.endpointHints }) ?? []).forEach((item, i) => {
    const hint = fields.object(item, fieldPath(path, i), { required: true });
    const name = fields.text(hint?.['name'], fieldPath(fieldPath(path, i), 'name'), { required: true });
    if (name !== undefined) names.push(name);
  });
  if (names.length <= 1) return names.length === 1 ? names : undefined;
  return [...new Set(names)].sort();
}

function readEndpoint(fields: FieldErrors, value: unknown, at: string, family: IPFamily): EndpointModel | undefined {
  const entry = fields.object(value, at, { required: true });
  const addresses = fields.array(entry?.['addresses'], fieldPath(at, 'addresses'));
  const conditions = fields.object(entry?.['conditions'], fieldPath(at, 'conditions'));
  const ready = fields.boolean(conditions?.['ready'], fieldPath(at, 'conditions.ready')) ?? true;
  const serving = fields.boolean(conditions?.['serving'], fieldPath(at, 'conditions.serving')) ?? true;
  const terminating = fields.boolean(conditions?.['terminating'], fieldPath(at, 'conditions.terminating')) ?? false;
  const nodeName = fields.string(entry?.['nodeName'], fieldPath(at, 'nodeName'));
  const nodeNameError = nodeName ? nameProblem(nodeName, 'subdomain') : undefined;
  if (nodeNameError) fields.add(fieldPath(at, 'nodeName'), nodeNameError);
  const zone = fields.text(entry?.['zone'], fieldPath(at, 'zone'));
  const hints = fields.object(entry?.['hints'], fieldPath(at, 'hints'));
  const zoneHints = readHintNames(fields, hints?.['forZones'], fieldPath(at, 'hints.forZones'));
  const nodeHints = readHintNames(fields, hints?.['forNodes'], fieldPath(at, 'hints.forNodes'));
  // Only addresses[0] is used (semantics 2.3), so only it is checked.
  if (!addresses || addresses.length === 0) return undefined;
  const addressPath = fieldPath(fieldPath(at, 'addresses'), 0);
  const text = fields.string(addresses[0], addressPath, { required: true });
  const ip = text === undefined ? undefined : parseIP(text);
  if (text !== undefined && ip?.family !== family)
    fields.invalid(addressPath, `must be a valid ${family} address`, text);
  if (!ip || ip.family !== family || text === undefined) return undefined;
  const endpoint = endpointModel(formatParsedIP(ip, text), ready, serving, terminating, nodeName || '', zone || '');
  if (!zoneHints && !nodeHints) return endpoint;
  return { ...endpoint, ...(zoneHints ? { zoneHints } : {}), ...(nodeHints ? { nodeHints } : {}) };
}

/**
 * One object literal per combination of the optional fields, rather than spreads: one of these per
 * endpoint makes the model measurably smaller (docs/PERFORMANCE.md, "Figures behind choices in the code"). Empty `nodeName` or `zone`:
 * absent.
 */
function endpointModel(
  address: string,
  ready: boolean,
  serving: boolean,
  terminating: boolean,
  nodeName: string,
  zone: string,
): EndpointModel {
  if (nodeName !== '')
    return zone !== ''
      ? { address, ready, serving, terminating, nodeName, zone }
      : { address, ready, serving, terminating, nodeName };
  return zone !== '' ? { address, ready, serving, terminating, zone } : { address, ready, serving, terminating };
}

/**
 * An EndpointSlice as the proxy needs it, with its trigger time (see {@link ConvertedSlice}); its
 * slice passes `sliceProblems` (validate.ts) by construction, each check made once, while reading.
 */
export function convertEndpointSlice(obj: unknown): Converted<ConvertedSlice> {
  if (!isJsonObject(obj)) return rejected(['must be an object']);
  const fields = new FieldErrors();
  const meta = readMetadata(fields, obj, true);
  const addressType = fields.oneOf(obj['addressType'], 'addressType', ADDRESS_TYPES, 'IPv4');
  if (obj['addressType'] === undefined || obj['addressType'] === null) fields.add('addressType', 'is required');
  if (!fields.ok || !meta || addressType === undefined) return rejected(fields.errors);
  const serviceName = meta.labels[SERVICE_NAME_LABEL];
  if (!serviceName || addressType === 'FQDN') return { ok: true, value: { slice: null } };
  const serviceNameError = nameProblem(serviceName, 'label');
  if (serviceNameError) fields.add(`metadata.labels.${SERVICE_NAME_LABEL}`, serviceNameError);

  const ports = readSlicePorts(fields, obj['ports']);
  const endpoints: EndpointModel[] = [];
  (fields.array(obj['endpoints'], 'endpoints', { max: OBJECT_LIMITS.sliceEndpoints }) ?? []).forEach((value, i) => {
    const endpoint = readEndpoint(fields, value, fieldPath('endpoints', i), addressType);
    if (endpoint) endpoints.push(endpoint);
  });
  const triggerTime = parseTriggerTime(meta.annotations[TRIGGER_TIME_ANNOTATION]);
  return finish(fields, () => ({
    slice: { namespace: meta.namespace, name: meta.name, serviceName, addressType, ports, endpoints },
    ...(triggerTime !== undefined ? { triggerTime } : {}),
  }));
}
