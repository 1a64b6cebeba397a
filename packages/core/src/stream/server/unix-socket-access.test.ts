import { chmod, lchown, link, lstat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { processExecerWith, runChecked, withTimeout } from '@kpng/kit';
import { e2eMode } from '@kpng/lab';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NodeLocalState } from '../../nodeview/types.js';
import { RecordingLogger } from '../../sync/recording-logger.js';
import { ErrorCodes } from '../../util/errors.js';
import { watchLocalState } from '../client/client.js';
import { StateHub } from '../hub.js';
import { everything, harness } from '../testdata/harness.js';
import { syntheticLocalState } from '../testing-fixtures.js';
import { serveLocalState } from './local-server.js';

/** The second user: nobody. */
const OTHER = { uid: 65534, gid: 65534 };
const root = process.getuid?.() === 0;
if (!root) {
  const why = 'switching to a second uid needs root';
  if (e2eMode() === 'required') throw new Error(`KPNG_E2E=required but the socket access suite cannot run: ${why}`);
  console.warn(`\n${'!'.repeat(78)}\n!! SKIPPING the socket access suite: ${why}\n${'!'.repeat(78)}\n`);
}

const h = harness();
const logger = new RecordingLogger();
afterEach(() => h.cleanup());

/**
 * Connects to the unix socket `path` from a child process, as `user` if given: `connected` or the
 * error. The child is perl (Debian's perl-base is essential), not node: the second uid must be able
 * to run it, and the node running the tests may live where it cannot (a pinned LTS in a 0700 home).
 */
async function connectAs(path: string, user?: { uid: number; gid: number }): Promise<string> {
  const script =
    'my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]); print $s ? "connected" : $!{EACCES} ? "EACCES" : "$!"';
  const perl = withTimeout(processExecerWith({ ...user }), 10_000);
  const { stdout } = await runChecked(perl, ['perl', '-MIO::Socket::UNIX', '-e', script, path]);
  return stdout.trim();
}

/** A served node-local socket in a directory every user may traverse, so only the socket's mode decides. */
async function servedSocket(hub = new StateHub<NodeLocalState>()): Promise<{ path: string; address: string }> {
  const dir = await h.dir();
  await chmod(dir, 0o755);
  const path = join(dir, 'kpng.sock');
  const server = h.server(await serveLocalState({ logger, hub, address: `unix://${path}` }));
  return { path, address: server.address };
}

describe.skipIf(!root)('the node-local socket and other users (needs root)', () => {
  it('serves its owner and refuses a second uid with EACCES', async () => {
    const hub = new StateHub<NodeLocalState>();
    const state = syntheticLocalState({ services: 2, endpointsPerService: 1 });
    hub.publish(state, everything);
    const { path, address } = await servedSocket(hub);

    expect((await lstat(path)).mode & 0o777).toBe(0o600);
    expect(await connectAs(path)).toBe('connected');
    expect(await connectAs(path, OTHER)).toBe('EACCES');

    const seen: NodeLocalState[] = [];
    h.watch((signal) => watchLocalState(address, (s) => void seen.push(s), { signal, logger }));
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
    expect(seen[0]).toEqual(state);
  });

  it('the refusal is the socket mode: the same socket opened to everyone lets the second uid in', async () => {
    // The control for the test above: without it, a refusal by the directory or the child would pass too.
    const { path } = await servedSocket();
    await chmod(path, 0o666);
    expect(await connectAs(path, OTHER)).toBe('connected');
  });

  it("leaves another user's stale socket alone", async () => {
    const dir = await h.dir();
    const path = join(dir, 'kpng.sock');
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(`${path}.live`, resolve));
    await link(`${path}.live`, path);
    await new Promise<void>((resolve) => dead.close(() => resolve()));
    await lchown(path, OTHER.uid, OTHER.gid);

    await expect(
      serveLocalState({ logger, hub: new StateHub<NodeLocalState>(), address: `unix://${path}` }),
    ).rejects.toMatchObject({
      code: ErrorCodes.InvalidConfig,
      message: expect.stringMatching(/is a socket of uid 65534/),
    });
    const after = await lstat(path);
    expect([after.isSocket(), after.uid]).toEqual([true, OTHER.uid]);
  });
});
