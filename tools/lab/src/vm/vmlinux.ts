import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { execa } from 'execa';

const XZ_MAGIC = Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]);
const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/**
 * Extracts the uncompressed ELF kernel from a Debian bzImage (xz-compressed payload), as the
 * kernel's own `scripts/extract-vmlinux` does: find the xz stream, decompress it, check the ELF magic.
 */
export async function extractVmlinux(bzImage: string, out: string): Promise<void> {
  const image = readFileSync(bzImage);
  let offset = image.indexOf(XZ_MAGIC);
  while (offset >= 0) {
    // --single-stream: the bzImage continues after the compressed payload.
    const result = await execa('xz', ['-dc', '--single-stream'], {
      input: image.subarray(offset),
      stdout: { file: out },
      reject: false,
      timeout: 120_000,
    });
    if (result.exitCode === 0 && startsWithElf(out)) return;
    offset = image.indexOf(XZ_MAGIC, offset + 1);
  }
  throw new Error(`no xz-compressed ELF kernel found in ${bzImage}`);
}

function startsWithElf(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.equals(ELF_MAGIC);
  } finally {
    closeSync(fd);
  }
}
