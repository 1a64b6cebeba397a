/**
 * gRPC method definitions with identity (de)serializers: the stream's codecs produce and consume
 * the protobuf bytes themselves (cached per object, see codec-*-encode.ts), which is far faster
 * than @grpc/proto-loader's object conversion at 10k Services.
 */
import type { MethodDefinition } from '@grpc/grpc-js';

export type StreamApi = 'local' | 'global';

const identity = (b: Buffer): Buffer => b;

function bidiMethod(path: string): MethodDefinition<Buffer, Buffer> {
  return {
    path,
    requestStream: true,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  };
}

/** `kpng.localnet.v1.LocalState/Watch` and `kpng.global.v1.GlobalState/Watch`. */
export const WATCH_METHODS: Readonly<Record<StreamApi, MethodDefinition<Buffer, Buffer>>> = {
  local: bidiMethod('/kpng.localnet.v1.LocalState/Watch'),
  global: bidiMethod('/kpng.global.v1.GlobalState/Watch'),
};
