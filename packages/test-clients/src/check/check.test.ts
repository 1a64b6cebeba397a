import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { checkMain } from './main.js';
import { inspectMetrics, judgeRun, type ClientPod } from './verdict.js';

const KPNG = (samples: number, type = 'pod_creation_reachability_latency_seconds') =>
  `# TYPE kpng_test_client_info gauge\nkpng_test_client_info{program="x",version="0.1.0",mode="upstream"} 1\n${type}_bucket{le="+Inf"} ${samples}\n${type}_count ${samples}\n`;
const UPSTREAM =
  '# TYPE pod_creation_reachability_latency_seconds histogram\npod_creation_reachability_latency_seconds_count 7\ngo_goroutines 12\n';
const pod = (name: string, type: string, text: string, imageID = 'docker.io/kpng@sha256:aaa'): ClientPod => ({
  name,
  type,
  image: 'gcr.io/x/pod-creation-reachability-latency:v0.0.1',
  imageID,
  metrics: { text },
});

describe('judgeRun', () => {
  it('reads kpng identity, mode and sample counts (summed over label sets) from /metrics', () => {
    const text = KPNG(3) + 'pod_creation_reachability_latency_seconds_count{mode="precise",start="watch"} 2\n';
    expect(inspectMetrics(text)).toEqual({
      kpng: true,
      program: 'x',
      version: '0.1.0',
      mode: 'upstream',
      samples: { 'pod-creation': 5, 'policy-creation': 0 },
    });
    expect(inspectMetrics(UPSTREAM)).toMatchObject({ kpng: false, samples: { 'pod-creation': 7 } });
  });

  it.each([
    [
      'kpng clients with samples',
      [
        pod('a', 'pod-creation', KPNG(4)),
        pod('b', 'policy-creation', KPNG(2, 'policy_enforcement_latency_policy_creation_seconds')),
      ],
      {},
      true,
      [],
    ],
    [
      "upstream's image answered (same name, no kpng series)",
      [pod('a', 'pod-creation', UPSTREAM)],
      {},
      false,
      ['a: not a kpng client'],
    ],
    [
      'zero samples is a failure, not a pass',
      [pod('a', 'pod-creation', KPNG(0))],
      {},
      false,
      ['pod-creation: zero samples'],
    ],
    [
      'a required test type without pods',
      [pod('a', 'pod-creation', KPNG(1))],
      { require: ['policy-creation'] },
      false,
      ['no policy-creation client pod'],
    ],
    [
      'the wrong digest',
      [pod('a', 'pod-creation', KPNG(1), 'gcr.io/x@sha256:bbb')],
      { expectImageID: 'sha256:aaa' },
      false,
      ['a: runs image gcr.io/x@sha256:bbb, not sha256:aaa'],
    ],
    ['no pods at all', [], {}, false, ['no client pods found']],
  ] as const)('%s', (_name, pods, options, ok, problems) => {
    const verdict = judgeRun(pods, { require: [], ...options });
    expect(verdict.ok).toBe(ok);
    for (const p of problems) expect(verdict.problems.join('\n')).toContain(p);
    if (ok) expect(verdict.problems).toEqual([]);
  });
});

describe('check-clusterloader2-run against an API server (a stub on 127.0.0.1: pods list and pod proxy)', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function cluster(metrics: Record<string, string>): Promise<KubeConfig> {
    const requests: string[] = [];
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push(url.pathname);
      if (
        url.pathname === '/api/v1/namespaces/net-policy-test/pods' &&
        url.searchParams.get('labelSelector') === 'test=np-test-client'
      ) {
        const items = Object.keys(metrics).map((name) => ({
          metadata: { name, labels: { test: 'np-test-client', type: 'pod-creation' } },
          status: {
            containerStatuses: [
              {
                image:
                  'gcr.io/k8s-staging-perf-tests/network-policy-enforcement-latency/pod-creation-reachability-latency:v0.0.1',
                imageID: 'mirror/x@sha256:aaa',
              },
            ],
          },
        }));
        res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ kind: 'PodList', metadata: {}, items }));
        return;
      }
      const proxy = /^\/api\/v1\/namespaces\/net-policy-test\/pods\/([^/:]+):9160\/proxy\/metrics$/.exec(url.pathname);
      const text = proxy ? metrics[proxy[1]!] : undefined;
      if (text !== undefined) res.writeHead(200, { 'Content-Type': 'text/plain' }).end(text);
      else res.writeHead(404).end('{"kind":"Status","message":"not found"}');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        { name: 'c', server: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, skipTLSVerify: true },
      ],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    return kc;
  }

  const run = async (kc: KubeConfig, argv: string[] = []) => {
    let out = '';
    const code = await checkMain(argv, {
      kubeConfig: kc,
      stdout: { write: (t: string) => (out += t) },
      stderr: { write: (t: string) => (out += t) },
    });
    return {
      code,
      out,
      lines:
        code === 2
          ? []
          : out
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l) as Record<string, unknown>),
    };
  };

  it('passes when every client pod is kpng and samples arrived', async () => {
    const { code, lines } = await run(await cluster({ 'pc-1': KPNG(20) }), [
      '-Require=pod-creation',
      '-ExpectImageID=sha256:aaa',
    ]);
    expect(code).toBe(0);
    expect(lines.at(-1)).toEqual({ ok: true, samples: { 'pod-creation': 20 }, problems: [] });
    expect(lines[0]).toMatchObject({
      name: 'pc-1',
      type: 'pod-creation',
      imageID: 'mirror/x@sha256:aaa',
      facts: { kpng: true, mode: 'upstream' },
    });
  });

  it('fails a run whose clients measured nothing, and one that ran upstream images', async () => {
    expect((await run(await cluster({ 'pc-1': KPNG(0) }))).code).toBe(1);
    server?.close();
    const { code, lines } = await run(await cluster({ 'pc-1': UPSTREAM }));
    expect(code).toBe(1);
    expect(String((lines.at(-1)!['problems'] as string[])[0])).toContain('not a kpng client');
  });

  it('rejects an unknown test type with exit 2', async () => {
    const { code, out } = await run(await cluster({}), ['-Require=pod-deletion']);
    expect(code).toBe(2);
    expect(out).toContain('-Require: unknown test type "pod-deletion"');
  });
});
