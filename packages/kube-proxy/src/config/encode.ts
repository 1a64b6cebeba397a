/**
 * A configuration as kube-proxy writes it (`--write-config-to`) and kpng serves it (`/configz`):
 * v1alpha1 JSON names, Go duration strings, unset lists as `null`, keys sorted like
 * sigs.k8s.io/yaml sorts them.
 */
import { formatGoDuration } from '@kpng/kit';
import { CONFIGURATION_SCHEMA, type FieldType } from './schema.js';
import { API_VERSION, KIND, type KubeProxyConfiguration } from './types.js';
import { yaml } from './yaml.js';

/** Fields Go omits when empty (`omitempty`). */
const OMIT_EMPTY = new Set([
  'featureGates',
  'serviceProxyName',
  'nftables.tableName',
  'logging.vmodule',
  // kpng's extension, absent from upstream's type: written only when set.
  'enforceNetworkPolicy',
]);

export function encodeConfiguration(config: KubeProxyConfiguration): Record<string, unknown> {
  const body = encodeObject(config as unknown as Record<string, unknown>, CONFIGURATION_SCHEMA.object, '');
  return sortKeys({ apiVersion: API_VERSION, kind: KIND, ...body }) as Record<string, unknown>;
}

export function configurationYaml(config: KubeProxyConfiguration): string {
  return yaml().stringify(encodeConfiguration(config), { lineWidth: 0, nullStr: 'null' });
}

function encodeObject(
  value: Record<string, unknown>,
  schema: Readonly<Record<string, FieldType>>,
  prefix: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, type] of Object.entries(schema)) {
    if (type === 'removed' || key === 'apiVersion' || key === 'kind') continue;
    const v = value[key];
    const path = prefix + key;
    if (OMIT_EMPTY.has(path) && isEmpty(v)) continue;
    out[key] = encodeValue(v, type, `${path}.`);
  }
  return out;
}

function encodeValue(value: unknown, type: FieldType, prefix: string): unknown {
  if (typeof type === 'object') {
    if ('object' in type) return encodeObject(value as Record<string, unknown>, type.object, prefix);
    return (value as unknown[]).map((item) => encodeValue(item, type.listOf, prefix));
  }
  if (type === 'duration') return formatGoDuration(value as number);
  if (type === 'stringList') return (value as string[]).length === 0 ? null : value;
  return value;
}

function isEmpty(value: unknown): boolean {
  return (
    value === '' ||
    value === false ||
    value === undefined ||
    (typeof value === 'object' && value !== null && Object.keys(value).length === 0)
  );
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, sortKeys(v)]),
  );
}
