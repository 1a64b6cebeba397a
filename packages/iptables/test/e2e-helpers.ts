// Shared pieces of the iptables kernel e2e files: the configuration the scenarios assume, the two
// flavours every suite runs on; sync requests come from core's testing fixtures.
import { expect } from 'vitest';
import { processExecer, type Execer } from '@kpng/kit';
import type { IptablesConfigInput } from '../src/render/config.js';

/** ClusterCIDR covering both nodes' pods only. */
export const E2E_CONFIG: IptablesConfigInput = {
  localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] },
};

export const FLAVOURS = ['legacy', 'nft'] as const;

export { fullSyncRequest as fullSync, partialSyncRequest as partialSync } from '@kpng/core/testing';

/**
 * The real processes, each restore run with `--test` first: the kernel's parser must accept its
 * input as it is (asserted), which is then pushed to `tested`, and the restore runs for real.
 */
export function testingFirstExecer(tested: string[]): Execer {
  return {
    async run(argv, stdin, signal) {
      if (argv.some((a) => a.endsWith('-restore'))) {
        const check = await processExecer.run([...argv, '--test'], stdin, signal);
        expect(check.stderr, stdin).toBe('');
        expect(check.exitCode).toBe(0);
        tested.push(stdin);
      }
      return processExecer.run(argv, stdin, signal);
    },
  };
}
