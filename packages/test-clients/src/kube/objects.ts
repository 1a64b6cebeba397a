import { isIP } from 'node:net';

/**
 * The few fields the clients read, typed as the API server sends them (JSON: timestamps are
 * strings). Everything is optional because nothing from the wire is trusted.
 */

export type IPFamily = 'IPv4' | 'IPv6';

export interface ObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly creationTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface KubeObject {
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
}

export interface Pod extends KubeObject {
  readonly status?: {
    readonly podIP?: string;
    readonly podIPs?: readonly { readonly ip?: string }[];
  };
}

export interface ServicePort {
  readonly name?: string;
  readonly protocol?: string;
  readonly port?: number;
  readonly nodePort?: number;
}

export interface Service extends KubeObject {
  readonly spec?: {
    readonly clusterIP?: string;
    readonly clusterIPs?: readonly string[];
    readonly ports?: readonly ServicePort[];
  };
}

export interface Endpoint {
  readonly addresses?: readonly string[];
  readonly conditions?: { readonly ready?: boolean | null };
  readonly hostname?: string;
  readonly targetRef?: { readonly kind?: string; readonly name?: string; readonly namespace?: string };
}

export interface EndpointSlice extends KubeObject {
  readonly addressType?: string;
  readonly endpoints?: readonly Endpoint[] | null;
}

/** Set by the EndpointSlice controller on each slice it changes: where programming latency starts. */
export const TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';

/**
 * Optional, set by whoever creates an object (a test harness): the creation time with millisecond
 * precision, RFC 3339. `metadata.creationTimestamp` only has whole seconds.
 */
export const CREATED_AT_ANNOTATION = 'test-clients.kpng.io/created-at';

export function familyOf(ip: string): IPFamily | undefined {
  const v = isIP(ip);
  return v === 4 ? 'IPv4' : v === 6 ? 'IPv6' : undefined;
}

/** The pod's address in `family`, or its primary address when no family is asked for. */
export function podIP(pod: Pod, family?: IPFamily): string | undefined {
  const all = [pod.status?.podIP, ...(pod.status?.podIPs ?? []).map((p) => p.ip)].filter(
    (ip): ip is string => typeof ip === 'string' && familyOf(ip) !== undefined,
  );
  return family === undefined ? all[0] : all.find((ip) => familyOf(ip) === family);
}

/** `namespace/name`. */
export function keyOf(obj: KubeObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

/** RFC 3339 (with an optional fraction of up to 9 digits) to epoch ms; undefined when invalid. */
export function parseTime(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const base = Date.parse(`${m[1]}${m[3] === 'z' ? 'Z' : m[3]}`);
  if (Number.isNaN(base) || base <= 0) return undefined;
  const fraction = m[2] === undefined ? 0 : Number(`0.${m[2]}`) * 1_000;
  return base + fraction;
}

export function creationTime(obj: KubeObject): number | undefined {
  return parseTime(obj.metadata?.creationTimestamp);
}

export function annotation(obj: KubeObject, key: string): string | undefined {
  return obj.metadata?.annotations?.[key];
}
