// `kube-proxy explain`: the configured mode's explain, reached through kube-proxy's own flags.
import { AnsweringExecer } from '@kpng/kit/testing';
import { describe, expect, it } from 'vitest';
import { explain } from './explain.js';
import type { MainIO } from './main.js';

function io(): MainIO & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    readFile: () => {
      throw new Error('no files here');
    },
    writeFile: () => undefined,
    cpuCores: 2,
  };
}

describe('kube-proxy explain', () => {
  it("reads nftables mode's table (upstream's name by default) in KPNG_NETNS, and says when it is absent", async () => {
    const execer = new AnsweringExecer({
      'ip netns exec lab nft -j list table': { exitCode: 1, stderr: 'Error: No such file or directory\n' },
    });
    const streams = io();
    const env = { KPNG_NETNS: 'lab' };
    expect(await explain(['default/web', '--proxy-mode', 'nftables'], env, streams, execer)).toBe(0);
    expect(execer.calls).toEqual([
      'ip netns exec lab nft -j list table ip kube-proxy',
      'ip netns exec lab nft -j list table ip6 kube-proxy',
    ]);
    expect(streams.out.join('')).toContain(
      '# default/web in nftables table ip kube-proxy (not readable: Error: No such',
    );
  });

  it('refuses a bad name, a bad flag and a mode this platform lacks, with 2, running nothing', async () => {
    const execer = new AnsweringExecer({});
    for (const argv of [[], ['--proxy-mode', 'nftables'], ['a/b c'], ['a/b', '--nope']]) {
      const streams = io();
      expect(await explain(argv, {}, streams, execer), argv.join(' ')).toBe(2);
      expect(streams.err.join('')).toMatch(/^Error: explain: /);
    }
    expect(execer.calls).toEqual([]);
  });

  it('kernelspace mode on Linux: says HNS does not exist here (2), reading nothing', async () => {
    const execer = new AnsweringExecer({});
    const streams = io();
    expect(await explain(['a/b', '--proxy-mode', 'kernelspace'], {}, streams, execer)).toBe(2);
    expect(streams.err.join('')).toBe(
      'Error: explain: kernelspace mode reads Windows HNS load balancers: HNS (the Host Compute Network service) does not exist on linux; run explain on the Windows node\n',
    );
    expect(streams.out).toEqual([]);
    expect(execer.calls).toEqual([]);
  });

  it("ipvs and ebpf modes look the Service up with the proxy's client connection first (no names in the kernel): 1 when they cannot", async () => {
    for (const mode of ['ipvs', 'ebpf']) {
      const execer = new AnsweringExecer({});
      const streams = io();
      const argv = ['default/web', '--proxy-mode', mode, '--kubeconfig', '/nonexistent/kubeconfig'];
      expect(await explain(argv, { KPNG_NETNS: 'lab' }, streams, execer), mode).toBe(1);
      expect(streams.err.join('')).toMatch(/^Error: explain: .*nonexistent\/kubeconfig/);
      expect(execer.calls).toEqual([]); // nothing read from the kernel before the Service is known
    }
  });
});
