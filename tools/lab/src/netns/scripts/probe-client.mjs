// Lab probe, run inside a namespace: `node probe-client.mjs '{"proto":"tcp","ip":"198.19.0.1",
// "port":80,"timeoutMs":1000,"count":1}'` (UDP may add "sourcePort"). Makes `count` sequential attempts and prints one JSON
// array of {ok, reply} / {ok: false, error} where error is refused | timeout | unreachable |
// reset | another errno code. Every attempt is bounded by timeoutMs.
import dgram from 'node:dgram';
import net from 'node:net';

const { proto, ip, port, timeoutMs, count, sourcePort } = JSON.parse(process.argv[2] ?? '{}');

const ERRORS = {
  ECONNREFUSED: 'refused',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  ECONNRESET: 'reset',
};
const failure = (error) => ({ ok: false, error: ERRORS[error.code] ?? error.code ?? String(error.message) });

function attempt(start) {
  return new Promise((resolve) => {
    let settled = false;
    const timer = setTimeout(() => settle({ ok: false, error: 'timeout' }), timeoutMs);
    const cleanups = [];
    const settle = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const cleanup of cleanups) cleanup();
      resolve(result);
    };
    start(settle, cleanups);
  });
}

function tcpAttempt() {
  return attempt((settle, cleanups) => {
    let reply = '';
    const socket = net.connect({ host: ip, port });
    cleanups.push(() => socket.destroy());
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (reply += chunk));
    socket.on('end', () => settle({ ok: true, reply: reply.trim() }));
    socket.on('error', (error) => settle(failure(error)));
  });
}

function udpAttempt() {
  return attempt((settle, cleanups) => {
    const socket = dgram.createSocket({ type: net.isIPv6(ip) ? 'udp6' : 'udp4', reuseAddr: true });
    cleanups.push(() => socket.close());
    socket.on('message', (message) => settle({ ok: true, reply: message.toString('utf8').trim() }));
    // A connected UDP socket reports ICMP port-unreachable as ECONNREFUSED.
    socket.on('error', (error) => settle(failure(error)));
    const send = () => socket.connect(port, ip, () => socket.send('probe'));
    // A fixed source port keeps every attempt in one conntrack flow.
    if (sourcePort === undefined) send();
    else socket.bind(sourcePort, send);
  });
}

const results = [];
for (let i = 0; i < count; i += 1) results.push(await (proto === 'udp' ? udpAttempt() : tcpAttempt()));
process.stdout.write(`${JSON.stringify(results)}\n`);
