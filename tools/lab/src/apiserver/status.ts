import { STATUS_CODES } from 'node:http';

/** The reasons the real API server puts in a failure `Status` for each code it can answer with. */
const REASONS: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  410: 'Expired',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

/** A `meta/v1 Status` failure object, as sent in error responses and in watch ERROR events. */
export function statusObject(code: number, reason?: string, message?: string) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: message ?? STATUS_CODES[code] ?? `status ${code}`,
    reason: reason ?? REASONS[code] ?? 'Unknown',
    code,
  } as const;
}
