import { lstat, mkdir, mkdtemp, chmod, rename, rm, stat, unlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { ErrorCodes, KpngError } from '../../util/errors.js';

/** Linux's sun_path holds 108 bytes including the terminating NUL. */
const MAX_SOCKET_PATH = 107;

export interface BoundSocket {
  /** Removes the socket file, unless another server has replaced it meanwhile. */
  release(): Promise<void>;
}

/**
 * Binds `bind(path)` on a unix socket at `path` that only its owner can connect to (mode 0600).
 * The socket is created in a private (0700) directory, restricted, then renamed into place, so it
 * is never reachable with looser permissions. The parent directory is created when missing; a
 * stale socket left by a crashed server is removed, a live one is an error.
 */
export async function bindPrivateUnixSocket(path: string, bind: (path: string) => Promise<void>): Promise<BoundSocket> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await removeStaleSocket(path);
  const privateDir = await mkdtemp(join(dir, '.kpng-'));
  try {
    const tmp = join(privateDir, 's');
    if (Buffer.byteLength(tmp) > MAX_SOCKET_PATH) {
      // No room for the detour: bind in place, the umask decides the mode until chmod.
      await bind(path);
      await chmod(path, 0o600);
    } else {
      await bind(tmp);
      await chmod(tmp, 0o600);
      await rename(tmp, path);
    }
  } finally {
    await rm(privateDir, { recursive: true, force: true });
  }
  const { ino } = await stat(path);
  return {
    release: async () => {
      const now = await stat(path).catch(() => undefined);
      if (now?.ino === ino) await unlink(path).catch(() => undefined);
    },
  };
}

async function removeStaleSocket(path: string): Promise<void> {
  const existing = await lstat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (!existing) return;
  if (!existing.isSocket()) {
    throw new KpngError(ErrorCodes.InvalidConfig, `${path} exists and is not a socket; refusing to replace it`);
  }
  if (await socketAnswers(path)) {
    throw new KpngError(ErrorCodes.Unavailable, `another server is listening on ${path}`);
  }
  await unlink(path);
}

/** True when something accepts connections on the socket (bounded: 1 s). */
function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (answers: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answers);
    };
    const timer = setTimeout(() => done(true), 1000);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
