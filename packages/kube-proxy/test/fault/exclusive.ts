// One heavy case at a time across the fault suite's files. vitest runs two files at once (they
// mostly wait), but two 10k-Service loads at once on CI's 2 cores would measure each other: each
// health-under-load file takes this lock for its whole load, so the second waits for the first.
// The lock is a file holding its owner's pid; a lock whose owner is gone (a killed run) is taken over.
import { open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface Exclusive {
  release(): Promise<void>;
}

/** Waits until no other live process holds `name`, then holds it until `release()`. */
export async function exclusive(name: string, dir = tmpdir()): Promise<Exclusive> {
  const path = join(dir, `kpng-fault-${name}.lock`);
  for (;;) {
    try {
      const file = await open(path, 'wx');
      await file.writeFile(String(process.pid));
      await file.close();
      return { release: () => rm(path, { force: true }) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const owner = Number(await readFile(path, 'utf8').catch(() => ''));
    // An empty file is an owner between open and write: wait. A dead owner's lock is stale.
    if (Number.isInteger(owner) && owner > 0 && !alive(owner)) await rm(path, { force: true });
    else await sleep(250);
  }
}
