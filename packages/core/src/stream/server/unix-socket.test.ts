import { link, mkdir, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NodeLocalState } from '../../nodeview/types.js';
import { RecordingLogger } from '../../sync/recording-logger.js';
import { ErrorCodes } from '../../util/errors.js';
import { StateHub } from '../hub.js';
import { serveLocalState } from './local-server.js';
import { harness } from '../testdata/harness.js';

const h = harness();
const logger = new RecordingLogger();
afterEach(() => h.cleanup());

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => server.once('error', reject).listen(path, resolve));
}
const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('unix socket binding', () => {
  it('replaces a stale socket left by a dead server', async () => {
    const dir = await h.dir();
    const path = join(dir, 'kpng.sock');
    // A socket inode nobody listens on: hard-link a live socket, then close the listener.
    const dead = createServer();
    await listen(dead, join(dir, 'dead.sock'));
    await link(join(dir, 'dead.sock'), path);
    await closeServer(dead);

    h.server(await serveLocalState({ logger, hub: new StateHub<NodeLocalState>(), address: `unix://${path}` }));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('refuses a socket another server is listening on, and leaves it alone', async () => {
    const path = join(await h.dir(), 'kpng.sock');
    const live = createServer();
    await listen(live, path);
    try {
      await expect(
        serveLocalState({ logger, hub: new StateHub<NodeLocalState>(), address: `unix://${path}` }),
      ).rejects.toMatchObject({
        code: ErrorCodes.Unavailable,
      });
      expect((await stat(path)).isSocket()).toBe(true);
    } finally {
      await closeServer(live);
    }
  });

  it('refuses to replace a file that is not a socket', async () => {
    const dir = await h.dir();
    await mkdir(join(dir, 'run'));
    const path = join(dir, 'run', 'kpng.sock');
    await writeFile(path, 'precious');
    await expect(
      serveLocalState({ logger, hub: new StateHub<NodeLocalState>(), address: `unix://${path}` }),
    ).rejects.toMatchObject({
      code: ErrorCodes.InvalidConfig,
    });
    expect((await stat(path)).isFile()).toBe(true);
  });
});
