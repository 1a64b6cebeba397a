// `node hold-server.mjs NAME PORT`: a TCP server (IPv4 and IPv6) that keeps connections open and
// answers every line with "NAME LINE". Prints "ready" once listening.
import net from 'node:net';

const [name, port] = process.argv.slice(2);
let pending = 2;
for (const [host, ipv6Only] of [['0.0.0.0', false], ['::', true]]) {
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString();
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        socket.write(`${name} ${buffer.slice(0, nl)}\n`);
        buffer = buffer.slice(nl + 1);
      }
    });
  });
  server.on('error', (error) => {
    console.error(error.message);
    process.exit(1);
  });
  server.listen({ host, port: Number(port), ipv6Only }, () => {
    if (--pending === 0) process.stdout.write('ready\n');
  });
}
process.on('SIGTERM', () => process.exit(0));
