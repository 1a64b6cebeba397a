import { run } from './run.js';

/** Pids of the processes living in a namespace (read from /proc by `ip netns pids`). */
export async function namespacePids(namespace: string): Promise<number[]> {
  const result = await run(['ip', 'netns', 'pids', namespace]);
  if (result.exitCode !== 0) return [];
  return result.stdout
    .split('\n')
    .filter((line) => /^\d+$/.test(line.trim()))
    .map(Number);
}

/**
 * Kills what still runs inside one of the lab's namespaces: a process there keeps the network
 * namespace alive after `ip netns delete`. Only processes inside the lab's own namespace, by pid.
 */
export async function killNamespaceProcesses(namespace: string): Promise<void> {
  for (const pid of await namespacePids(namespace)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
