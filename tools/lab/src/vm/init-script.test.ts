import { describe, expect, it } from 'vitest';
import { jobScript } from './init-script.js';

const tmpfsOnTmp = 'mount -t tmpfs -o mode=1777 tmpfs /tmp';

describe('jobScript', () => {
  it.each([
    { cwd: '/work/main/tools/lab', freshTmp: true },
    { cwd: '/usr/share', freshTmp: true },
    { cwd: '/tmpdir/checkout', freshTmp: true },
    // A checkout cloned under /tmp: a fresh tmpfs there would hide it from the guest.
    { cwd: '/tmp/ci/main/tools/lab', freshTmp: false },
    { cwd: '/tmp', freshTmp: false },
    { cwd: '/work/../tmp/x', freshTmp: false },
  ])('cwd $cwd: a fresh /tmp in the guest is $freshTmp', ({ cwd, freshTmp }) => {
    const script = jobScript({ command: ['true'], cwd, env: {} });
    expect(script.includes(tmpfsOnTmp)).toBe(freshTmp);
    expect(script).toContain('mount -t tmpfs -o mode=0755 tmpfs /run;');
    expect(script).toContain(`cd '${cwd}' && 'true'`);
  });
});
