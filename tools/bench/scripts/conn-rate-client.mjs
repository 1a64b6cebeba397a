// The connection-rate suite's client, run inside a pod's namespace (`ip netns exec`): opens fresh
// TCP connections to IP:PORT for DURATION_MS, CONCURRENCY at a time, each one counted once the
// lab echo server's answer arrives and starts with EXPECT (the server's name: the connection
// went through the Service to the intended pod).
// CLOSE (default `rst`) is how each connection ends once the answer and the server's FIN arrived:
// - `rst`: the client resets it (`resetAndDestroy`, SO_LINGER 0). No side keeps a TIME_WAIT socket
//   and the node's conntrack entry goes to CLOSE (10 s) instead of TIME_WAIT (120 s), so one sample
//   leaves nothing that slows the next: what is measured is the path of a new connection.
// - `fin`: the orderly close (the client answers the server's FIN with its own). The server, which
//   closed first, keeps each connection's 4-tuple in TIME_WAIT for 60 s and the node's conntrack
//   for 120 s; at thousands of connections a second the client's next ports land on those tuples
//   and the rate falls from sample to sample (tools/bench/README.md, conn-rate).
// Prints one JSON line: {"connections","wrong","errors","ms","cpuMs","cgroup"}, cpuMs being this
// process's CPU time (user + system, which includes the kernel's work sending each connection's
// packets through the rules) over the same time: a figure a busy machine's scheduling barely moves;
// cgroup this process's cgroup v2 path (the ebpf backend balances only processes in its cgroup).
// Usage: node conn-rate-client.mjs IP PORT DURATION_MS CONCURRENCY EXPECT [rst|fin]
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

const [ip, portText, durationText, concurrencyText, expect, close = 'rst'] = process.argv.slice(2);
const port = Number(portText);
const durationMs = Number(durationText);
const concurrency = Number(concurrencyText);
if (!ip || !(port > 0) || !(durationMs > 0) || !(concurrency > 0) || !expect || !['rst', 'fin'].includes(close)) {
  process.stderr.write('usage: conn-rate-client.mjs IP PORT DURATION_MS CONCURRENCY EXPECT [rst|fin]\n');
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
    // The server's FIN: everything it sends has arrived. Reset before node sends its own FIN.
    if (close === 'rst') socket.on('end', () => socket.resetAndDestroy());
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

/** This process's cgroup v2 path ("0::/path" in /proc/self/cgroup), or "" where there is none. */
function cgroupV2() {
  try {
    const line = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('0::'));
    return line === undefined ? '' : line.slice(3);
  } catch {
    return '';
  }
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
  `${JSON.stringify({ connections, wrong, errors, ms, cpuMs, cgroup: cgroupV2(), ...(lastError ? { lastError } : {}) })}\n`,
);
