/**
 * A minimal `newc` cpio writer: the initramfs format the kernel unpacks. Written here because the
 * host has no `cpio` binary and the archive is a few files (busybox, modules, the init script).
 */
export interface CpioEntry {
  readonly path: string;
  /** File type and permission bits, e.g. `0o100755` for an executable, `0o040755` for a folder. */
  readonly mode: number;
  readonly data?: Uint8Array;
  /** Symlink target (mode `0o120777`). */
  readonly target?: string;
}

export const FILE = 0o100000;
export const DIRECTORY = 0o040000;
export const SYMLINK = 0o120000;

export function cpioArchive(entries: readonly CpioEntry[]): Buffer {
  const chunks: Buffer[] = [];
  let inode = 1;
  for (const entry of [...entries, { path: 'TRAILER!!!', mode: 0 }]) {
    const body = entry.target !== undefined ? Buffer.from(entry.target) : Buffer.from(entry.data ?? new Uint8Array());
    const name = Buffer.from(`${entry.path.replace(/^\/+/, '')}\0`);
    const fields = [inode++, entry.mode, 0, 0, 1, 0, body.length, 0, 0, 0, 0, name.length, 0];
    const header = Buffer.from(`070701${fields.map(hex8).join('')}`);
    chunks.push(header, name, pad(header.length + name.length), body, pad(body.length));
  }
  return Buffer.concat(chunks);
}

function hex8(value: number): string {
  return value.toString(16).padStart(8, '0');
}

/** newc aligns headers+names and file data to 4 bytes. */
function pad(length: number): Buffer {
  return Buffer.alloc((4 - (length % 4)) % 4);
}
