import { spawnChild } from '@kpng/kit';
import { beforeAll, describe, expect, test } from 'vitest';
import { kernelE2e } from './e2e-mode.js';
import { isAlive } from './kill.js';
import { createNamespace } from './namespace.js';
import { run, runChecked } from './run.js';
import { listNamespaces, sweepLeftovers } from './sweep.js';

const e2e = await kernelE2e('netns namespaces');

describe.skipIf(!e2e.run)('NetworkNamespace (kernel)', () => {
  beforeAll(async () => {
    await sweepLeftovers();
  });

  test('is created with its prefix and loopback up, and deleted by dispose', async () => {
    let name = '';
    {
      await using namespace = await createNamespace('ns-basic');
      name = namespace.name;
      expect(name).toBe(`kpng-t-${process.pid}-ns-basic`);
      expect(await listNamespaces()).toContain(name);
      const { stdout } = await namespace.exec(['ip', '-o', 'link', 'show', 'lo']);
      expect(stdout).toMatch(/state UNKNOWN|LOWER_UP/);
    }
    expect(await listNamespaces()).not.toContain(name);
  });

  test('sets sysctls inside the namespace only', async () => {
    await using namespace = await createNamespace('ns-sysctl');
    await namespace.sysctl({ 'net.ipv4.ip_forward': 1 });
    const inside = await namespace.exec(['sysctl', '-n', 'net.ipv4.ip_forward']);
    expect(inside.stdout.trim()).toBe('1');
    // A sibling namespace is untouched: the setting did not leak out of the namespace.
    await using sibling = await createNamespace('ns-sysctl-2');
    expect((await sibling.exec(['sysctl', '-n', 'net.ipv4.ip_forward'])).stdout.trim()).toBe('0');
  });

  test('exec reports failures with stderr unless check is false', async () => {
    await using namespace = await createNamespace('ns-exec');
    await expect(namespace.exec(['ip', 'link', 'show', 'nope0'])).rejects.toThrow(/nope0/);
    const result = await namespace.exec(['ip', 'link', 'show', 'nope0'], { check: false });
    expect(result.exitCode).not.toBe(0);
    expect((await namespace.exec(['cat'], { input: 'hello' })).stdout).toBe('hello');
  });

  test('delete stops spawned processes and refuses further use', async () => {
    const namespace = await createNamespace('ns-spawn');
    const sleeper = namespace.spawn(['sleep', '60']);
    expect(sleeper.pid).toBeGreaterThan(0);
    await namespace.delete();
    expect(sleeper.exited).toBe(true);
    expect(isAlive(sleeper.pid as number)).toBe(false);
    expect(() => namespace.exec(['true'])).toThrow(/was deleted/);
    await namespace.delete(); // idempotent
  });

  test('sweepLeftovers deletes namespaces of dead processes only', async () => {
    const child = spawnChild(['true']);
    const deadPid = child.pid as number;
    await child.exited;
    const leftover = `kpng-t-${deadPid}-sweep-me`;
    await using mine = await createNamespace('sweep-keep');
    await runChecked(['ip', 'netns', 'add', leftover]);
    try {
      expect(isAlive(deadPid)).toBe(false);
      const swept = await sweepLeftovers();
      expect(swept).toContain(leftover);
      const remaining = await listNamespaces();
      expect(remaining).not.toContain(leftover);
      expect(remaining).toContain(mine.name);
    } finally {
      await run(['ip', 'netns', 'delete', leftover]);
    }
  });
});
