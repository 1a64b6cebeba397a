import type { ServerResponse } from 'node:http';
import type { StoredChange, StoredObject } from './object-store.js';
import type { ResourceType } from './resources.js';
import { matches, objectFields, type Selector } from './selectors.js';
import { statusObject } from './status.js';

/** What one watch (or list) request selects. */
export interface ObjectFilter {
  readonly resource: ResourceType;
  readonly namespace?: string;
  readonly labels: Selector;
  readonly fields: Selector;
}

export function selects(filter: ObjectFilter, obj: StoredObject): boolean {
  if (filter.namespace !== undefined && obj.metadata.namespace !== filter.namespace) return false;
  return matches(filter.labels, obj.metadata.labels ?? {}) && matches(filter.fields, objectFields(obj));
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * How a change looks through a selector, as the real API server reports it: an object that starts
 * matching is ADDED, one that stops matching is DELETED (carrying its new state), and changes that
 * neither side of which matches are not seen at all.
 */
export function eventFor(filter: ObjectFilter, change: StoredChange): WatchEventType | undefined {
  if (change.resource !== filter.resource) return undefined;
  if (change.type === 'DELETED') return selects(filter, change.object) ? 'DELETED' : undefined;
  const now = selects(filter, change.object);
  const before = change.previous !== undefined && selects(filter, change.previous);
  if (now) return before ? 'MODIFIED' : 'ADDED';
  return before ? 'DELETED' : undefined;
}

/** One open watch: a chunked response of newline-delimited JSON events. */
export class WatchStream {
  private closed = false;

  constructor(
    private readonly res: ServerResponse,
    readonly filter: ObjectFilter,
    readonly allowBookmarks: boolean,
    private readonly onClose: (stream: WatchStream) => void,
  ) {
    res.on('close', () => this.markClosed());
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Sends `change` if this watch selects it. */
  offer(change: StoredChange): void {
    const type = eventFor(this.filter, change);
    if (type) this.write({ type, object: change.object });
  }

  sendAdded(obj: StoredObject): void {
    this.write({ type: 'ADDED', object: obj });
  }

  /** Tells the client how far it is up to date, when it asked for bookmarks. */
  bookmark(resourceVersion: number): void {
    if (!this.allowBookmarks) return;
    const { kind, apiVersion } = this.filter.resource;
    this.write({
      type: 'BOOKMARK',
      object: { kind, apiVersion, metadata: { resourceVersion: String(resourceVersion) } },
    });
  }

  /** The watch fell behind a compaction: an ERROR event with 410 Gone, then the end of the stream. */
  expire(): void {
    this.write({ type: 'ERROR', object: statusObject(410, 'Expired', 'too old resource version') });
    this.end();
  }

  end(): void {
    if (this.closed) return;
    this.res.end();
    this.markClosed();
  }

  /** Drops the connection without a clean end, like a network failure or an API server restart. */
  destroy(): void {
    this.res.socket?.destroy();
    this.res.destroy();
    this.markClosed();
  }

  private write(event: unknown): void {
    if (this.closed) return;
    this.res.write(JSON.stringify(event) + '\n');
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
  }
}
