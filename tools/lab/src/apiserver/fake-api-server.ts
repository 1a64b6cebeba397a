import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { InjectedFailures, type FailureOptions } from './injected-failures.js';
import { mergePatch } from './merge-patch.js';
import { ObjectStore, StoreError, type KubeObject, type StoredObject } from './object-store.js';
import { RequestLog, type RecordedRequest, type RequestFilter, type RequestVerb } from './request-log.js';
import { parseResourcePath, resourceForKind, resourceId, type ResourcePath } from './resources.js';
import { parseSelector, SelectorParseError, type Selector } from './selectors.js';
import { statusObject } from './status.js';
import { makeServingPki } from '../pki.js';
import { selects, WatchStream, type ObjectFilter } from './watch-stream.js';

const SELECTABLE_FIELDS = new Set(['metadata.name', 'metadata.namespace']);

export interface FakeApiServerOptions {
  /**
   * Resources answered 404 as an API server that does not serve them (an older version, a gate
   * off), named `<apiVersion>/<plural>`: `networking.k8s.io/v1/servicecidrs`.
   */
  readonly unserved?: readonly string[];
  /**
   * Serve HTTPS, as every real API server does, with a certificate for 127.0.0.1 signed by a CA
   * made for this server alone (`ca`; `kubeconfigFor` writes it into the kubeconfig). Default:
   * plain HTTP, which the tests that read the server with plain `fetch` and the VM guests use.
   */
  readonly tls?: boolean;
  /** Give every stored object a `metadata.managedFields` entry, as a real API server does (default false). */
  readonly managedFields?: boolean;
  /**
   * Send every open watch that allows bookmarks a BOOKMARK this often, as a real API server does
   * (about once a minute there). Default: only when `sendBookmark` is called.
   */
  readonly bookmarkEveryMs?: number;
}

/**
 * LIST snapshots kept for `continue` tokens. A real API server serves a continued LIST from etcd
 * at the first page's revision until compaction; this fake keeps the first page's list itself,
 * the latest this many, and answers an older or compacted token 410 Expired, as the real one does.
 */
const KEPT_LIST_SNAPSHOTS = 64;

interface ListSnapshot {
  readonly resourceVersion: number;
  readonly items: readonly StoredObject[];
}

export interface CompactOptions {
  /** Also end every open watch with an ERROR 410 event (default true). */
  readonly expireOpenWatches?: boolean;
}

/**
 * A real HTTP (or, with `tls`, HTTPS) server on 127.0.0.1 speaking enough of the Kubernetes API for
 * list/watch clients: LIST (whole, or in pages with `limit`/`continue`) and WATCH (with
 * resourceVersion, label and field selectors, bookmarks, 410 Gone) and GET of
 * one object, for Services, EndpointSlices, Nodes, Pods, Namespaces and NetworkPolicies. Tests change objects through the methods
 * below, and can break things on purpose: compaction, dropped connections, injected error statuses,
 * a stop and a restart on the same port.
 */
