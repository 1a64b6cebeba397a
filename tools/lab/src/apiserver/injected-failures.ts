import type { RequestVerb } from './request-log.js';

/** Scripted failures: the next request(s) to a path get an error status instead of an answer. */

export interface FailureOptions {
  /** How many matching requests fail; default 1. */
  readonly times?: number;
  /** Only requests of this verb (a list and a watch share their path). */
  readonly verb?: RequestVerb;
  readonly message?: string;
  /** Sent as `Retry-After` (429 and 503 default to 1). */
  readonly retryAfterSeconds?: number;
}

export interface InjectedFailure {
  readonly status: number;
  readonly message?: string;
  readonly retryAfterSeconds?: number;
}

interface Pending {
  readonly path: string;
  readonly status: number;
  readonly options: FailureOptions;
  remaining: number;
}

export class InjectedFailures {
  private pending: Pending[] = [];

  add(path: string, status: number, options: FailureOptions = {}): void {
    this.pending.push({ path, status, options, remaining: options.times ?? 1 });
  }

  /** Consumes and returns the failure planned for this request, if any (first planned, first used). */
  take(path: string, verb: RequestVerb): InjectedFailure | undefined {
    const hit = this.pending.find(
      (p) => p.remaining > 0 && p.path === path && (p.options.verb === undefined || p.options.verb === verb),
    );
    if (!hit) return undefined;
    hit.remaining -= 1;
    this.pending = this.pending.filter((p) => p.remaining > 0);
    const retryAfter = hit.options.retryAfterSeconds ?? (hit.status === 429 || hit.status === 503 ? 1 : undefined);
    return {
      status: hit.status,
      ...(hit.options.message !== undefined ? { message: hit.options.message } : {}),
      ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
    };
  }

  /** Failures planned but not yet used. */
  get outstanding(): number {
    return this.pending.reduce((n, p) => n + p.remaining, 0);
  }

  clear(): void {
    this.pending = [];
  }
}
