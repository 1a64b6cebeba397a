// Lab echo server, run inside a pod namespace: `node echo-server.mjs NAME PORT[,PORT...] [HOLD,...]`.
// Every TCP connection and UDP datagram, on IPv4 and IPv6, is answered with one line
// "NAME CLIENT_IP" (the source address as this pod sees it), then TCP connections are closed.
// TCP connections on the HOLD ports stay open; every line L is answered with "NAME L".
// Prints "ready" once every socket listens. Plain JavaScript so it runs with `node` alone.
import dgram from 'node:dgram';
import net from 'node:net';

const [name, portList, holdList] = process.argv.slice(2);
if (!name || portList === undefined) {
  console.error('usage: echo-server.mjs NAME PORT[,PORT...] [HOLD_PORT,...]');
  process.exit(2);
}
const numbers = (list) => (list ? list.split(',').filter(Boolean).map(Number) : []);
const ports = numbers(portList);
const holdPorts = numbers(holdList);
const plain = (address) => (address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address);
const answer = (address) => `${name} ${plain(address)}\n`;

let pending = 0;
const listening = () => {
  pending -= 1;
  if (pending === 0) process.stdout.write('ready\n');
};
const fail = (error) => {
  console.error(`echo-server ${name}: ${error.message}`);
  process.exit(1);
};

for (const port of ports) {
  for (const [host, udpType] of [
    ['0.0.0.0', 'udp4'],
    ['::', 'udp6'],
  ]) {
    pending += 2;
    const tcp = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.end(answer(socket.remoteAddress ?? '?'));
    });
    tcp.on('error', fail);
    tcp.listen({ host, port, ipv6Only: udpType === 'udp6' }, listening);

    const udp = dgram.createSocket({ type: udpType, ipv6Only: udpType === 'udp6' });
    udp.on('error', fail);
    udp.on('message', (_message, peer) => udp.send(answer(peer.address), peer.port, peer.address));
    udp.bind(port, host, listening);
  }
}

/** Answers every line of a held connection with "NAME LINE". */
function hold(socket) {
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
}

for (const port of holdPorts) {
  for (const host of ['0.0.0.0', '::']) {
    pending += 1;
    const tcp = net.createServer(hold);
    tcp.on('error', fail);
    tcp.listen({ host, port, ipv6Only: host === '::' }, listening);
  }
}

process.on('SIGTERM', () => process.exit(0));