export class FakeApiServer {
  private readonly store: ObjectStore;
  private readonly snapshots = new Map<string, ListSnapshot>();
  private snapshotCount = 0;
  private bookmarkTimer: NodeJS.Timeout | undefined;
  private readonly log = new RequestLog();
  private readonly failures = new InjectedFailures();
  private readonly watches = new Set<WatchStream>();

  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>`, or `https://` with `tls` */
    readonly url: string,
    private readonly unserved: ReadonlySet<string>,
    options: FakeApiServerOptions,
    /** With `tls`: the CA certificate (PEM) that signed the server's certificate. */
    readonly ca?: Buffer,
  ) {
    this.store = new ObjectStore(undefined, options.managedFields ?? false);
    if (options.bookmarkEveryMs !== undefined) {
      this.bookmarkTimer = setInterval(() => this.sendBookmark(), options.bookmarkEveryMs);
      this.bookmarkTimer.unref();
    }
    this.store.subscribe((change) => {
      for (const w of [...this.watches]) w.offer(change);
    });
  }

  static async start(options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
    let instance: FakeApiServer | undefined;
    const handler = (req: IncomingMessage, res: ServerResponse) => instance?.handle(req, res);
    const pki = options.tls === true ? await makeServingPki() : undefined;
    const server: Server = pki ? createHttpsServer({ cert: pki.cert, key: pki.key }, handler) : createServer(handler);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const url = `${pki ? 'https' : 'http'}://127.0.0.1:${port}`;
    instance = new FakeApiServer(server, url, new Set(options.unserved ?? []), options, pki?.ca);
    return instance;
  }

  /** The current (latest) resourceVersion. */
  get resourceVersion(): number {
    return this.store.resourceVersion;
  }

  /** The stored objects of a kind (every namespace), e.g. the Events a proxy posted. */
  objects(kind: string, apiVersion?: string): readonly StoredObject[] {
    const resource = resourceForKind(kind, apiVersion);
    return resource ? this.store.list(resource) : [];
  }

  create(obj: KubeObject): StoredObject {
    return this.store.create(obj);
  }
  update(obj: KubeObject): StoredObject {
    return this.store.update(obj);
  }
  /** Create or update. */
  apply(obj: KubeObject): StoredObject {
    return this.store.apply(obj);
  }
  delete(obj: Pick<KubeObject, 'kind' | 'metadata'>): StoredObject {
    return this.store.delete(obj);
  }

  /** Forgets the change history: a watch resuming from an older resourceVersion gets 410 Gone. */
  compact(options: CompactOptions = {}): void {
    this.store.compact();
    this.snapshots.clear();
    if (options.expireOpenWatches ?? true) for (const w of [...this.watches]) w.expire();
  }

  /** Destroys every open watch connection. Returns how many there were. */
  dropConnections(): number {
    const open = [...this.watches];
    for (const w of open) w.destroy();
    return open.length;
  }

  /**
   * Ends every open watch cleanly, as the real API server does when a watch reaches its timeout:
   * events already sent arrive first, and clients resume from the last resourceVersion they saw.
   * Returns how many there were.
   */
  endWatches(): number {
    const open = [...this.watches];
    for (const w of open) w.end();
    return open.length;
  }

  /** The next request(s) to `path` (a path without query, e.g. `/api/v1/services`) answer `status`. */
  failNext(path: string, status: number, options?: FailureOptions): void {
    this.failures.add(path, status, options);
  }

  /** Sends a BOOKMARK at the current resourceVersion to every open watch that allows bookmarks. */
  sendBookmark(): void {
    for (const w of this.watches) w.bookmark(this.store.resourceVersion);
  }

  requests(filter?: RequestFilter): readonly RecordedRequest[] {
    return this.log.select(filter);
  }

  /** The request log's next position, to select only requests that come later. */
  get requestMark(): number {
    return this.log.mark;
  }

  /** Open watches, optionally of one resource (`services`). */
  openWatches(resource?: string): number {
    return [...this.watches].filter((w) => resource === undefined || w.filter.resource.plural === resource).length;
  }

  /**
   * Stops answering, as a killed or restarting API server does: open connections are cut (open
   * watches end mid-stream), new ones are refused. Objects and change history are kept, so clients
   * can resume their watches after `restart`.
   */
  async stop(): Promise<void> {
    if (!this.server.listening) return;
    this.dropConnections();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  /** Listens again on the same address after `stop`; resolves once requests are answered. */
  async restart(): Promise<void> {
    if (this.server.listening) return;
    const { hostname, port } = new URL(this.url);
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(Number(port), hostname, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  async close(): Promise<void> {
    clearInterval(this.bookmarkTimer);
    if (!this.server.listening) return;
    for (const w of [...this.watches]) w.end();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    const query = Object.fromEntries(url.searchParams);
    const parsed = parseResourcePath(url.pathname);
    const target = parsed && !this.unserved.has(resourceId(parsed.resource)) ? parsed : undefined;
    const verb: RequestVerb =
      // POST and PATCH only where a proxy writes (Events, and their series); other kinds change
      // through the methods above.
      req.method === 'POST' && target?.resource.kind === 'Event' && target.name === undefined
        ? 'create'
        : req.method === 'PATCH' && target?.resource.kind === 'Event' && target.name !== undefined
          ? 'patch'
          : req.method !== 'GET' || !target
            ? 'other'
            : target.name !== undefined
              ? 'get'
              : isWatch(query)
                ? 'watch'
                : 'list';
    const record = (status: number, injected = false) =>
      this.log.add({
        method: req.method ?? '',
        path: url.pathname,
        query,
        verb,
        ...(target ? { resource: target.resource.plural } : {}),
        status,
        injected,
      });

    const failure = this.failures.take(url.pathname, verb);
    if (failure) {
      record(failure.status, true);
      const headers =
        failure.retryAfterSeconds !== undefined ? { 'Retry-After': String(failure.retryAfterSeconds) } : {};
      return sendJson(res, failure.status, statusObject(failure.status, undefined, failure.message), headers);
    }
    if (!target) {
      record(404);
      return sendJson(res, 404, statusObject(404, undefined, `the server could not find ${url.pathname}`));
    }
    if (verb === 'create') return this.createFromRequest(target, req, record, res);
    if (verb === 'patch') return this.patchFromRequest(target, req, record, res);
    if (verb === 'other') {
      record(405);
      return sendJson(res, 405, statusObject(405, undefined, `${req.method} is not supported by the fake API server`));
    }
    let filter: ObjectFilter;
    try {
      filter = filterFor(target, query);
    } catch (e) {
      if (!(e instanceof SelectorParseError)) throw e;
      record(400);
      return sendJson(res, 400, statusObject(400, undefined, e.message));
    }
    if (verb === 'get') return this.get(target, record, res);
    if (verb === 'watch') return this.watch(filter, query, record, res);
    this.list(filter, query, record, res);
  }

  /**
   * A LIST: the whole collection, or with `limit` one page of it and a `continue` token for the
   * next, as client-go's pager reads it (500 a page); `continue` pages through the list as it was
   * at the first page, its resourceVersion, with `remainingItemCount`. With `resourceVersion=0`
   * the list is whole whatever the `limit`, as the real server's watch cache answers it.
   */
  private list(
    filter: ObjectFilter,
    query: Readonly<Record<string, string>>,
    record: (status: number) => void,
    res: ServerResponse,
  ): void {
    const token = query['continue'];
    let snapshot: ListSnapshot | undefined;
    let start = 0;
    if (token !== undefined && token !== '' && (query['resourceVersion'] ?? '') !== '') {
      record(400);
      return sendJson(
        res,
        400,
        statusObject(400, 'BadRequest', 'specifying resource version is not allowed when using continue'),
      );
    }
    if (token !== undefined && token !== '') {
      const [id, from] = decodeContinue(token);
      snapshot = id === undefined ? undefined : this.snapshots.get(id);
      if (snapshot === undefined || from === undefined || from > snapshot.items.length) {
        record(410);
        const message =
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';
        return sendJson(res, 410, statusObject(410, 'Expired', message));
      }
      start = from;
    } else {
      snapshot = {
        resourceVersion: this.store.resourceVersion,
        // The list as of now (stored objects are replaced, never changed in place).
        items: this.store.list(filter.resource, filter.namespace).filter((o) => selects(filter, o)),
      };
    }
    // resourceVersion=0 is answered from the watch cache, which ignores `limit` (API servers up to
    // v1.32, the reflector's first list): the whole list in one answer.
    const fromCache = query['resourceVersion'] === '0';
    const limit = !fromCache && /^\d+$/.test(query['limit'] ?? '') ? Number(query['limit']) : 0;
    const end = limit > 0 ? Math.min(start + limit, snapshot.items.length) : snapshot.items.length;
    let next: string | undefined;
    if (end < snapshot.items.length) {
      let id = token === undefined || token === '' ? undefined : decodeContinue(token)[0];
      if (id === undefined) {
        id = String(++this.snapshotCount);
        this.snapshots.set(id, snapshot);
        for (const old of this.snapshots.keys()) {
          if (this.snapshots.size <= KEPT_LIST_SNAPSHOTS) break;
          this.snapshots.delete(old);
        }
      }
      next = encodeContinue(id, end);
    }
    record(200);
    const metadata = {
      resourceVersion: String(snapshot.resourceVersion),
      ...(next !== undefined ? { continue: next, remainingItemCount: snapshot.items.length - end } : {}),
    };
    // Written in turns (`sendList`).
    sendList(
      res,
      { kind: filter.resource.listKind, apiVersion: filter.resource.apiVersion, metadata },
      start === 0 && end === snapshot.items.length ? snapshot.items : snapshot.items.slice(start, end),
    );
  }

  /** POST to a collection: the object is stored (in the path's namespace) and returned, 201. */
  private createFromRequest(
    target: ResourcePath,
    req: IncomingMessage,
    record: (status: number) => void,
    res: ServerResponse,
  ): void {
    onBody(req, (body) => {
      let obj: KubeObject;
      try {
        obj = JSON.parse(body) as KubeObject;
        if (obj.kind !== target.resource.kind)
          throw new Error(`kind ${String(obj.kind)} posted to ${target.resource.plural}`);
      } catch (e) {
        record(400);
        return sendJson(res, 400, statusObject(400, undefined, (e as Error).message));
      }
      try {
        const metadata = {
          ...obj.metadata,
          ...(target.namespace !== undefined ? { namespace: target.namespace } : {}),
        };
        const stored = this.store.create({ ...obj, apiVersion: target.resource.apiVersion, metadata });
        record(201);
        sendJson(res, 201, stored);
      } catch (e) {
        if (!(e instanceof StoreError)) throw e;
        record(409);
        sendJson(res, 409, statusObject(409, 'AlreadyExists', e.message));
      }
    });
  }

  /** PATCH of one object with a JSON merge patch (RFC 7386, `application/merge-patch+json`), 200. */
  private patchFromRequest(
    target: ResourcePath,
    req: IncomingMessage,
    record: (status: number) => void,
    res: ServerResponse,
  ): void {
    onBody(req, (body) => {
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      if (type !== 'application/merge-patch+json') {
        record(415);
        return sendJson(res, 415, statusObject(415, undefined, `PATCH as ${type || 'nothing'}: only merge patches`));
      }
      const current = this.store.get(target.resource, target.namespace, target.name ?? '');
      if (!current) {
        record(404);
        return sendJson(res, 404, statusObject(404, undefined, `${target.resource.plural} "${target.name}" not found`));
      }
      let patch: unknown;
      try {
        patch = JSON.parse(body);
      } catch (e) {
        record(400);
        return sendJson(res, 400, statusObject(400, undefined, (e as Error).message));
      }
      const patched = mergePatch(current, patch) as KubeObject;
      const stored = this.store.update({ ...patched, metadata: { ...patched.metadata, name: current.metadata.name } });
      record(200);
      sendJson(res, 200, stored);
    });
  }

  private get(target: ResourcePath, record: (status: number) => void, res: ServerResponse): void {
    const obj = this.store.get(target.resource, target.namespace, target.name ?? '');
    if (!obj) {
      record(404);
      return sendJson(res, 404, statusObject(404, undefined, `${target.resource.plural} "${target.name}" not found`));
    }
    record(200);
    sendJson(res, 200, obj);
  }

  private watch(
    filter: ObjectFilter,
    query: Readonly<Record<string, string>>,
    record: (status: number) => void,
    res: ServerResponse,
  ): void {
    const from = query['resourceVersion'] ?? '';
    const startFresh = from === '' || from === '0';
    const replay = startFresh ? [] : this.store.changesSince(Number(from));
    if (replay === 'expired' || (!startFresh && !/^\d+$/.test(from))) {
      record(410);
      const message = `too old resource version: ${from} (${this.store.resourceVersion})`;
      return sendJson(res, 410, statusObject(410, 'Expired', message));
    }
    record(200);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    const allowBookmarks = query['allowWatchBookmarks'] === 'true';
    const stream = new WatchStream(res, filter, allowBookmarks, (s) => this.watches.delete(s));
    this.watches.add(stream);
    // A fresh watch starts with the current state as synthetic ADDED events, as the real server does.
    if (startFresh) {
      for (const o of this.store.list(filter.resource, filter.namespace)) if (selects(filter, o)) stream.sendAdded(o);
    }
    for (const change of replay) stream.offer(change);
    const timeoutSeconds = Number(query['timeoutSeconds'] ?? 0);
    if (timeoutSeconds > 0) {
      const timer = setTimeout(() => stream.end(), timeoutSeconds * 1000);
      res.on('close', () => clearTimeout(timer));
    }
  }
}

/** A continue token: opaque to clients (base64 JSON, as the real server's), naming a snapshot and a position. */
function encodeContinue(id: string, from: number): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', id, from })).toString('base64url');
}

function decodeContinue(token: string): [id: string | undefined, from: number | undefined] {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { id?: unknown; from?: unknown };
    return [
      typeof parsed.id === 'string' ? parsed.id : undefined,
      Number.isSafeInteger(parsed.from) && (parsed.from as number) >= 0 ? (parsed.from as number) : undefined,
    ];
  } catch {
    return [undefined, undefined];
  }
}

