import type { ServiceCIDRModel } from '../../model/types.js';
import { FieldErrors, fieldPath, isJsonObject } from './fields.js';
import { formatCIDR, parseCIDR } from '../../util/ip.js';
import { readMetadata } from './names.js';
import { type Converted, finish, rejected } from './result.js';

/**
 * A `networking.k8s.io/v1` (or v1beta1, same shape) ServiceCIDR: its name and `spec.cidrs`,
 * canonical and sorted. A ServiceCIDR being deleted still counts, as upstream's informer keeps
 * delivering it until it is gone (its IPs may still be allocated). Passes `serviceCIDRProblems`
 * (validate.ts) by construction.
 */
export function convertServiceCIDR(obj: unknown): Converted<ServiceCIDRModel> {
  if (!isJsonObject(obj)) return rejected(['must be an object']);
  const fields = new FieldErrors();
  const meta = readMetadata(fields, obj, false);
  const spec = fields.object(obj['spec'], 'spec');
  const cidrs: string[] = [];
  (fields.array(spec?.['cidrs'], 'spec.cidrs') ?? []).forEach((value, i) => {
    const at = fieldPath('spec.cidrs', i);
    const text = fields.string(value, at, { required: true });
    if (text === undefined) return;
    const cidr = parseCIDR(text);
    if (cidr) cidrs.push(formatCIDR(cidr));
    else fields.invalid(at, 'must be a valid CIDR', text);
  });
  return finish(fields, () => ({ name: meta!.name, cidrs: [...new Set(cidrs)].sort() }));
}
