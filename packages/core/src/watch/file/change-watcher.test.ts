import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChangeWatcher } from './change-watcher.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kpng-change-watcher-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** True when the watcher woke up for a change, false when the bounded wait ran out. */
async function wokeUp(watcher: ChangeWatcher, since: string, timeoutMs = 10_000): Promise<boolean> {
  const signal = AbortSignal.timeout(timeoutMs);
  await watcher.waitForChange(since, signal);
  return !signal.aborted;
}

describe.each([
  ['fs.watch', true],
  ['polling alone', false],
])('ChangeWatcher with %s', (_name, fsWatch) => {
  it('wakes up when the file changes', async () => {
    const path = join(dir, 'a.yaml');
    await writeFile(path, 'one');
    const watcher = new ChangeWatcher(path, { pollIntervalMs: 20, debounceMs: 5, fsWatch });
    const since = await watcher.snapshot();
    const woke = wokeUp(watcher, since);
    await writeFile(path, 'two, longer');
    expect(await woke).toBe(true);
    watcher.close();
  });

  it('notices a file in a directory that appears', async () => {
    const watcher = new ChangeWatcher(dir, { pollIntervalMs: 20, debounceMs: 5, fsWatch });
    const since = await watcher.snapshot();
    const woke = wokeUp(watcher, since);
    await writeFile(join(dir, 'b.yaml'), 'x');
    expect(await woke).toBe(true);
    watcher.close();
  });

  it('keeps waiting while nothing changes, until aborted', async () => {
    const path = join(dir, 'a.yaml');
    await writeFile(path, 'one');
    const watcher = new ChangeWatcher(path, { pollIntervalMs: 10, debounceMs: 5, fsWatch });
    const since = await watcher.snapshot();
    const controller = new AbortController();
    let settled = false;
    const waiting = watcher.waitForChange(since, controller.signal).then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 100)); // ten polls
    expect(settled).toBe(false);
    controller.abort();
    await waiting;
    watcher.close();
    expect(settled).toBe(true);
  });
});
