import type { Protocol, ServicePortSpec } from '../../model/types.js';
import { type FieldErrors, fieldPath, type JsonObject } from './fields.js';
import { nameProblem } from './names.js';

export const PROTOCOLS: readonly Protocol[] = ['TCP', 'UDP', 'SCTP'];

/** A container port name (IANA_SVC_NAME): at most 15 characters, with at least one letter. */
const PORT_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
function isContainerPortName(name: string): boolean {
  return name.length <= 15 && PORT_NAME.test(name) && /[a-z]/.test(name) && !name.includes('--');
}

/**
 * `targetPort` is an int-or-string. The API server defaults 0 and "" to `port`; a string of digits
 * (possible in hand-written YAML) is read as the number it spells.
 */
function readTargetPort(fields: FieldErrors, value: unknown, path: string, port: number): number | string | undefined {
  if (value === undefined || value === null || value === 0 || value === '') return port;
  if (typeof value === 'string' && /^[0-9]+$/.test(value))
    return fields.int(Number(value), path, { min: 1, max: 65535 });
  if (typeof value === 'number') return fields.int(value, path, { min: 1, max: 65535 });
  if (typeof value !== 'string') {
    fields.invalid(path, 'must be a port number or a port name', value);
    return undefined;
  }
  if (isContainerPortName(value)) return value;
  fields.invalid(path, 'must be a valid port name (at most 15 lower case alphanumerics or "-", with a letter)', value);
  return undefined;
}

function readPort(fields: FieldErrors, value: unknown, at: string): ServicePortSpec | undefined {
  const entry = fields.object(value, at, { required: true });
  if (!entry) return undefined;
  const name = fields.string(entry['name'], fieldPath(at, 'name')) ?? '';
  const nameError = name === '' ? undefined : nameProblem(name, 'label');
  if (nameError) fields.add(fieldPath(at, 'name'), nameError);
  const protocol = fields.oneOf(entry['protocol'], fieldPath(at, 'protocol'), PROTOCOLS, 'TCP');
  const port = fields.int(entry['port'], fieldPath(at, 'port'), { min: 1, max: 65535, required: true });
  const nodePort = fields.int(entry['nodePort'], fieldPath(at, 'nodePort'), { min: 0, max: 65535 }) ?? 0;
  const targetPort =
    port === undefined ? undefined : readTargetPort(fields, entry['targetPort'], fieldPath(at, 'targetPort'), port);
  if (nameError || protocol === undefined || port === undefined || targetPort === undefined) return undefined;
  return { name, protocol, port, nodePort, targetPort };
}

/** `spec.ports`, in spec order; at least one, and each `name/protocol` (the port's key) only once. */
export function readServicePorts(fields: FieldErrors, spec: JsonObject): readonly ServicePortSpec[] {
  const list = fields.array(spec['ports'], 'spec.ports', { required: true });
  if (list?.length === 0) fields.add('spec.ports', 'must have at least one port');
  const ports: ServicePortSpec[] = [];
  const seen = new Set<string>();
  (list ?? []).forEach((value, i) => {
    const at = fieldPath('spec.ports', i);
    const port = readPort(fields, value, at);
    if (!port) return;
    const key = `${port.name}/${port.protocol}`;
    if (seen.has(key)) fields.add(at, `duplicate port name ${JSON.stringify(port.name)} for protocol ${port.protocol}`);
    seen.add(key);
    ports.push(port);
  });
  return ports;
}
