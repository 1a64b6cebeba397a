// `node udp-client.mjs IP PORT SOURCE_PORT`: one datagram from a FIXED source port (so it stays
// in one conntrack flow across calls), prints the reply or "timeout" after 1.5 s.
import dgram from 'node:dgram';

const [ip, port, sourcePort] = process.argv.slice(2);
const socket = dgram.createSocket({ type: ip.includes(':') ? 'udp6' : 'udp4', reuseAddr: true });
const timer = setTimeout(() => {
  process.stdout.write('timeout\n');
  process.exit(0);
}, 1_500);
socket.on('message', (message) => {
  clearTimeout(timer);
  process.stdout.write(message.toString());
  process.exit(0);
});
socket.on('error', (error) => {
  process.stdout.write(`error ${error.code ?? error.message}\n`);
  process.exit(0);
});
socket.bind(Number(sourcePort), () => socket.send('hi', Number(port), ip));