function isWatch(query: Readonly<Record<string, string>>): boolean {
  return query['watch'] === 'true' || query['watch'] === '1';
}

function filterFor(target: ResourcePath, query: Readonly<Record<string, string>>): ObjectFilter {
  const fields: Selector = parseSelector(query['fieldSelector']);
  const unsupported = fields.find((t) => !SELECTABLE_FIELDS.has(t.key));
  if (unsupported) throw new SelectorParseError(`field label not supported: ${unsupported.key}`);
  return {
    resource: target.resource,
    ...(target.namespace !== undefined ? { namespace: target.namespace } : {}),
    labels: parseSelector(query['labelSelector']),
    fields,
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * Objects a LIST body piece holds: each piece is written in its own turn of the event loop. The
 * fake API server shares its thread with the program under test (the fault suite's health-under-load
 * case polls that program with a 1 s deadline, a kubelet probe's): s10k's lists stringified in one turn
 * held the thread for a large part of that (docs/PERFORMANCE.md).
 * A kube-apiserver writes a list as it encodes it too.
 */
export const LIST_PIECE_ITEMS = 500;

/** A LIST body in pieces of at most `perPiece` items; joined, exactly `JSON.stringify({ ...head, items })`. */
export function* listBodyPieces(
  head: Readonly<Record<string, unknown>>,
  items: readonly unknown[],
  perPiece = LIST_PIECE_ITEMS,
): Generator<string> {
  const open = JSON.stringify({ ...head, items: [] }).slice(0, -2);
  if (items.length === 0) {
    yield `${open}]}`;
    return;
  }
  for (let from = 0; from < items.length; from += perPiece) {
    const piece = items.slice(from, from + perPiece).map((item) => JSON.stringify(item));
    const last = from + perPiece >= items.length;
    yield `${from === 0 ? open : ','}${piece.join(',')}${last ? ']}' : ''}`;
  }
}

/** A 200 LIST answer: one piece (with a Content-Length) when small, else chunked, a piece a turn. */
function sendList(res: ServerResponse, head: Readonly<Record<string, unknown>>, items: readonly unknown[]): void {
  if (items.length <= LIST_PIECE_ITEMS) return sendJson(res, 200, { ...head, items });
  res.writeHead(200, { 'Content-Type': 'application/json' });
  const pieces = listBodyPieces(head, items);
  const next = (): void => {
    if (res.destroyed) return;
    const piece = pieces.next();
    if (piece.done === true) return void res.end();
    res.write(piece.value);
    setImmediate(next);
  };
  next();
}

/** Calls `then` with a request's whole body, as UTF-8 text. */
function onBody(req: IncomingMessage, then: (body: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => then(Buffer.concat(chunks).toString('utf8')));
}
