// Runs inside a lab pod's network namespace: `node netns-dial-helper.mjs <tcp-dialer.mjs>`.
// Reads JSON requests, one per line, on stdin: {id, host, port, timeoutMs, readReply, send?} or
// {id, abort: true}; answers {id, result} per line on stdout, using the package's own tcpDialer
// (transpiled by netns-dialer.ts). Prints "ready" first. Exits when stdin closes.
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const { tcpDialer } = await import(pathToFileURL(process.argv[2]).href);
const pending = new Map();

createInterface({ input: process.stdin })
  .on('line', (line) => {
    const request = JSON.parse(line);
    if (request.abort) {
      pending.get(request.id)?.abort();
      return;
    }
    const controller = new AbortController();
    pending.set(request.id, controller);
    tcpDialer
      .dial({
        host: request.host,
        port: request.port,
        timeoutMs: request.timeoutMs,
        readReply: request.readReply,
        ...(request.send !== undefined ? { send: request.send } : {}),
        signal: controller.signal,
      })
      .then((result) => {
        pending.delete(request.id);
        process.stdout.write(`${JSON.stringify({ id: request.id, result })}\n`);
      });
  })
  .on('close', () => process.exit(0));

process.stdout.write('ready\n');
