import type { NetworkNamespace } from './namespace.js';
import { labScript } from './scripts.js';
import { scaledTimeout } from './timeout-scale.js';

export interface ProbeOptions {
  readonly proto: 'tcp' | 'udp';
  readonly ip: string;
  readonly port: number;
  /**
   * Per attempt; defaults to 1 s. A timeout's verdict waits for a loop turn that brings nothing (a
   * starved client still reads a reset or answer that came), and once a TCP handshake completed the
   * answer gets 5 timeouts more (a starved echo server is slow, not a drop).
   */
  readonly timeoutMs?: number;
  /**
   * UDP only: send from this source port, so every attempt belongs to one conntrack flow (a
   * stale flow to a removed endpoint shows until it is cleaned). Random when omitted.
   */
  readonly sourcePort?: number;
}

/** `refused` is a reject (RST / ICMP port unreachable); `timeout` a silent drop. */
export type ProbeError = 'refused' | 'timeout' | 'unreachable' | 'reset' | (string & {});

export interface ProbeResult {
  readonly ok: boolean;
  /** The echo server's whole answer, e.g. `pod-a 198.18.1.10`. */
  readonly reply?: string;
  /** Which echo server answered (first word of the reply). */
  readonly server?: string;
  /** The client address as the server saw it: tells whether the source was masqueraded. */
  readonly seenSource?: string;
  readonly error?: ProbeError;
}

const DEFAULT_TIMEOUT_MS = 1_000;
const MAX_ATTEMPTS = 200;
/** After a TCP handshake, the answer may take this many timeouts more (probe-client.mjs: a starved server is slow, not a drop). */
const REPLY_GRACE = 5;
/** Node's own start-up, on top of the attempts' time. */
const STARTUP_BUDGET_MS = 10_000;

/** One connection (TCP) or datagram (UDP) from inside `namespace`. */
export async function probe(namespace: NetworkNamespace, options: ProbeOptions): Promise<ProbeResult> {
  const [result] = await probeRepeatedly(namespace, options, 1);
  if (result === undefined) throw new Error('probe returned no result');
  return result;
}

/** `count` sequential attempts in one process, e.g. to see every endpoint behind a Service. */
export async function probeRepeatedly(
  namespace: NetworkNamespace,
  options: ProbeOptions,
  count: number,
): Promise<ProbeResult[]> {
  if (!Number.isInteger(count) || count < 1 || count > MAX_ATTEMPTS)
    throw new Error(`count must be 1..${MAX_ATTEMPTS}`);
  const timeoutMs = scaledTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  if (options.sourcePort !== undefined) {
    if (options.proto !== 'udp') throw new Error('a fixed source port is for UDP probes only');
    if (!Number.isInteger(options.sourcePort) || options.sourcePort < 1 || options.sourcePort > 65535)
      throw new Error(`invalid source port ${options.sourcePort}`);
  }
  const request = JSON.stringify({
    proto: options.proto,
    ip: options.ip,
    port: options.port,
    timeoutMs,
    count,
    sourcePort: options.sourcePort,
  });
  const { stdout } = await namespace.exec([process.execPath, labScript('probe-client.mjs'), request], {
    timeoutMs: scaledTimeout(STARTUP_BUDGET_MS) + count * timeoutMs * (1 + REPLY_GRACE),
  });
  const raw = JSON.parse(stdout) as { ok: boolean; reply?: string; error?: string }[];
  return raw.map(describe);
}

function describe(raw: { ok: boolean; reply?: string; error?: string }): ProbeResult {
  if (!raw.ok || raw.reply === undefined) return { ok: false, error: raw.error ?? 'unknown' };
  const [server, seenSource] = raw.reply.split(' ');
  return {
    ok: true,
    reply: raw.reply,
    ...(server === undefined ? {} : { server }),
    ...(seenSource === undefined ? {} : { seenSource }),
  };
}
