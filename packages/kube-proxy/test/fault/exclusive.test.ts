import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSyncChecked } from '@kpng/kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exclusive } from './exclusive.js';

describe('exclusive (the fault suite heavy-case lock)', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kpng-exclusive-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('a second holder waits until the first releases', async () => {
    const order: string[] = [];
    const first = await exclusive('heavy', dir);
    const second = exclusive('heavy', dir).then((held) => {
      order.push('second');
      return held;
    });
    await new Promise((r) => setTimeout(r, 600));
    order.push('first released');
    await first.release();
    await (await second).release();
    expect(order).toEqual(['first released', 'second']);
  });

  it('writes its pid into the lock and removes it on release', async () => {
    const held = await exclusive('heavy', dir);
    expect(await readFile(join(dir, 'kpng-fault-heavy.lock'), 'utf8')).toBe(String(process.pid));
    await held.release();
    await expect(readFile(join(dir, 'kpng-fault-heavy.lock'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it("takes over a lock whose owner is gone (a killed run's)", async () => {
    const gone = runSyncChecked([process.execPath, '-e', 'process.stdout.write(String(process.pid))']);
    await writeFile(join(dir, 'kpng-fault-heavy.lock'), gone.stdout);
    const held = await exclusive('heavy', dir);
    expect(await readFile(join(dir, 'kpng-fault-heavy.lock'), 'utf8')).toBe(String(process.pid));
    await held.release();
  });

  it('names are separate locks', async () => {
    const a = await exclusive('a', dir);
    const b = await exclusive('b', dir); // would wait for ever (the test's timeout) on one lock
    expect(await readFile(join(dir, 'kpng-fault-a.lock'), 'utf8')).toBe(String(process.pid));
    expect(await readFile(join(dir, 'kpng-fault-b.lock'), 'utf8')).toBe(String(process.pid));
    await Promise.all([a.release(), b.release()]);
  });
});
