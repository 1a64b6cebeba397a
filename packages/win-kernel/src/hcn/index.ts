/**
 * @kpng/win-kernel/hcn: the Host Compute Network layer on its own: the v2 JSON schema, HRESULTs,
 * GUID marshalling, the `Hns` seam and its native (computenetwork.dll through koffi) implementation.
 */
export * from './schema.js';
export { HcnError, HResult, formatHResult, failed, isHcnError, isNotFound, errorRecordJson } from './errors.js';
export { canonicalGuid, guidFromBytes, guidToBytes, isGuid, NIL_GUID } from './guid.js';
export type { Hns } from './hns.js';
export { NativeHns } from './native/native-hns.js';
export { WINDOWS_LIBRARIES, type HcnLibraryPaths } from './native/bindings.js';
