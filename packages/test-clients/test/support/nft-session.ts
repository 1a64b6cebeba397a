import { eachLine, inNetns, spawnChild, type SpawnedChild } from '@kpng/kit';
import type { NetworkNamespace } from '@kpng/lab';
import { systemClock } from '../../src/util/clock.js';

/** When a ruleset change took effect: after `sentAt`, before `confirmedAt` (client clock, epoch ms). */
export interface Applied {
  readonly sentAt: number;
  readonly confirmedAt: number;
}

/**
 * A long-lived `nft -i` inside a test namespace, so the moment a rule changes is known to about a
 * millisecond: spawning `nft -f` per change leaves a window of 10-40 ms (process start-up and exit)
 * around the commit. Each `apply` writes the commands, then `list table`: the listing is printed
 * only after the commands were committed, so its closing brace bounds the commit from above.
 */
export class NftSession {
  #waiter: (() => void) | undefined;
  #exited = false;
  private readonly child: SpawnedChild;

  private constructor(
    argv: readonly string[],
    private readonly table: string,
  ) {
    this.child = spawnChild(argv, {
      input: true,
      onStdout: eachLine((line) => {
        if (line !== '}') return;
        const waiter = this.#waiter;
        this.#waiter = undefined;
        waiter?.();
      }),
      onStderr: (chunk) => process.stderr.write(chunk),
    });
    void this.child.exited.then(() => (this.#exited = true));
  }

  /** `table` (inet) must exist, or be created by the first `apply`. */
  static start(namespace: NetworkNamespace, table: string): NftSession {
    // `ip netns exec` into the test's own namespace only.
    return new NftSession(inNetns(namespace.name, ['nft', '-i']), table);
  }

  apply(commands: string, timeoutMs = 5_000): Promise<Applied> {
    if (this.#waiter) throw new Error('one apply at a time');
    return new Promise<Applied>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nft -i did not confirm within ${timeoutMs} ms`)), timeoutMs);
      const sentAt = systemClock.now();
      this.#waiter = () => {
        clearTimeout(timer);
        resolve({ sentAt, confirmedAt: systemClock.now() });
      };
      this.child.write(`${commands.trim()}\nlist table inet ${this.table}\n`);
    });
  }

  async close(): Promise<void> {
    if (this.#exited) return;
    this.child.endInput();
    const timer = setTimeout(() => this.child.kill('SIGTERM'), 2_000);
    await this.child.exited;
    clearTimeout(timer);
  }
}
