/** Raw Kubernetes JSON to the validated global model: the only place this conversion happens. */
export type { Converted } from './result.js';
export { convertService } from './service.js';
export { convertEndpointSlice, SERVICE_NAME_LABEL, type ConvertedSlice } from './endpoint-slice.js';
export { convertNode, TO_BE_DELETED_TAINT } from './node.js';
export { convertServiceCIDR } from './service-cidr.js';
export { reportInvalid, reportingTo } from './report.js';
export { parseTriggerTime, TRIGGER_TIME_ANNOTATION } from './trigger-time.js';
export { nameProblem, type NameRule } from './names.js';
export {
  canonicalCIDR,
  canonicalIP,
  cidrContains,
  formatCIDR,
  formatIP,
  ipFamilyOf,
  parseCIDR,
  parseIP,
  type CIDR,
  type IPAddress,
} from '../../util/ip.js';
