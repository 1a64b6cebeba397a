// `explain` for the nft backend against a recorded kernel answer: testdata/explain-small.{json,nft}
// are `nft -j list table ip kpng` and `nft list table ip kpng` of a namespace into which
// ../backend/testdata/small.golden.nft (golden.test.ts's rendered state) was loaded with `nft -f`. To
// regenerate: `ip netns add x; ip netns exec x nft -f small.golden.nft;` then the two commands.
import { readFileSync } from 'node:fs';
import { formatExplain, runExplain } from '@kpng/core/runtime';
import { AnsweringExecer } from '@kpng/kit/testing';
import { describe, expect, it } from 'vitest';
import { backend } from '../cli/backend-module.js';
import { explainNft } from './explain.js';
import { selectServiceObjects } from './select.js';

const JSON_DUMP = readFileSync(new URL('./testdata/explain-small.json', import.meta.url), 'utf8');
const TEXT_DUMP = readFileSync(new URL('./testdata/explain-small.nft', import.meta.url), 'utf8');
const web = { namespace: 'default', name: 'web' };

describe('selectServiceObjects', () => {
  const sections = selectServiceObjects(JSON_DUMP, TEXT_DUMP, web);
  const text = (title: RegExp): string[] =>
    sections.filter((s) => title.test(s.title)).flatMap((s) => s.lines.map((l) => l.text));

  it("prints the Service's dispatch elements by address and NodePort, and its ClusterIP", () => {
    expect(text(/^service entry points$/)).toEqual([
      '@service-ips { 198.19.0.10 . tcp . 80 : goto cluster-pick-tcp-2 # default/web:/TCP }',
      '@service-nodeports { tcp . 30080 : goto external-pick-tcp-np-2 # default/web:/TCP }',
      '@cluster-ips { 198.19.0.10 }',
    ]);
  });

  it('prints its endpoint slots, ClusterIP and NodePort lists, and no other Service', () => {
    expect(text(/^endpoints/)).toEqual([
      '@endpoints-tcp { 198.19.0.10 . 80 . 0 : 198.18.1.10 . 8080 }',
      '@endpoints-tcp { 0.0.0.0 . 30080 . 0 : 198.18.1.10 . 8080 }',
      '@endpoints-tcp { 198.19.0.10 . 80 . 1 : 198.18.2.10 . 8080 }',
      '@endpoints-tcp { 0.0.0.0 . 30080 . 1 : 198.18.2.10 . 8080 }',
    ]);
  });

  it('prints the shared chains its elements lead to, with their rules', () => {
    const titles = sections.map((s) => s.title.split(' ')[1]).filter((t) => t !== 'entry' && t !== '(service');
    expect(titles).toEqual(expect.arrayContaining(['cluster-pick-tcp-2', 'pick-tcp-2', 'external-pick-tcp-np-2']));
    expect(text(/^chain pick-tcp-2 /)).toEqual([
      'dnat ip to ip daddr . tcp dport . numgen random mod 2 map @endpoints-tcp',
    ]);
  });

  it('selects by the whole name: a prefix of a name, another namespace or an absent Service select nothing', () => {
    expect(selectServiceObjects(JSON_DUMP, TEXT_DUMP, { namespace: 'default', name: 'we' })).toEqual([]);
    expect(selectServiceObjects(JSON_DUMP, TEXT_DUMP, { namespace: 'other', name: 'web' })).toEqual([]);
    expect(selectServiceObjects(JSON_DUMP, TEXT_DUMP, { namespace: 'default', name: 'gone' })).toEqual([]);
  });

  it('a Service without endpoints shows its reject entry', () => {
    const empty = selectServiceObjects(JSON_DUMP, TEXT_DUMP, { namespace: 'default', name: 'empty' });
    expect(empty[0]?.lines.map((l) => l.text)).toContain(
      '@no-endpoint-services { 198.19.0.12 . tcp . 80 : goto reject-chain # default/empty:/TCP }',
    );
  });
});

describe('explainNft and `kpng explain --backend nft`', () => {
  const execer = (): AnsweringExecer =>
    new AnsweringExecer({
      'ip netns exec lab nft -j list table ip kpng': { stdout: JSON_DUMP },
      'ip netns exec lab nft list table ip kpng': { stdout: TEXT_DUMP },
      'ip netns exec lab nft -j list table ip6 kpng': { exitCode: 1, stderr: 'Error: No such file or directory\n' },
    });

  it('reads each family through the exec seam, in the namespace; an absent table is said so', async () => {
    const reports = await explainNft({ families: ['IPv4', 'IPv6'], tableName: 'kpng' }, web, {
      execer: execer(),
      netns: 'lab',
    });
    expect(reports.map((r) => r.source)).toEqual([
      'nftables table ip kpng',
      'nftables table ip6 kpng (not readable: Error: No such file or directory)',
    ]);
    expect(formatExplain(web, reports)).toContain('(nothing programmed for this Service)');
  });

  it('the CLI prints the grouped report and exits 0; a bad name is a usage error (2) that runs nothing', async () => {
    const out: string[] = [];
    const calls = execer();
    expect(
      await runExplain('kpng', backend, ['default/web', '--netns', 'lab', '--ip-families', 'IPv4'], {
        execer: calls,
        stdout: (t) => out.push(t),
      }),
    ).toBe(0);
    expect(out.join('')).toMatch(/^# default\/web in nftables table ip kpng\nservice entry points:\n {2}@service-ips/);
    const err: string[] = [];
    const none = execer();
    expect(await runExplain('kpng', backend, ['default/a;b'], { execer: none, stderr: (t) => err.push(t) })).toBe(2);
    expect(err.join('')).toContain('explain takes NAMESPACE/NAME');
    expect(none.calls).toEqual([]);
  });
});
