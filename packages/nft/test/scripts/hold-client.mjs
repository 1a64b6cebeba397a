// `node hold-client.mjs IP PORT GOFILE`: opens one TCP connection, sends "1" and prints
// "first REPLY"; then waits (at most 20 s) until GOFILE exists, sends "2" on the SAME connection
// and prints "second REPLY". Any failure prints "error WHY" and exits 1.
import { existsSync } from 'node:fs';
import net from 'node:net';

const [ip, port, goFile] = process.argv.slice(2);
const fail = (why) => {
  process.stdout.write(`error ${why}\n`);
  process.exit(1);
};
setTimeout(() => fail('overall timeout'), 30_000).unref();
const socket = net.connect({ host: ip, port: Number(port) });
socket.on('error', (error) => fail(error.code ?? error.message));
let buffer = '';
const lines = [];
let waiter;
socket.on('data', (chunk) => {
  buffer += chunk.toString();
  let nl;
  while ((nl = buffer.indexOf('\n')) >= 0) {
    lines.push(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    waiter?.();
  }
});
const nextLine = () => new Promise((resolve) => {
  if (lines.length > 0) return resolve(lines.shift());
  waiter = () => {
    waiter = undefined;
    resolve(lines.shift());
  };
});
socket.on('connect', async () => {
  socket.write('1\n');
  process.stdout.write(`first ${await nextLine()}\n`);
  for (let i = 0; i < 400 && !existsSync(goFile); i++) await new Promise((r) => setTimeout(r, 50));
  if (!existsSync(goFile)) fail('no go file');
  socket.write('2\n');
  const reply = await Promise.race([nextLine(), new Promise((r) => setTimeout(() => r(undefined), 5_000))]);
  if (reply === undefined) fail('no second reply');
  process.stdout.write(`second ${reply}\n`);
  socket.end();
  process.exit(0);
});
