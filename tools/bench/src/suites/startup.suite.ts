import { execFileSync } from 'node:child_process';
import { compiledKubeProxy } from './namespaces.js';
import { defineSuite } from './suite.js';

/**
 * The compat `kube-proxy` before it does anything: `kube-proxy --version` and `--help`, compiled,
 * each a fresh process on this bench's `node`, against a bare `node -e 0` in alternating runs (the
 * reference: what any Node program costs to start on this machine now). `--sources=DIR` (a
 * folder holding another revision's `packages/`, e.g. `git archive REV packages | tar -x -C DIR`)
 * adds the same rows for that revision, `startup.sources.*`, for a before/after in one run.
 * Nothing here touches the kernel or the network: scenario-independent, listed under s1k.
 */
export default defineSuite({
  name: 'startup',
  description: 'kube-proxy --version / --help (compiled, a fresh process each) against bare node -e 0',
  scenarios: ['s1k'],
  async run(ctx) {
    const node = { name: 'node', fn: () => execFileSync(process.execPath, ['-e', '0']) };
    const revisions: Array<[string, string | undefined]> = [['startup', undefined]];
    const sources = ctx.options['sources'];
    if (typeof sources === 'string') revisions.push(['startup.sources', sources]);
    for (const [prefix, dir] of revisions) {
      const entry = await compiledKubeProxy(dir === undefined ? 'startup-bench' : 'startup-bench-sources', dir);
      for (const flag of ['version', 'help']) {
        if (ctx.signal.aborted) return;
        await ctx.measureAgainst(`${prefix}.${flag}`, () => execFileSync(process.execPath, [entry, `--${flag}`]), node);
      }
    }
  },
});
