/**
 * Upstream watches its --config file and exits with "content of the proxy server's configuration
 * file was updated" when it is written or replaced, so that the DaemonSet restarts it with the new
 * file (kube-proxy never reloads in place). A chmod or a touch without a write does not count,
 * as fsnotify's Chmod events do not.
 */
import { statSync, watch, type FSWatcher } from 'node:fs';

export const CONFIG_CHANGED_MESSAGE = "content of the proxy server's configuration file was updated";

export class ConfigChangedError extends Error {
  override readonly name = 'ConfigChangedError';
  constructor() {
    super(CONFIG_CHANGED_MESSAGE);
  }
}

export interface ConfigWatch {
  close(): void;
}

/** Calls `onChange` once, the first time the file is written, renamed, replaced or removed. */
export function watchConfigFile(path: string, onChange: () => void): ConfigWatch {
  const identity = (): string | undefined => {
    try {
      const s = statSync(path);
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      return undefined; // gone
    }
  };
  const initial = identity();
  let watcher: FSWatcher | undefined;
  let fired = false;
  const fire = () => {
    if (fired) return;
    fired = true;
    watcher?.close();
    onChange();
  };
  watcher = watch(path, { persistent: false }, (event) => {
    if (event === 'rename' || identity() !== initial) fire();
  });
  watcher.on('error', fire);
  return { close: () => watcher?.close() };
}
