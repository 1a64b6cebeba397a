// The connection-rate suite's client, run inside a pod's namespace (`ip netns exec`): opens fresh
// TCP connections to IP:PORT for DURATION_MS, CONCURRENCY at a time, each one counted once the
// lab echo server's answer arrives and starts with EXPECT (the server's name: the connection
// went through the Service to the intended pod). The server closes first, so TIME_WAIT stays on
// its side. Prints one JSON line: {"connections","wrong","errors","ms","cpuMs"}, cpuMs being this
// process's CPU time (user + system, which includes the kernel's work sending each connection's
// packets through the rules) over the same time: a figure a busy machine's scheduling barely moves.
// Usage: node conn-rate-client.mjs IP PORT DURATION_MS CONCURRENCY EXPECT
import { connect } from 'node:net';

const [ip, portText, durationText, concurrencyText, expect] = process.argv.slice(2);
const port = Number(portText);
const durationMs = Number(durationText);
const concurrency = Number(concurrencyText);
if (!ip || !(port > 0) || !(durationMs > 0) || !(concurrency > 0) || !expect) {
  process.stderr.write('usage: conn-rate-client.mjs IP PORT DURATION_MS CONCURRENCY EXPECT\n');
  process.exit(2);
}

let connections = 0;
let wrong = 0;
let errors = 0;
let lastError = '';

/** One connection: resolves when it has been answered (or failed) and closed. */
function once() {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect({ host: ip, port });
    socket.setTimeout(2_000, () => socket.destroy(new Error('timeout')));
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', (e) => {
      errors++;
      lastError = e.message;
      resolve();
    });
    socket.on('close', (hadError) => {
      if (hadError) return;
      if (answer.startsWith(`${expect} `)) connections++;
      else wrong++;
      resolve();
    });
  });
}

const cpuBefore = process.cpuUsage();
const start = performance.now();
const end = start + durationMs;
async function worker() {
  while (performance.now() < end) await once();
}
await Promise.all(Array.from({ length: concurrency }, worker));
const ms = performance.now() - start;
const cpu = process.cpuUsage(cpuBefore);
const cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(
  `${JSON.stringify({ connections, wrong, errors, ms, cpuMs, ...(lastError ? { lastError } : {}) })}\n`,
);
