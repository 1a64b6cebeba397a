import { readFile } from 'node:fs/promises';

/**
 * CPU of this process (every thread) plus that of the child processes it reaped, in ms: the
 * children's from /proc/self/stat (cutime + cstime, in clock ticks of 10 ms). Load stretches wall
 * time but barely CPU time, so a ratio of CPU times holds still where the wall one moves 1.5x
 * either way.
 */
export async function cpuMs(): Promise<{ readonly own: number; readonly children: number }> {
  const stat = await readFile('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 16 and 17 of proc(5), counted after the ')' closing field 2.
  const children = Number(fields[13]) + Number(fields[14]);
  const own = process.cpuUsage();
  return { own: (own.user + own.system) / 1000, children: children * 10 };
}
