// Lab held TCP connection, run inside a namespace: `node hold-client.mjs IP PORT TIMEOUT_MS`.
// Connects once and prints "connected" (or "error WHY" and exits 1). Then every line L read on
// stdin is sent on that SAME connection, and the first line the peer answers is printed as
// "reply ANSWER" (or "error WHY" if none within TIMEOUT_MS, or the connection broke). Closes the
// connection and exits when stdin ends. Plain JavaScript so it runs with `node` alone.
import net from 'node:net';
import { createInterface } from 'node:readline';
import { quietDeadline } from './deadline.mjs';

const [ip, port, timeoutText] = process.argv.slice(2);
const timeoutMs = Number(timeoutText ?? 2000);
const say = (line) => process.stdout.write(`${line}\n`);
const ERRORS = {
  ECONNREFUSED: 'refused',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  ECONNRESET: 'reset',
};

const socket = net.connect({ host: ip, port: Number(port) });
// Both deadlines wait for a quiet loop turn (deadline.mjs): a starved process reads what came first.
const connectDeadline = quietDeadline(timeoutMs, () => {
  say('error timeout');
  process.exit(1);
});
let broken;
let buffer = '';
const replies = [];
let waiter;
socket.setEncoding('utf8');
socket.on('data', (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\n')) >= 0) {
    replies.push(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
  }
  waiter?.();
});
socket.on('error', (error) => {
  broken = ERRORS[error.code] ?? error.code ?? error.message;
  waiter?.();
});
socket.on('close', () => {
  broken ??= 'closed';
  waiter?.();
});

const nextReply = () =>
  new Promise((resolve) => {
    const deadline = quietDeadline(timeoutMs, () => done('error timeout'));
    const done = (line) => {
      deadline.cancel();
      waiter = undefined;
      resolve(line);
    };
    waiter = () => {
      if (replies.length > 0) done(`reply ${replies.shift()}`);
      else if (broken !== undefined) done(`error ${broken}`);
    };
    waiter();
  });

socket.on('connect', async () => {
  connectDeadline.cancel();
  say('connected');
  for await (const line of createInterface({ input: process.stdin })) {
    if (broken === undefined) socket.write(`${line}\n`);
    say(await nextReply());
  }
  socket.end();
  process.exit(0);
});
socket.once('error', () => {
  if (socket.connecting || !socket.remoteAddress) {
    connectDeadline.cancel();
    say(`error ${broken}`);
    process.exit(1);
  }
});
