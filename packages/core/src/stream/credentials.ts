import { ChannelCredentials, ServerCredentials } from '@grpc/grpc-js';
import type { StreamTls } from './tls.js';

// Apart from tls.ts (reading and checking the PEM files at start) so that a program that serves
// and reads no stream never loads gRPC (its resident memory: docs/PERFORMANCE.md).

/** TLS that requires a client certificate signed by `tls.ca`. */
export function serverCredentials(tls: StreamTls | undefined): ServerCredentials {
  if (!tls) return ServerCredentials.createInsecure();
  return ServerCredentials.createSsl(tls.ca, [{ cert_chain: tls.cert, private_key: tls.key }], true);
}

/** TLS that verifies the server against `tls.ca` and presents this client's certificate. */
export function channelCredentials(tls: StreamTls | undefined): ChannelCredentials {
  return tls ? ChannelCredentials.createSsl(tls.ca, tls.key, tls.cert) : ChannelCredentials.createInsecure();
}
