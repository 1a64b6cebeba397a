import { mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSyncChecked } from '@kpng/kit';
import { cpioArchive, DIRECTORY, FILE, SYMLINK } from './cpio.js';

describe('cpioArchive', () => {
  it('writes the newc header fields the kernel reads', () => {
    const archive = cpioArchive([{ path: '/init', mode: FILE | 0o755, data: Buffer.from('abc') }]);
    const header = archive.subarray(0, 110).toString();
    expect(header.slice(0, 6)).toBe('070701');
    expect(Number.parseInt(header.slice(14, 22), 16)).toBe(FILE | 0o755);
    expect(Number.parseInt(header.slice(54, 62), 16)).toBe(3);
    expect(archive.subarray(110, 115).toString()).toBe('init\0');
    expect(archive.length % 4).toBe(0);
    expect(archive.toString()).toContain('TRAILER!!!');
  });

  // busybox's cpio is the reference reader on this machine (busybox-static is a lab requirement).
  it.skipIf(!hasBusybox())('round-trips files, folders and symlinks through busybox cpio', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kpng-cpio-'));
    try {
      const archive = cpioArchive([
        { path: 'bin', mode: DIRECTORY | 0o755 },
        { path: 'bin/hello', mode: FILE | 0o755, data: Buffer.from('hello world\n') },
        { path: 'bin/sh', mode: SYMLINK | 0o777, target: 'hello' },
        { path: 'odd', mode: FILE | 0o644, data: Buffer.from('x') },
      ]);
      writeFileSync(join(dir, 'a.cpio'), archive);
      runSyncChecked(['busybox', 'cpio', '-i', '-d', '-F', 'a.cpio'], { cwd: dir });
      expect(readFileSync(join(dir, 'bin/hello'), 'utf8')).toBe('hello world\n');
      expect(statSync(join(dir, 'bin/hello')).mode & 0o777).toBe(0o755);
      expect(readlinkSync(join(dir, 'bin/sh'))).toBe('hello');
      expect(readFileSync(join(dir, 'odd'), 'utf8')).toBe('x');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function hasBusybox(): boolean {
  try {
    runSyncChecked(['busybox', 'true']);
    return true;
  } catch {
    return false;
  }
}
