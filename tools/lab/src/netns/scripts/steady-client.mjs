// Lab steady prober, run inside a namespace: `node steady-client.mjs '{"ip":"198.19.0.10","port":80,
// "intervalMs":20,"durationMs":10000,"timeoutMs":1000}'`. Opens a NEW TCP connection every
// intervalMs (on schedule, not waiting for the previous one) for durationMs, each bounded by
// timeoutMs, then prints one JSON object: attempts, failures, and every failure's start time (epoch
// ms) and error (`timeout` without a handshake, `timeout after connect` with one and no reply), so a
// test can tell when traffic broke and when it came back. SIGTERM ends it early
// (no new connection from then on; those under way finish, then the same JSON object).
import net from 'node:net';
import { quietDeadline } from './deadline.mjs';

const { ip, port, intervalMs, durationMs, timeoutMs } = JSON.parse(process.argv[2] ?? '{}');
const ERRORS = {
  ECONNREFUSED: 'refused',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  ECONNRESET: 'reset',
};

function attempt() {
  const at = Date.now();
  return new Promise((resolve) => {
    let reply = '';
    let settled = false;
    const socket = net.connect({ host: ip, port });
    const settle = (error) => {
      if (settled) return;
      settled = true;
      deadline.cancel();
      socket.destroy();
      resolve(error === undefined ? { at, ok: true, server: reply.trim().split(' ')[0] } : { at, ok: false, error });
    };
    let connected = false;
    // A timeout says whether the handshake had completed (the server was slow to answer) or not (no
    // SYN-ACK: the data path); the verdict waits for a quiet loop turn (deadline.mjs).
    const deadline = quietDeadline(timeoutMs, () => settle(connected ? 'timeout after connect' : 'timeout'));
    socket.on('connect', () => {
      connected = true;
      deadline.progress();
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      reply += chunk;
      deadline.progress();
    });
    socket.on('end', () => (reply.trim() === '' ? settle('empty') : settle()));
    socket.on('error', (error) => settle(ERRORS[error.code] ?? error.code ?? String(error.message)));
  });
}

let stopped = false;
let wake = () => undefined;
process.on('SIGTERM', () => {
  stopped = true;
  wake();
});
const started = Date.now();
const pending = [];
for (let i = 0; !stopped && Date.now() - started < durationMs; i += 1) {
  pending.push(attempt());
  const next = started + (i + 1) * intervalMs;
  await new Promise((r) => {
    wake = r;
    setTimeout(r, Math.max(0, next - Date.now()));
  });
}
const results = await Promise.all(pending);
const failures = results.filter((r) => !r.ok).map(({ at, error }) => ({ at, error }));
const servers = [...new Set(results.filter((r) => r.ok).map((r) => r.server))].sort();
process.stdout.write(`${JSON.stringify({ started, attempts: results.length, failures, servers })}\n`);
