/**
 * The envelope shared by both APIs: `WatchRequest{instance_id=1, revision=2, node_name=3}` (the global
 * stream's requests name the client's node; the local stream's never do) and
 * `WatchResponse{oneof {State state=1; Heartbeat heartbeat=2}}`. A State is assembled by copying
 * pre-encoded items (Services, slices, nodes) after a small head, never re-encoding them.
 */
import type { ResumeToken } from '../hub.js';
import { ProtoReader } from './wire/reader.js';
import { ProtoWriter, putVarint, varintSize } from './wire/writer.js';

export interface HeartbeatInfo {
  readonly instanceId: string;
  readonly revision: number;
  readonly intervalMs: number;
}

export type DecodedResponse =
  | { readonly type: 'state'; readonly start: number; readonly end: number }
  | { readonly type: 'heartbeat'; readonly heartbeat: HeartbeatInfo }
  /** A response kind a newer server added: ignored. */
  | { readonly type: 'unknown' };

/** What a client sends: its resume token and, on the global stream, the node it serves. */
export interface WatchRequest {
  /** `undefined` when the client has no state yet (empty instance id). */
  readonly token: ResumeToken | undefined;
  /** `node_name` (field 3, global stream only); "" when absent (a client older than the field, or the local stream). */
  readonly nodeName: string;
}

export function encodeWatchRequest(token: ResumeToken | undefined, nodeName = ''): Buffer {
  const w = new ProtoWriter(64);
  if (token) {
    w.string(1, token.instanceId);
    w.uint(2, token.revision);
  }
  w.string(3, nodeName);
  return w.finish();
}

export function decodeWatchRequest(buf: Buffer): WatchRequest {
  const r = new ProtoReader(buf);
  let instanceId = '';
  let revision = 0;
  let nodeName = '';
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) instanceId = r.string();
    else if (tag === ((2 << 3) | 0)) revision = r.varint();
    else if (tag === ((3 << 3) | 2)) nodeName = r.string();
    else r.skip(tag & 7);
  }
  return { token: instanceId === '' ? undefined : { instanceId, revision }, nodeName };
}

export function encodeHeartbeat(h: HeartbeatInfo): Buffer {
  const w = new ProtoWriter(64);
  const mark = w.fork(2);
  w.string(1, h.instanceId);
  w.uint(2, h.revision);
  w.uint(3, h.intervalMs);
  w.join(mark);
  return w.finish();
}

/** Finds what a response carries; a State is returned as its byte range, decoded by the API's codec. */
export function decodeResponse(buf: Buffer): DecodedResponse {
  const r = new ProtoReader(buf);
  let result: DecodedResponse = { type: 'unknown' };
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) {
      const end = r.delimitedEnd();
      result = { type: 'state', start: r.pos, end };
      r.pos = end;
    } else if (tag === ((2 << 3) | 2)) {
      result = { type: 'heartbeat', heartbeat: readHeartbeat(r, r.delimitedEnd()) };
    } else {
      r.skip(tag & 7);
    }
  }
  return result;
}

function readHeartbeat(r: ProtoReader, end: number): HeartbeatInfo {
  let instanceId = '';
  let revision = 0;
  let intervalMs = 0;
  while (r.pos < end) {
    const tag = r.varint();
    if (tag === ((1 << 3) | 2)) instanceId = r.string();
    else if (tag === ((2 << 3) | 0)) revision = r.varint();
    else if (tag === ((3 << 3) | 0)) intervalMs = r.varint();
    else r.skip(tag & 7);
  }
  r.finish(end);
  return { instanceId, revision, intervalMs };
}

/** Pre-encoded items of one repeated field of State. */
export interface StateSection {
  readonly field: number;
  readonly items: readonly Uint8Array[];
}

/** `WatchResponse{state: State{<head>, <section items>...}}` in one allocation. */
export function assembleStateResponse(head: ProtoWriter, sections: readonly StateSection[]): Buffer {
  let stateLength = head.pos;
  for (const { field, items } of sections) {
    if (field > 15) throw new Error('section fields must have a one-byte tag');
    for (const item of items) stateLength += 1 + varintSize(item.length) + item.length;
  }
  const out = Buffer.allocUnsafe(1 + varintSize(stateLength) + stateLength);
  out[0] = (1 << 3) | 2;
  let pos = head.copyTo(out, putVarint(out, 1, stateLength));
  for (const { field, items } of sections) {
    const tag = (field << 3) | 2;
    for (const item of items) {
      out[pos++] = tag;
      pos = putVarint(out, pos, item.length);
      out.set(item, pos);
      pos += item.length;
    }
  }
  return out;
}
