/**
 * protobufjs reflection of the .proto files, for tests only: proves the hand-written codecs and the
 * published schema agree (protobufjs is present as @grpc/proto-loader's dependency).
 */
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const protoRoot = fileURLToPath(new URL('../../../proto/', import.meta.url));

export function loadProto(file: string): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => protoRoot + target;
  return root.loadSync(file, { keepCase: false });
}

export const toObjectOptions: protobuf.IConversionOptions = { longs: Number, enums: String, defaults: false, oneofs: true };
