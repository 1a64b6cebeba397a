import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KubeConfig, KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { trimObject } from './trim-object.js';

/** An API error status, shaped as client-node's informers expect (`statusCode`, 410 meaning Gone). */
export class ApiStatusError extends Error {
  override readonly name = 'ApiStatusError';
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * LIST a collection as raw JSON. The generated API clients would deserialize every item into
 * model classes (Dates instead of strings, renamed fields), so listed objects would differ in shape
 * from watched ones, which client-node passes through as parsed JSON; converting one shape only is
 * simpler and cheaper. Auth and TLS still come from the kubeconfig (`applyToFetchOptions`).
 */
export async function listRaw(
  kc: KubeConfig,
  path: string,
  query: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
): Promise<KubernetesListObject<KubernetesObject>> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const url = new URL(cluster.server.replace(/\/+$/, '') + path);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  const init = await kc.applyToFetchOptions({});
  const headers: Record<string, string> = { Accept: 'application/json', ...headerRecord(init.headers) };
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
  if (status !== 200) throw new ApiStatusError(status, `LIST ${url.pathname}: HTTP ${status}: ${statusMessage(body)}`);
  const list = JSON.parse(body) as KubernetesListObject<KubernetesObject>;
  for (const item of list.items ?? []) trimObject(item);
  return list;
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
