import type { Stats } from 'node:fs';
import { chmod, link, lstat, mkdir, mkdtemp, rm, stat, unlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { ErrorCodes, KpngError, toError } from '../../util/errors.js';

/** Linux's sun_path holds 108 bytes including the terminating NUL. */
const MAX_SOCKET_PATH = 107;

export interface BoundSocket {
  /** Removes the socket file, unless another server has replaced it meanwhile. */
  release(): Promise<void>;
}

/**
 * Binds `bind(path)` on a unix socket at `path` that only its owner can connect to (mode 0600).
 * The socket is created in a private (0700) directory, restricted, then hard-linked into place
 * (link, unlike rename, never replaces what appeared at `path` meanwhile), so it is never
 * reachable with looser permissions. A missing parent directory is created 0755; an existing one
 * is left as it is. A stale socket of ours left by a crashed server is removed; anything else at
 * `path` (a live socket, another user's socket, a symlink, a file) is refused and left alone.
 */
export async function bindPrivateUnixSocket(path: string, bind: (path: string) => Promise<void>): Promise<BoundSocket> {
  const dir = dirname(path);
  await ensureDirectory(dir);
  await removeStaleSocket(path);
  const privateDir = await mkdtemp(join(dir, '.kpng-'));
  try {
    const tmp = join(privateDir, 's');
    if (Buffer.byteLength(tmp) > MAX_SOCKET_PATH) {
      // No room for the detour: bind in place. Connecting needs write permission, which the usual
      // umask (022) already denies to others until the chmod.
      await bind(path);
      await chmod(path, 0o600);
    } else {
      await bind(tmp);
      await chmod(tmp, 0o600);
      await link(tmp, path).catch((e: NodeJS.ErrnoException) => {
        throw e.code === 'EEXIST' ? notOurs(path, 'appeared while binding') : e;
      });
    }
  } finally {
    await rm(privateDir, { recursive: true, force: true });
  }
  const bound = await lstat(path);
  return {
    release: async () => {
      const now = await lstat(path).catch(() => undefined);
      if (now && sameFile(now, bound)) await unlink(path).catch(() => undefined);
    },
  };
}

async function ensureDirectory(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o755 });
    if (!(await stat(dir)).isDirectory()) throw new Error('not a directory');
  } catch (e) {
    throw new KpngError(
      ErrorCodes.InvalidConfig,
      `cannot use ${dir} as the socket's directory: ${toError(e).message}`,
      { cause: e },
    );
  }
}

async function removeStaleSocket(path: string): Promise<void> {
  const existing = await lstat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (!existing) return;
  if (!existing.isSocket()) throw notOurs(path, `exists and is ${kindOf(existing)}`);
  const uid = process.getuid?.();
  if (uid !== undefined && existing.uid !== uid) throw notOurs(path, `is a socket of uid ${existing.uid}`);
  const outcome = await probeSocket(path);
  const verdict = socketVerdict(outcome);
  if (verdict === 'live') throw new KpngError(ErrorCodes.Unavailable, `another server is listening on ${path}`);
  if (verdict === 'unknown') throw notOurs(path, `cannot be probed (${(outcome as { error: string }).error})`);
  await unlink(path);
}

function notOurs(path: string, why: string): KpngError {
  return new KpngError(ErrorCodes.InvalidConfig, `${path} ${why}; refusing to replace it`);
}

function kindOf(s: Stats): string {
  if (s.isSymbolicLink()) return 'a symbolic link';
  if (s.isDirectory()) return 'a directory';
  if (s.isFile()) return 'a regular file';
  return 'not a socket';
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.isSocket() && a.ino === b.ino && a.dev === b.dev;
}

/** How a connection attempt to an existing socket ended: connected, no answer in 1 s, or an error code. */
export type ProbeOutcome = 'connected' | 'timeout' | { readonly error: string };

/**
 * What a probe says about an existing socket: `live` when something accepts (or does not answer
 * in time), `stale` only on ECONNREFUSED (no listener: a crashed server's leftover), `unknown` on
 * any other error, which proves nothing (EACCES: a socket we may not use).
 */
export function socketVerdict(outcome: ProbeOutcome): 'live' | 'stale' | 'unknown' {
  if (outcome === 'connected' || outcome === 'timeout') return 'live';
  return outcome.error === 'ECONNREFUSED' ? 'stale' : 'unknown';
}

function probeSocket(path: string): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (outcome: ProbeOutcome) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => done('timeout'), 1000);
    socket.once('connect', () => done('connected'));
    socket.once('error', (e: NodeJS.ErrnoException) => done({ error: e.code ?? e.message }));
  });
}
