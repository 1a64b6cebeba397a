import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { RequestRateLimiter } from './request-rate-limiter.js';

/** An API error status, shaped as client-node's informers expect (`statusCode`, 410 meaning Gone). */
export class ApiStatusError extends Error {
  override readonly name = 'ApiStatusError';
  constructor(
    readonly statusCode: number,
    message: string,
    /** The server's `Retry-After`, in seconds, when it sent one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/**
 * GET `path` on the kubeconfig's current cluster and resolve with the response as soon as its
 * headers arrive (the body is left to the caller: read whole for a LIST, streamed for a WATCH).
 * Auth and TLS come from the kubeconfig (`applyToFetchOptions`), as for client-node's own requests,
 * so the instrumented kubeconfig sees these too. With a `limiter`, the request first waits for its
 * token, as client-go's REST client throttles every request (`clientConnection.qps`/`burst`).
 */
export async function apiGet(
  kc: KubeConfig,
  path: string,
  query: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
  limiter?: RequestRateLimiter,
): Promise<{ url: URL; res: IncomingMessage }> {
  await limiter?.wait(signal);
  return apiRequest(kc, 'GET', path, query, signal);
}

/**
 * One request (a GET, a POST with a JSON `body`, or a PATCH with a JSON merge patch) resolved at
 * its response's headers; see `apiGet`. `accept`: JSON unless asked (a pod's /metrics through the
 * API server's proxy is text).
 */
export async function apiRequest(
  kc: KubeConfig,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  query: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
  body?: string,
  accept = 'application/json',
): Promise<{ url: URL; res: IncomingMessage }> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/+$/, '') + path);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  const init = await kc.applyToFetchOptions({});
  const headers: Record<string, string> = {
    Accept: accept,
    ...headerRecord(init.headers),
    ...(body !== undefined
      ? { 'Content-Type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }
      : {}),
  };
  const agent = typeof init.agent === 'function' ? init.agent(url) : init.agent;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = send(url, { method, headers, ...(agent ? { agent } : {}), signal }, resolve);
    req.on('error', reject);
    req.end(body);
  });
  return { url, res };
}

/** A Status (error) answer's body larger than this is not read whole: its message is left out. */
export const MAX_STATUS_BODY_BYTES = 1024 * 1024;

/** Reads a whole response body as text; more than `maxBytes` destroys the response and rejects. */
export function readBody(res: IncomingMessage, maxBytes = Number.POSITIVE_INFINITY): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        reject(new Error(`the API server's answer is over ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

/** The error for a non-200 answer, with the Status object's message and the server's Retry-After. */
export async function statusError(verb: string, url: URL, res: IncomingMessage): Promise<ApiStatusError> {
  const status = res.statusCode ?? 0;
  const body = await readBody(res, MAX_STATUS_BODY_BYTES).catch(() => '');
  return new ApiStatusError(
    status,
    `${verb} ${url.pathname}: HTTP ${status}: ${statusMessage(body)}`,
    retryAfterSeconds(res),
  );
}

/** `Retry-After` as client-go reads it: whole seconds only (an HTTP date is ignored). */
export function retryAfterSeconds(res: IncomingMessage): number | undefined {
  const value = res.headers['retry-after'];
  if (typeof value !== 'string' || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** node-fetch's Headers (what client-node returns), a plain record, or pairs, as a plain record. */
function headerRecord(headers: unknown): Record<string, string> {
  if (!headers) return {};
  if (typeof (headers as { forEach?: unknown }).forEach === 'function' && !Array.isArray(headers)) {
    const out: Record<string, string> = {};
    (headers as { forEach(cb: (value: string, name: string) => void): void }).forEach((value, name) => {
      out[name] = value;
    });
    return out;
  }
  if (Array.isArray(headers)) return Object.fromEntries(headers as Array<[string, string]>);
  return Object.fromEntries(Object.entries(headers as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
}

function statusMessage(body: string): string {
  try {
    const status = JSON.parse(body) as { message?: unknown };
    if (typeof status.message === 'string') return status.message;
  } catch {
    // not a Status object
  }
  return body.slice(0, 200);
}
