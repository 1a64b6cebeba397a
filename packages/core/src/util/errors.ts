/** Stable error codes: callers branch on `code`, never on message text. */
export const ErrorCodes = {
  InvalidObject: 'INVALID_OBJECT',
  InvalidFile: 'INVALID_FILE',
  InvalidConfig: 'INVALID_CONFIG',
  SyncFailed: 'SYNC_FAILED',
  /** A sync failed because a kernel write did not finish within the backend's timeout (it was killed). */
  WriteTimedOut: 'WRITE_TIMED_OUT',
  StreamClosed: 'STREAM_CLOSED',
  Unavailable: 'UNAVAILABLE',
} as const;
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export class KpngError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KpngError';
    this.code = code;
  }
}

/** Normalises anything thrown across a boundary into an Error. */
export function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(typeof e === 'string' ? e : JSON.stringify(e));
}
