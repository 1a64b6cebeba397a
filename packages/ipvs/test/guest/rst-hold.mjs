// Holds one TCP connection: sends `hello` at once and `still` on SIGUSR1, prints `reply <line>` for
// each answer; on SIGTERM it resets the connection (RST), so IPVS forgets it within seconds instead
// of keeping it in TIME_WAIT for two minutes.
import net from 'node:net';

const [ip = '', port = ''] = process.argv.slice(2);
const socket = net.connect({ host: ip, port: Number(port) });
socket.setEncoding('utf8');
let buffer = '';
socket.on('connect', () => socket.write('hello\n'));
socket.on('data', (chunk) => {
  buffer += chunk;
  for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
    console.log(`reply ${buffer.slice(0, i)}`);
    buffer = buffer.slice(i + 1);
  }
});
socket.on('error', (error) => {
  console.log(`error ${error.code ?? error.message}`);
  process.exit(1);
});
process.on('SIGUSR1', () => socket.write('still\n'));
process.on('SIGTERM', () => {
  socket.resetAndDestroy();
  setTimeout(() => process.exit(0), 100);
});
