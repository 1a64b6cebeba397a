/**
 * @kpng/core/program: what every kpng program shares at its edges, light enough for any program to
 * load (no sources, no gRPC): running as the main module under the process fault policy, and the
 * HTTP door every status server is built on. docs/hostile-input.md describes both.
 */
export { runAsMain } from '../runtime/signals.js';
export { installFaultPolicy, faultPolicy, type FaultKind, type FaultPolicy } from '../runtime/process-faults.js';
export { registerProcessFaults } from '../metrics/process-faults.js';
export {
  createHttpDoor,
  httpRefusals,
  DOOR_LIMITS,
  type DoorHandler,
  type DoorLimits,
  type DoorLog,
  type HttpDoorOptions,
  type RefusalCounter,
  type RefusalReason,
} from '../metrics/http-door.js';
export { listen, closeServer } from '../metrics/http.js';
