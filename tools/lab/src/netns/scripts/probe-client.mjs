// Lab probe, run inside a namespace: `node probe-client.mjs '{"proto":"tcp","ip":"198.19.0.1",
// "port":80,"timeoutMs":1000,"count":1}'` (UDP may add "sourcePort"). Makes `count` sequential attempts and prints one JSON
// array of {ok, reply} / {ok: false, error} where error is refused | timeout | unreachable |
// reset | another errno code. Every attempt is bounded by timeoutMs (and, once a TCP handshake
// completed, its answer by REPLY_GRACE x timeoutMs).
import dgram from 'node:dgram';
import net from 'node:net';
import { quietDeadline } from './deadline.mjs';

const { proto, ip, port, timeoutMs, count, sourcePort } = JSON.parse(process.argv[2] ?? '{}');

const ERRORS = {
  ECONNREFUSED: 'refused',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  ECONNRESET: 'reset',
};
/** Once connected, the answer may take this many timeouts (probe.ts bounds the process to match). */
const REPLY_GRACE = 5;
const failure = (error) => ({ ok: false, error: ERRORS[error.code] ?? error.code ?? String(error.message) });

/**
 * One attempt, bounded by timeoutMs: `start(settle, cleanups, progress, connected)`. The verdict of a timeout
 * waits for a quiet loop turn (deadline.mjs), so a starved process still reads the reset or answer
 * that arrived while it waited. Once a TCP handshake completed the path is known to work: the
 * answer gets REPLY_GRACE more timeouts (a starved echo server is slow, not a drop).
 */
function attempt(start) {
  return new Promise((resolve) => {
    let settled = false;
    let deadline;
    const cleanups = [];
    const settle = (result) => {
      if (settled) return;
      settled = true;
      deadline.cancel();
      for (const cleanup of cleanups) cleanup();
      resolve(result);
    };
    const timedOut = () => settle({ ok: false, error: 'timeout' });
    deadline = quietDeadline(timeoutMs, timedOut);
    const connected = () => {
      deadline.cancel();
      deadline = quietDeadline(timeoutMs * REPLY_GRACE, timedOut);
    };
    start(settle, cleanups, () => deadline.progress(), connected);
  });
}

function tcpAttempt() {
  return attempt((settle, cleanups, progress, connected) => {
    let reply = '';
    const socket = net.connect({ host: ip, port });
    cleanups.push(() => socket.destroy());
    socket.setEncoding('utf8');
    socket.on('connect', connected);
    socket.on('data', (chunk) => {
      reply += chunk;
      progress();
    });
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
