import { type FSWatcher, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fingerprintManifests } from './manifest-files.js';

export interface ChangeWatcherOptions {
  /** How often inputs are fingerprinted, for changes `fs.watch` misses (network filesystems, symlink swaps). */
  readonly pollIntervalMs: number;
  /** Quiet time after a notification before re-reading, so a burst of writes is read once. */
  readonly debounceMs: number;
  /** False to rely on polling alone (tests of the fallback). Default true. */
  readonly fsWatch?: boolean;
}

type Wake = 'notified' | 'timeout' | 'aborted';

/**
 * Tells when the manifests behind a path may have changed: `fs.watch` for promptness, a poll of
 * names, sizes, mtimes and inodes as the fallback. Spurious wake-ups are harmless (the reader skips
 * unchanged content); missed changes are not, hence both.
 */
export class ChangeWatcher {
  private notified = false;
  private wake: ((why: Wake) => void) | undefined;
  private watcher: FSWatcher | undefined;

  constructor(
    private readonly path: string,
    private readonly opts: ChangeWatcherOptions,
  ) {}

  /** Call before each read: forgets earlier notifications and fingerprints the inputs. */
  async snapshot(): Promise<string> {
    this.notified = false;
    this.ensureWatching();
    return fingerprintManifests(this.path);
  }

  /** Resolves once the inputs differ from the `since` snapshot (or may), or when `signal` aborts. */
  async waitForChange(since: string, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (this.notified) return this.settle(signal);
      const why = await this.sleep(this.opts.pollIntervalMs, signal);
      if (why !== 'timeout') continue;
      this.ensureWatching();
      if ((await fingerprintManifests(this.path)) !== since) return this.settle(signal);
    }
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  /** Waits until no notification arrived for `debounceMs`, at most ten times that. */
  private async settle(signal: AbortSignal): Promise<void> {
    for (let round = 0; round < 10; round++) {
      this.notified = false;
      const why = await this.sleep(this.opts.debounceMs, signal);
      if (why === 'aborted' || (why === 'timeout' && !this.notified)) return;
    }
  }

  private sleep(ms: number, signal: AbortSignal): Promise<Wake> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve('aborted');
      const done = (why: Wake) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.wake = undefined;
        resolve(why);
      };
      const onAbort = () => done('aborted');
      const timer = setTimeout(() => done('timeout'), ms);
      signal.addEventListener('abort', onAbort, { once: true });
      this.wake = done;
    });
  }

  private notify(): void {
    this.notified = true;
    this.wake?.('notified');
  }

  /**
   * Watches the directory itself, or a file's parent directory: editors and `kubectl` replace files
   * by rename, which a watch on the file would not survive. Retried on every poll while it fails.
   */
  private ensureWatching(): void {
    if (this.watcher || this.opts.fsWatch === false) return;
    let isDirectory: boolean;
    try {
      isDirectory = statSync(this.path).isDirectory();
    } catch {
      return; // missing for now: the poll notices when it appears
    }
    const target = isDirectory ? this.path : dirname(this.path);
    const name = basename(this.path);
    try {
      this.watcher = watch(target, { persistent: true }, (_event, filename) => {
        if (isDirectory || filename === null || filename === name) this.notify();
      });
      this.watcher.on('error', () => {
        this.close();
        this.notify();
      });
    } catch {
      this.watcher = undefined;
    }
  }
}
