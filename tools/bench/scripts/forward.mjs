// `node forward.mjs LISTEN TARGET`: listens on LISTEN and carries each connection to TARGET, each
// either a port on 127.0.0.1 (a number) or a unix socket's path. Unix sockets belong to no network
// namespace: run once inside a lab pod (`PORT PATH`) and once beside the bench (`PATH PORT`), a
// program in the pod reaches a server on the bench's loopback (its fake API server) without any
// route or address outside the lab. Prints "ready" once listening; ends on SIGTERM.
import { connect, createServer } from 'node:net';

const where = (text) => (/^\d+$/.test(text) ? { port: Number(text), host: '127.0.0.1' } : { path: text });
const [listen, target] = process.argv.slice(2).map(where);
if (listen === undefined || target === undefined) {
  process.stderr.write('usage: forward.mjs LISTEN TARGET (a port on 127.0.0.1 or a unix socket path each)\n');
  process.exit(2);
}
const server = createServer((inbound) => {
  const outbound = connect(target);
  const end = () => {
    inbound.destroy();
    outbound.destroy();
  };
  inbound.on('error', end).on('close', end);
  outbound.on('error', end).on('close', end);
  inbound.pipe(outbound);
  outbound.pipe(inbound);
});
server.listen(listen, () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));
