import { readFileSync, writeFileSync } from 'node:fs';
import { runBytes } from '../netns/run.js';

/** The payload compressions Debian's kernels use: xz (6.1), zstd (6.12). */
const FORMATS = [
  // --single-stream: the bzImage continues after the compressed payload.
  { magic: Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]), argv: ['xz', '-dc', '--single-stream'] },
  // zstd decodes the payload's frame, then fails on the bytes after it: the output is complete.
  { magic: Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), argv: ['zstd', '-dcq'] },
] as const;
const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

/**
 * Extracts the uncompressed ELF kernel from a Debian bzImage, as the kernel's own
 * `scripts/extract-vmlinux` does: find a compressed stream, decompress it, check the ELF magic.
 */
export async function extractVmlinux(bzImage: string, out: string): Promise<void> {
  const image = readFileSync(bzImage);
  for (const { magic, argv } of FORMATS) {
    for (let offset = image.indexOf(magic); offset >= 0; offset = image.indexOf(magic, offset + 1)) {
      // The exit code says nothing here (see FORMATS): the output's ELF magic does.
      const { stdout } = await runBytes(argv, { input: image.subarray(offset), timeoutMs: 120_000 });
      if (stdout.subarray(0, ELF_MAGIC.length).equals(ELF_MAGIC)) {
        writeFileSync(out, stdout);
        return;
      }
    }
  }
  throw new Error(`no xz- or zstd-compressed ELF kernel found in ${bzImage}`);
}
