import type { GlobalSnapshot } from '../../model/global-model.js';
import type { LocalService, NodeLocalState } from '../../nodeview/types.js';
import { ErrorCodes, KpngError, toError } from '../../util/errors.js';
import { reportInvalid } from '../../watch/convert/report.js';
import { localServiceProblems, localStateRefusals } from '../../watch/convert/validate.js';
import { log as defaultLog, type Logger } from '../../util/log.js';
import { retryDelay, sleep, type BackoffOptions } from './backoff.js';
import { decodeGlobalState, decodeGlobalStateInTurns, GlobalDecodeCache } from '../codec/global-decode.js';
import {
  decodeLocalState,
  decodeLocalStateInTurns,
  policyDecodeCache,
  type PolicyDecodeCache,
} from '../codec/local-decode.js';
import { consume, type StateHandler, type WatchCursor } from './consume.js';
import { GrpcStateSource, type GrpcSourceOptions, type StateDecoder } from './grpc-source.js';
import type { StateSource } from '../hub.js';
import { DecodedItemCache } from '../codec/item-cache.js';
import type { StreamApi } from '../service-definitions.js';
import { parseDialAddress } from '../stream-address.js';
import type { StreamTls } from '../tls.js';

export interface WatchOptions extends GrpcSourceOptions {
  /** Stops the watch; the returned promise then resolves. */
  readonly signal?: AbortSignal;
  /** Reconnect and handler-retry delays; default 100 ms doubling to 10 s, ±20% jitter. */
  readonly backoff?: BackoffOptions;
  readonly logger?: Logger;
  /**
   * Reuse decoded objects for byte-identical items between states (default true): cheaper decoding
   * and stable object identity for unchanged Services. Costs one copy of the encoded state in memory.
   */
  readonly decodeCache?: boolean;
  /** Trigger times at or before this (epoch ms) are dropped; default: when the watch started. */
  readonly since?: number;
  /**
   * Reads `tls` again before each reconnection (the files behind it may have been rotated, as the
   * kubelet rotates its client certificate); on failure the previous `tls` is kept and the failure logged.
   */
  readonly reloadTls?: () => Promise<StreamTls>;
}

/**
 * A node-local state decoded from the stream passes the checks core's own node view meets
 * (`localStateRefusals`) before any handler sees it. A state that fails is refused whole: each
 * object is reported as an invalid API object is (a warning and `kpng_invalid_objects_total{kind}`),
 * the handler keeps the state it has, and the stream is opened again with backoff (the server then
 * sends its current state). Objects reused from the decode cache were checked when first decoded.
 * With the cache, a state is decoded a 10 ms budget per event-loop turn, its changed Services checked
 * as they are decoded (`decodeLocalStateInTurns`).
 */
function checkedLocalDecoder(
  cache: DecodedItemCache<LocalService> | undefined,
  policyCache: PolicyDecodeCache | undefined,
): StateDecoder<NodeLocalState> {
  const checked = new WeakSet<object>();
  const check = (svc: LocalService) => {
    if (localServiceProblems(svc).length === 0) checked.add(svc);
  };
  return async (buf, start, end) => {
    const delivery = cache
      ? await decodeLocalStateInTurns(buf, start, end, cache, check, undefined, policyCache)
      : decodeLocalState(buf, start, end);
    const refusals = localStateRefusals(delivery.state, checked);
    if (refusals.length === 0) return delivery;
    for (const r of refusals) reportInvalid(r.kind, `local stream: ${r.where.slice(0, 300)}`, r.problems);
    throw new KpngError(
      ErrorCodes.InvalidObject,
      `refused the node-local state at revision ${delivery.revision}: ${refusals.length} invalid object(s)`,
    );
  };
}

/**
 * Watches core's node-local stream at `address` (`unix:///run/kpng/kpng.sock`, `127.0.0.1:PORT`):
 * calls `handler` with each new complete state, asks for the next only after the handler resolved,
 * reconnects with backoff and resumes from the last state handled. Resolves once `signal` aborts.
 */
export function watchLocalState(
  address: string,
  handler: StateHandler<NodeLocalState>,
  options: WatchOptions = {},
): Promise<void> {
  const cache = options.decodeCache === false ? undefined : new DecodedItemCache<LocalService>();
  const policyCache = options.decodeCache === false ? undefined : policyDecodeCache();
  return watchRemote('local', address, checkedLocalDecoder(cache, policyCache), handler, options);
}

/**
 * Watches a central core's global model (kpng.global.v1) with the same contract as `watchLocalState`;
 * with the decode cache, a state is decoded a 10 ms budget per event-loop turn.
 */
export function watchGlobalState(
  address: string,
  handler: StateHandler<GlobalSnapshot>,
  options: WatchOptions = {},
): Promise<void> {
  const cache = options.decodeCache === false ? undefined : new GlobalDecodeCache();
  return watchRemote(
    'global',
    address,
    (buf, start, end) =>
      cache ? decodeGlobalStateInTurns(buf, start, end, cache) : decodeGlobalState(buf, start, end),
    handler,
    options,
  );
}

/** Consumes an in-process hub with the same contract (single-process mode); resolves on abort or hub close. */
export async function watchHub<S>(
  hub: StateSource<S>,
  handler: StateHandler<S>,
  options: Omit<WatchOptions, keyof GrpcSourceOptions | 'decodeCache'> = {},
): Promise<void> {
  const cursor: WatchCursor = { token: undefined, failures: 0 };
  const log = (options.logger ?? defaultLog).with({ component: 'stream-client', api: 'in-process' });
  try {
    await consume(hub, handler, cursor, {
      signal: options.signal,
      backoff: options.backoff,
      log,
      since: options.since ?? Date.now(),
    });
  } catch (e) {
    log.info('state hub closed', { err: toError(e) });
  }
}

async function watchRemote<S>(
  api: StreamApi,
  address: string,
  decode: StateDecoder<S>,
  handler: StateHandler<S>,
  options: WatchOptions,
): Promise<void> {
  // A malformed address rejects now: gRPC would dial (and back off) forever on almost any text.
  parseDialAddress(address);
  const { signal } = options;
  const log = (options.logger ?? defaultLog).with({ component: 'stream-client', api, address });
  const consumeOptions = { signal, backoff: options.backoff, log, since: options.since ?? Date.now() };
  const cursor: WatchCursor = { token: undefined, failures: 0 };
  let tls = options.tls;
  let first = true;
  while (!signal?.aborted) {
    if (!first && options.reloadTls) {
      try {
        tls = await options.reloadTls();
      } catch (e) {
        log.warn('could not read the TLS files again; using the ones read before', { err: toError(e) });
      }
    }
    first = false;
    const source = new GrpcStateSource(api, address, decode, { ...options, ...(tls ? { tls } : {}) });
    try {
      await consume(source, handler, cursor, consumeOptions);
    } catch (e) {
      cursor.failures++;
      log.warn('state stream lost; reconnecting', { err: toError(e), attempt: cursor.failures });
    } finally {
      source.close();
    }
    if (!signal?.aborted) await sleep(retryDelay(cursor.failures, options.backoff), signal, options.clock);
  }
}
