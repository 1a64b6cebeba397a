import { link, lstat, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { NodeLocalState } from '../../nodeview/types.js';
import { RecordingLogger } from '../../sync/recording-logger.js';
import { ErrorCodes } from '../../util/errors.js';
import { StateHub } from '../hub.js';
import { serveLocalState } from './local-server.js';
import { socketVerdict, type ProbeOutcome } from './unix-socket.js';
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

  /** A socket inode nobody listens on, at `path`: hard-link a live socket, then close its listener. */
  async function deadSocket(path: string): Promise<void> {
    const dead = createServer();
    await listen(dead, `${path}.live`);
    await link(`${path}.live`, path);
    await closeServer(dead);
  }

  // Each case puts something that is not our stale socket at the path; serving must refuse it
  // clearly and leave it (and whatever a symlink points to) exactly as it was.
  const notOurs: [string, RegExp, (path: string, dir: string) => Promise<void>][] = [
    ['a regular file', /is a regular file/, (p) => writeFile(p, 'precious')],
    ['a directory', /is a directory/, (p) => mkdir(p)],
    [
      'a symlink to a regular file',
      /is a symbolic link/,
      async (p, d) => {
        await writeFile(join(d, 'target'), 'precious');
        await symlink(join(d, 'target'), p);
      },
    ],
    [
      'a symlink to a stale socket',
      /is a symbolic link/,
      async (p, d) => {
        await deadSocket(join(d, 'target.sock'));
        await symlink(join(d, 'target.sock'), p);
      },
    ],
    ['a dangling symlink', /is a symbolic link/, (p, d) => symlink(join(d, 'nowhere'), p)],
  ];
  it.each(notOurs)('refuses %s at the socket path and leaves it alone', async (_, message, make) => {
    const dir = await h.dir();
    const path = join(dir, 'kpng.sock');
    await make(path, dir);
    const before = await lstat(path);
    await expect(
      serveLocalState({ logger, hub: new StateHub<NodeLocalState>(), address: `unix://${path}` }),
    ).rejects.toMatchObject({ code: ErrorCodes.InvalidConfig, message: expect.stringMatching(message) });
    const after = await lstat(path);
    expect([after.ino, after.mode, after.uid]).toEqual([before.ino, before.mode, before.uid]);
    if (before.isSymbolicLink() && (await stat(path).catch(() => undefined))?.isFile()) {
      expect(await readFile(path, 'utf8')).toBe('precious');
    }
  });

  it('creates a missing parent directory (0755 under the umask) and leaves an existing one as it is', async () => {
    const dir = await h.dir();
    const path = join(dir, 'run', 'kpng', 'kpng.sock');
    h.server(await serveLocalState({ logger, hub: new StateHub<NodeLocalState>(), address: `unix://${path}` }));
    const umask = process.umask();
    expect((await stat(join(dir, 'run', 'kpng'))).mode & 0o777).toBe(0o755 & ~umask);
    expect((await stat(dir)).mode & 0o777).toBe(0o700); // mkdtemp's, untouched
  });

  it('refuses a parent that is not a directory', async () => {
    const dir = await h.dir();
    await writeFile(join(dir, 'run'), 'precious');
    await expect(
      serveLocalState({
        logger,
        hub: new StateHub<NodeLocalState>(),
        address: `unix://${join(dir, 'run', 'kpng.sock')}`,
      }),
    ).rejects.toMatchObject({
      code: ErrorCodes.InvalidConfig,
      message: expect.stringMatching(/cannot use .*run as the socket's directory/),
    });
    expect(await readFile(join(dir, 'run'), 'utf8')).toBe('precious');
  });
});

describe('socketVerdict', () => {
  it.each<[ProbeOutcome, string]>([
    ['connected', 'live'],
    ['timeout', 'live'],
    [{ error: 'ECONNREFUSED' }, 'stale'],
    [{ error: 'EACCES' }, 'unknown'],
    [{ error: 'EPERM' }, 'unknown'],
  ])('%j means %s', (outcome, verdict) => {
    expect(socketVerdict(outcome)).toBe(verdict);
  });
});
