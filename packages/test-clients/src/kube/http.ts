import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** A non-200 answer from the API server. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

export type Query = Readonly<Record<string, string | undefined>>;

/**
 * One GET returning parsed JSON. Auth and TLS come from the kubeconfig (`applyToFetchOptions`);
 * the body stays raw JSON (client-node's generated clients would turn timestamps into whole-second
 * Dates, the opposite of what these clients need).
 */
export async function getJson(kc: KubeConfig, path: string, query: Query, signal: AbortSignal): Promise<unknown> {
  return JSON.parse(await getText(kc, path, query, signal, 'application/json')) as unknown;
}

/** One GET returning the body as text (e.g. a pod's /metrics through the API server's proxy). */
export async function getText(
  kc: KubeConfig,
  path: string,
  query: Query,
  signal: AbortSignal,
  accept = '*/*',
): Promise<string> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/+$/, '') + path);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  const init = await kc.applyToFetchOptions({});
  const headers: Record<string, string> = { Accept: accept, ...headerRecord(init.headers) };
  const agent = typeof init.agent === 'function' ? init.agent(url) : init.agent;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = send(url, { method: 'GET', headers, ...(agent ? { agent } : {}), signal }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  if (status !== 200) throw new ApiError(status, `GET ${url.pathname}: HTTP ${status}: ${statusMessage(body)}`);
  return body;
}

/** GET one object; undefined when it does not exist (404). */
export async function getObject<T>(kc: KubeConfig, path: string, signal: AbortSignal): Promise<T | undefined> {
  try {
    return (await getJson(kc, path, {}, signal)) as T;
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 404) return undefined;
    throw error;
  }
}

export interface ListResult<T> {
  readonly items: readonly T[];
  readonly resourceVersion: string;
}

/** LIST every page (`limit` + `continue`), so large target sets are read completely. */
export async function listAll<T>(
  kc: KubeConfig,
  path: string,
  query: Query,
  signal: AbortSignal,
  pageSize = 500,
): Promise<ListResult<T>> {
  const items: T[] = [];
  let resourceVersion = '';
  let token: string | undefined;
  do {
    const page = (await getJson(kc, path, { ...query, limit: String(pageSize), continue: token }, signal)) as {
      items?: T[] | null;
      metadata?: { resourceVersion?: string; continue?: string };
    };
    items.push(...(page.items ?? []));
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    token = page.metadata?.continue || undefined;
  } while (token !== undefined);
  return { items, resourceVersion };
}

export function namespacedPath(
  group: 'core' | 'networking.k8s.io/v1' | 'discovery.k8s.io/v1',
  namespace: string,
  plural: string,
  name?: string,
): string {
  const prefix = group === 'core' ? '/api/v1' : `/apis/${group}`;
  const base = `${prefix}/namespaces/${encodeURIComponent(namespace)}/${plural}`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
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
  if (Array.isArray(headers)) return Object.fromEntries(headers as [string, string][]);
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
