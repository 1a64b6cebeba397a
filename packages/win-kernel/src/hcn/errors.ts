/**
 * HCN failures: every HCN function returns an HRESULT and may hand back an error record (a JSON
 * document). Both are kept, unmodified, on `HcnError`, together with the function that failed.
 */

/** HRESULTs from HCN's documented error table (learn.microsoft.com, "HCN Error Code"). */
export const HResult = {
  S_OK: 0x00000000,
  E_INVALIDARG: 0x80070057,
  /** HRESULT_FROM_WIN32(ERROR_NOT_FOUND): what hcsshim calls "element not found". */
  ERROR_NOT_FOUND: 0x80070490,
  HCN_E_NETWORK_NOT_FOUND: 0x803b0001,
  HCN_E_ENDPOINT_NOT_FOUND: 0x803b0002,
  HCN_E_POLICY_NOT_FOUND: 0x803b0008,
  HCN_E_INVALID_ENDPOINT: 0x803b000c,
  HCN_E_INVALID_POLICY: 0x803b000d,
  HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION: 0x803b000f,
  HCN_E_POLICY_ALREADY_EXISTS: 0x803b0012,
  HCN_E_PORT_ALREADY_EXISTS: 0x803b0013,
  HCN_E_INVALID_JSON: 0x803b001b,
  HCN_E_INVALID_IP: 0x803b001e,
  HCN_E_ENTITY_HAS_REFERENCES: 0x803b002c,
  HCN_E_INVALID_INTERNAL_PORT: 0x803b002d,
} as const;

const NAMES = new Map<number, string>(Object.entries(HResult).map(([name, value]) => [value, name]));

/** `0x803B0013 (HCN_E_PORT_ALREADY_EXISTS)`. */
export function formatHResult(hr: number): string {
  const hex = `0x${(hr >>> 0).toString(16).toUpperCase().padStart(8, '0')}`;
  const name = NAMES.get(hr >>> 0);
  return name === undefined ? hex : `${hex} (${name})`;
}

/** An HRESULT is a failure when its sign bit is set. */
export function failed(hr: number): boolean {
  return (hr | 0) < 0;
}

export class HcnError extends Error {
  override readonly name = 'HcnError';
  /** Unsigned HRESULT. */
  readonly hresult: number;
  /** The HCN function that failed, e.g. `HcnCreateLoadBalancer`. */
  readonly operation: string;
  /** HNS's error record, verbatim (a JSON document), when it gave one. */
  readonly errorRecord: string;

  constructor(operation: string, hresult: number, errorRecord = '') {
    const hr = hresult >>> 0;
    super(`${operation} failed: ${formatHResult(hr)}${errorRecord === '' ? '' : `: ${errorRecord}`}`);
    this.hresult = hr;
    this.operation = operation;
    this.errorRecord = errorRecord;
  }
}

export function isHcnError(e: unknown, hresult?: number): e is HcnError {
  return e instanceof HcnError && (hresult === undefined || e.hresult === hresult >>> 0);
}

/** Not found, whichever way HNS says it. */
export function isNotFound(e: unknown): boolean {
  return (
    isHcnError(e) &&
    [
      HResult.ERROR_NOT_FOUND,
      HResult.HCN_E_NETWORK_NOT_FOUND,
      HResult.HCN_E_ENDPOINT_NOT_FOUND,
      HResult.HCN_E_POLICY_NOT_FOUND,
    ].includes(e.hresult as never)
  );
}

/** The error record HNS would write: `{"Success":false,"Error":"...","ErrorCode":N}`. */
export function errorRecordJson(hresult: number, message: string): string {
  return JSON.stringify({ Success: false, Error: message, ErrorCode: hresult >>> 0 });
}
