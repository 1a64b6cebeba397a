import { constants } from 'node:http2';
import type { ServerDuplexStream } from '@grpc/grpc-js';

interface Http2StreamLike {
  readonly rstCode?: number;
  close(code?: number): void;
}

function isHttp2Stream(value: unknown): value is Http2StreamLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    'rstCode' in value &&
    typeof (value as { close?: unknown }).close === 'function'
  );
}

/**
 * Resets a server call's HTTP/2 stream (RST_STREAM with CANCEL), which drops what is queued for it
 * behind flow control. gRPC's server API cannot: ending the call or emitting an error queues the
 * status behind the data a client that does not read never takes, so the call and its state would
 * stay. The stream is reached through grpc-js's call objects (the server call's `call`, through
 * interceptors' `nextCall`, to the base call's `stream`); `slow-drain.test.ts` fails if a grpc-js
 * release moves it. Returns false when no stream was found (the caller then ends the call as it can).
 */
export function resetCall(call: ServerDuplexStream<Buffer, Buffer>): boolean {
  let inner: unknown = (call as unknown as { call?: unknown }).call;
  for (let depth = 0; depth < 8 && typeof inner === 'object' && inner !== null; depth++) {
    const stream = (inner as { stream?: unknown }).stream;
    if (isHttp2Stream(stream)) {
      stream.close(constants.NGHTTP2_CANCEL);
      return true;
    }
    inner = (inner as { nextCall?: unknown }).nextCall;
  }
  return false;
}
