/** What the fake API server saw, so tests can assert e.g. that a relist or a watch restart happened. */

export type RequestVerb = 'list' | 'watch' | 'get' | 'create' | 'patch' | 'other';

export interface RecordedRequest {
  /** Position in the log, from 0. */
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly verb: RequestVerb;
  /** Plural resource name (`services`), when the path addressed a known resource. */
  readonly resource?: string;
  readonly status: number;
  /** True when the status was injected with `failNext`. */
  readonly injected: boolean;
}

export interface RequestFilter {
  readonly verb?: RequestVerb;
  readonly resource?: string;
  readonly status?: number;
  readonly path?: string;
  /** Only requests logged at or after this position (see `RecordedRequest.seq`). */
  readonly since?: number;
}

export class RequestLog {
  private readonly entries: RecordedRequest[] = [];

  add(entry: Omit<RecordedRequest, 'seq'>): void {
    this.entries.push({ ...entry, seq: this.entries.length });
  }

  /** The next position: pass it as `since` to see only later requests. */
  get mark(): number {
    return this.entries.length;
  }

  select(filter: RequestFilter = {}): readonly RecordedRequest[] {
    return this.entries.filter(
      (r) =>
        (filter.verb === undefined || r.verb === filter.verb) &&
        (filter.resource === undefined || r.resource === filter.resource) &&
        (filter.status === undefined || r.status === filter.status) &&
        (filter.path === undefined || r.path === filter.path) &&
        (filter.since === undefined || r.seq >= filter.since),
    );
  }
}
