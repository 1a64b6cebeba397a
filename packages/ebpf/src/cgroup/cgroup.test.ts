import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cgroupV2Mounts, resolveCgroup } from './cgroup.js';

describe('cgroupV2Mounts', () => {
  it('finds the v2 mount of a v1/v2 hybrid and of a pure v2 host, unescaping octal blanks', () => {
    const hybrid = [
      'tmpfs /sys/fs/cgroup tmpfs rw 0 0',
      'cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0',
      'cgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0',
    ].join('\n');
    expect(cgroupV2Mounts(hybrid)).toEqual(['/sys/fs/cgroup/unified']);
    expect(cgroupV2Mounts('cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n')).toEqual(['/sys/fs/cgroup']);
    expect(cgroupV2Mounts('none /mnt/my\\040cg cgroup2 rw 0 0')).toEqual(['/mnt/my cg']);
    expect(cgroupV2Mounts('cgroup /sys/fs/cgroup/memory cgroup rw 0 0')).toEqual([]);
  });
});

describe('resolveCgroup', () => {
  const root = mkdtempSync(join(tmpdir(), 'kpng-cg-'));
  mkdirSync(join(root, 'child'));
  writeFileSync(join(root, 'child', 'cgroup.procs'), '');
  mkdirSync(join(root, 'plain'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('accepts a directory inside a cgroup v2 mount that has cgroup.procs', () => {
    expect(resolveCgroup(join(root, 'child'), [root])).toBe(join(root, 'child'));
  });

  it('refuses what is not a cgroup v2 directory, with a clear reason', () => {
    expect(() => resolveCgroup(join(root, 'child'), [])).toThrow(/no cgroup v2 hierarchy/);
    expect(() => resolveCgroup(join(root, 'missing'), [root])).toThrow(/does not exist/);
    expect(() => resolveCgroup(join(root, 'plain'), [root])).toThrow(/not a cgroup v2 directory/);
    expect(() => resolveCgroup(join(root, 'child', 'cgroup.procs'), [root])).toThrow(/not a directory/);
    expect(() => resolveCgroup('/tmp', [join(root, 'child')])).toThrow(/not a cgroup v2 directory/);
  });
});
