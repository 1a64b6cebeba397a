/**
 * Which fields a mutation changed, as `KubeProxyConfiguration.…` paths: lets a validation error
 * on a field name the flag that set it.
 */
import { encodeConfiguration } from './encode.js';
import { ROOT } from './field-error.js';
import type { KubeProxyConfiguration } from './types.js';

export function changedFields(config: KubeProxyConfiguration, mutate: () => void): string[] {
  const before = leaves(encodeConfiguration(config));
  mutate();
  const after = leaves(encodeConfiguration(config));
  return [...after.keys()].filter((path) => after.get(path) !== before.get(path));
}

/** Scalars and whole lists as leaves (a list error path is `field[i]`, matched by prefix). */
function leaves(value: unknown, path = ROOT, out = new Map<string, string>()): Map<string, string> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) leaves(v, `${path}.${k}`, out);
  } else {
    out.set(path, JSON.stringify(value));
  }
  return out;
}

/** Does a validation error on `errorField` concern the field at `path`? */
export function concerns(errorField: string, path: string): boolean {
  return errorField === path || errorField.startsWith(`${path}[`) || errorField.startsWith(`${path}.`);
}
