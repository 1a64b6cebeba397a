import type { KubeConfig } from '@kubernetes/client-node';
import { FlagError, FlagSet, HelpRequested, VersionRequested } from '../config/flags.js';
import { listRaw } from '@kpng/core/kube-api';
import { getText, MAX_BODY_BYTES, namespacedPath } from '../kube/http.js';
import { loadKubeConfig } from '../kube/kubeconfig.js';
import type { KubeObject } from '../kube/objects.js';
import { PACKAGE_VERSION } from '../util/version.js';
import { judgeRun, TEST_TYPES, type ClientPod, type TestType } from './verdict.js';

const PROGRAM = 'check-clusterloader2-run';

interface PodObject extends KubeObject {
  readonly spec?: { readonly containers?: readonly { readonly image?: string }[] };
  readonly status?: { readonly containerStatuses?: readonly { readonly image?: string; readonly imageID?: string }[] };
}

export function checkFlags(): FlagSet {
  return new FlagSet(PROGRAM)
    .define({
      name: 'Namespace',
      alias: 'namespace',
      kind: 'string',
      default: 'net-policy-test',
      usage: "clusterloader2's testClientNamespace.",
    })
    .define({
      name: 'Selector',
      alias: 'selector',
      kind: 'string',
      default: 'test=np-test-client',
      usage: 'Label selector of the client pods.',
    })
    .define({
      name: 'MetricsPort',
      alias: 'metrics-port',
      kind: 'int',
      default: 9160,
      usage: "The clients' metrics port (clusterloader2's metricsPort).",
    })
    .define({
      name: 'Require',
      alias: 'require',
      kind: 'string',
      default: '',
      usage: 'Comma-separated test types that must have client pods with samples: pod-creation, policy-creation.',
    })
    .define({
      name: 'ExpectImageID',
      alias: 'expect-image-id',
      kind: 'string',
      default: '',
      usage: 'A digest (sha256:...) every client must run, as published.',
    })
    .define({
      name: 'Kubeconfig',
      alias: 'kubeconfig',
      kind: 'string',
      default: '',
      usage: 'Path to a kubeconfig; empty uses $KUBECONFIG, then ~/.kube/config.',
    });
}

export interface CheckDeps {
  readonly stdout?: { write(text: string): unknown };
  readonly stderr?: { write(text: string): unknown };
  readonly kubeConfig?: KubeConfig;
}

/**
 * Run it while clusterloader2's measurement pods exist (clusterloader2 deletes them at `complete`):
 * lists them, reads each one's /metrics through the API server's pod proxy (needs `pods/proxy`
 * get), and prints one JSON line per pod and a verdict. Exit 0: every pod runs kpng's client and
 * every test type present measured something; 1: not so (or the cluster could not be read); 2: usage.
 */
export async function checkMain(argv: readonly string[], deps: CheckDeps = {}): Promise<number> {
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  let require: TestType[];
  let flags;
  try {
    flags = checkFlags().parse(argv);
    require = flags
      .string('Require')
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '')
      .map((t) => {
        if (!(t in TEST_TYPES))
          throw new FlagError(`-Require: unknown test type ${JSON.stringify(t)} (pod-creation, policy-creation)`);
        return t as TestType;
      });
  } catch (error) {
    if (error instanceof HelpRequested) {
      stdout.write(error.message);
      return 0;
    }
    if (error instanceof VersionRequested) {
      stdout.write(`${PROGRAM} ${PACKAGE_VERSION} (@kpng/test-clients)\n`);
      return 0;
    }
    if (error instanceof FlagError) {
      stderr.write(`${PROGRAM}: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const namespace = flags.string('Namespace');
  const port = flags.int('MetricsPort');
  const expectImageID = flags.string('ExpectImageID');
  const signal = AbortSignal.timeout(60_000);
  try {
    const kc = deps.kubeConfig ?? loadKubeConfig(flags.string('Kubeconfig'));
    const { items } = await listRaw<PodObject>(
      kc,
      { path: namespacedPath('core', namespace, 'pods'), labelSelector: flags.string('Selector') },
      signal,
    );
    const pods: ClientPod[] = await Promise.all(
      items.map(async (pod): Promise<ClientPod> => {
        const name = pod.metadata?.name ?? '';
        const status = pod.status?.containerStatuses?.[0];
        const base = {
          name,
          type: pod.metadata?.labels?.['type'],
          image: status?.image ?? pod.spec?.containers?.[0]?.image ?? '',
          imageID: status?.imageID ?? '',
        };
        try {
          const text = await getText(
            kc,
            `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}:${port}/proxy/metrics`,
            {},
            signal,
            { accept: 'text/plain', maxBytes: MAX_BODY_BYTES.metrics },
          );
          return { ...base, metrics: { text } };
        } catch (error) {
          return { ...base, metrics: { error: error instanceof Error ? error.message : String(error) } };
        }
      }),
    );
    const verdict = judgeRun(pods, { require, ...(expectImageID !== '' ? { expectImageID } : {}) });
    for (const pod of verdict.pods) stdout.write(`${JSON.stringify(pod)}\n`);
    stdout.write(`${JSON.stringify({ ok: verdict.ok, samples: verdict.samples, problems: verdict.problems })}\n`);
    return verdict.ok ? 0 : 1;
  } catch (error) {
    stderr.write(`${PROGRAM}: cannot read the cluster: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
