import { isAlive, killNamespaceProcesses } from './kill.js';
import { ownerPid } from './names.js';
import { run, runChecked } from './run.js';

/** Every namespace name `ip netns list` shows. */
export async function listNamespaces(): Promise<string[]> {
  const result = await runChecked(['ip', 'netns', 'list']);
  return result.stdout
    .split('\n')
    .map((line) => line.trim().split(' ')[0] ?? '')
    .filter((name) => name !== '');
}

/**
 * Deletes lab namespaces (`kpng-t-<pid>-…`) whose creating process is dead: what a crashed or
 * killed test run left behind. Namespaces of live processes (parallel test files) are kept.
 * Returns the names it deleted.
 */
export async function sweepLeftovers(): Promise<string[]> {
  const swept: string[] = [];
  for (const namespace of await listNamespaces()) {
    const pid = ownerPid(namespace);
    if (pid === undefined || pid === process.pid || isAlive(pid)) continue;
    await killNamespaceProcesses(namespace);
    const result = await run(['ip', 'netns', 'delete', namespace]);
    if (result.exitCode === 0) swept.push(namespace);
  }
  return swept;
}
