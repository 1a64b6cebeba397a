// An HTTP target for upstream-mode tests (upstream's probe is curl: only an HTTP reply counts), run
// inside a lab pod's network namespace: `node http-target.mjs <name> <port>`. Answers every request
// `200 <name>` on IPv4 and IPv6, and prints "ready" once it listens. Ends on SIGTERM.
import { createServer } from 'node:http';

const [name, port] = process.argv.slice(2);
const server = createServer((req, res) =>
  res.writeHead(200, { 'Content-Type': 'text/plain', Connection: 'close' }).end(`${name}\n`),
);
server.listen({ port: Number(port), host: '::', ipv6Only: false }, () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
