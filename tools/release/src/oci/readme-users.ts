import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEPLOY_DIR } from '../workspace.js';

/**
 * The user each image runs as, from deploy/README.md's images table (`| \`kpng/<name>\` | ... |
 * user |`, the last column: `root`, or `` `node` (uid 1000) ``): what users are told.
 */
export function documentedUsers(readme = join(DEPLOY_DIR, 'README.md')): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(readme, 'utf8').split('\n')) {
    const m = /^\|\s*`kpng\/([a-z0-9-]+)`\s*\|.*\|\s*`?([a-z]+)`?[^|]*\|\s*$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}
