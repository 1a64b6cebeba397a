// Fault suite, health under load: /healthz, /livez and /metrics are polled every 100 ms with a 1 s
// deadline (a kubelet probe's default timeout) from a worker thread while the program loads 10,000
// Services with 10 endpoints each (tools/bench's s10k, already in the API server when it starts),
// then while 100 EndpointSlices change per second (tools/bench's churn). No request may miss the
// deadline. The program runs as a child process, as on a node: the fake API server (which encodes
// the 10k LIST), the churn and the test's own heap (the generated s10k) stay out of its thread, so
// a miss is the program's own stall. Several programs run one after the other in one file, on one
// lab and one API server loaded once: two 10k loads at once on a 2-core machine would measure each
// other (the next starts once the last one's table is gone).
import { createChurn, generate } from '@kpng/bench';
import {
  FakeApiServer,
  kernelE2e,
  kubeconfigFor,
  Lab,
  sweepLeftovers,
  type KubeObject,
  type LabKubeconfig,
} from '@kpng/lab';
import { SILENT_LOGGER } from '@kpng/core/testing';
import { IptablesBackend } from '@kpng/iptables';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { CLUSTER_IP, ECHO_PORT, endpointSlice, node, service, SERVICE_PORT, printFigure } from '@kpng/lab/fault';
import { exclusive, type Exclusive } from './exclusive.js';
import { HealthPoll, type UrlAnswers } from './health-poll.js';
import { nftTableOf } from './program-args.js';
import { ChildProgram } from './child-program.js';
import type { ProgramName } from './program-args.js';

/** Generous: the first sync of 10k Services on a loaded 2-core machine took ~15 s here. */
const PROGRAMMED_DEADLINE_MS = 120_000;
/** Set-up, including the wait for another file's load (one at a time: fault/exclusive.ts) of up to ~150 s. */
const SETUP_TIMEOUT_MS = 480_000;
const CHURN_SECONDS = 10;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function statusUrls(program: ChildProgram): string[] {
  return [program.healthzUrl, program.healthzUrl.replace(/\/healthz$/, '/livez'), program.metricsUrl];
}

function figures(answers: readonly UrlAnswers[]): Record<string, string | number> {
  const entries = answers.flatMap((a) => {
    const path = new URL(a.url).pathname.slice(1);
    return [
      [`${path}Max`, a.maxMs],
      [`${path}P99`, a.p99Ms],
      [`${path}Missed`, `${a.failures.length}/${a.answered + a.failures.length}`],
      [`${path}Not200`, a.not200],
    ] as const;
  });
  return Object.fromEntries(entries);
}

/** What the health-under-load case measured; the test file states what must hold of it. */
export interface HealthLoadOutcome {
  readonly name: ProgramName;
  /** From the program's start until the `web` ClusterIP answered (-1: not within the deadline). */
  readonly programmedMs: number;
  /** Per status URL, while the 10,000 Services loaded, and under churn (empty if never programmed). */
  readonly loading: readonly UrlAnswers[];
  readonly churn: readonly UrlAnswers[];
  /** After the churn: the `web` ClusterIP still answered, and the program's /metrics then ('' if never programmed). */
  readonly servedAfterChurn: boolean;
  readonly metricsAfterChurn: string;
  /** The compat kube-proxy's log until its first sync (its backend's start-up lines); '' for kpng programs (not captured). */
  readonly startLogs: string;
  readonly logs: string;
}

/** Removes what `name` programmed (its nft table of each family, or its iptables chains), so the next program starts bare. */
async function removeRules(lab: Lab, name: ProgramName): Promise<void> {
  const table = nftTableOf(name);
  if (table === undefined) {
    // Both flavours: whichever the program wrote (a flavour with nothing of ours costs a save per family).
    for (const flavour of ['legacy', 'nft'] as const)
      await new IptablesBackend({
        netns: lab.node.namespace.name,
        flavour,
        conntrack: false,
        log: SILENT_LOGGER,
      }).cleanup();
    return;
  }
  for (const family of ['ip', 'ip6'])
    await lab.node.namespace.exec(['nft', 'delete', 'table', family, table]).catch(() => undefined);
}

export interface HealthLoadOptions {
  /** More flags per program (kpng programs), e.g. `--iptables-flavour legacy`. */
  readonly args?: Partial<Record<ProgramName, readonly string[]>>;
}

export async function describeHealthUnderLoad(
  names: readonly ProgramName[],
  verify: (outcome: HealthLoadOutcome) => void,
  options: HealthLoadOptions = {},
): Promise<void> {
  const e2e = await kernelE2e(`fault suite: ${names.join(', ')} health under load`);
  describe.skipIf(!e2e.run)('health and metrics answer within 1 s under load', () => {
    let lab: Lab | undefined;
    let server: FakeApiServer | undefined;
    let kubeconfig: LabKubeconfig | undefined;
    let program: ChildProgram | undefined;
    let s10k: ReturnType<typeof generate>;
    const preload = { generatedMs: 0, preloadMs: 0, waitedMs: 0 };
    let heavy: Exclusive | undefined;
    beforeAll(async () => {
      const waitStarted = Date.now();
      heavy = await exclusive('10k-load');
      preload.waitedMs = Date.now() - waitStarted;
      await sweepLeftovers();
      lab = await Lab.create({ pods: ['pod-a', 'pod-b'] });
      await lab.startEcho('pod-b', [ECHO_PORT]);
      server = await FakeApiServer.start();
      kubeconfig = await kubeconfigFor(server);
      const generateStarted = Date.now();
      s10k = generate('s10k');
      preload.generatedMs = Date.now() - generateStarted;
      server.create(node());
      server.create(service());
      server.create(endpointSlice([lab.pod('pod-b')]));
      const preloadStarted = Date.now();
      // s10k numbers its ClusterIPs from 198.19.0.0: the one web uses is left out (9,999 + web).
      const taken = s10k.services.find((svc) => svc.spec.clusterIP === CLUSTER_IP)?.metadata.name;
      const services = s10k.services.filter((svc) => svc.metadata.name !== taken);
      const slices = s10k.endpointSlices.filter((sl) => sl.metadata.labels?.['kubernetes.io/service-name'] !== taken);
      for (const obj of [...services, ...slices]) server.create(obj as unknown as KubeObject);
      preload.preloadMs = Date.now() - preloadStarted;
    }, SETUP_TIMEOUT_MS);
    afterAll(async () => {
      try {
        await program?.close();
        await lab?.delete();
        await server?.close();
        await kubeconfig?.remove();
      } finally {
        await heavy?.release();
      }
    });

    it.each(names)(
      '%s: 10,000 Services loading, then churn: no request misses the 1 s deadline',
      async (name) => {
        const started = Date.now();
        program = await ChildProgram.create({
          program: name,
          netns: lab!.node.namespace.name,
          kubeconfig: kubeconfig!,
          syncPeriod: '30s',
          ...(options.args?.[name] === undefined ? {} : { args: options.args[name] }),
        });
        program.start();
        try {
          await measure(name, program);
        } finally {
          await program.close();
          program = undefined;
          // The lab goes after the last program: only a next one needs a bare node.
          if (name !== names.at(-1)) await removeRules(lab!, name);
        }

        async function measure(name: ProgramName, program: ChildProgram): Promise<void> {
          const loading = new HealthPoll(statusUrls(program));
          let programmedMs = -1;
          while (Date.now() - started < PROGRAMMED_DEADLINE_MS) {
            const r = await lab!.probe(lab!.pod('pod-a'), {
              proto: 'tcp',
              ip: CLUSTER_IP,
              port: SERVICE_PORT,
              timeoutMs: 500,
            });
            if (r.ok) {
              programmedMs = Date.now() - started;
              break;
            }
            await sleep(250);
          }
          const loadAnswers = await loading.stop();
          const startLogs = program.logs().slice(0, 20_000);
          const logs = () => program.logs().slice(-20_000); // the churn's sync lines, to place a miss
          // Never programmed: churn would measure nothing more; the test file says what failed.
          if (programmedMs < 0)
            return verify({
              name,
              programmedMs,
              loading: loadAnswers,
              churn: [],
              servedAfterChurn: false,
              metricsAfterChurn: '',
              startLogs,
              logs: logs(),
            });
          printFigure(name, 'health while 10,000 Services load', { programmedMs, ...preload, ...figures(loadAnswers) });

          const churn = createChurn(s10k, { ratePerSecond: 100, durationSeconds: CHURN_SECONDS });
          const churning = new HealthPoll(statusUrls(program));
          const churnStarted = Date.now();
          for (let step = churn.next(); step !== undefined; step = churn.next()) {
            const due = churnStarted + step.offsetMs - Date.now();
            if (due > 0) await sleep(due);
            server!.apply(step.slice as unknown as KubeObject);
          }
          await sleep(2_000); // the last changes' sync
          const churnAnswers = await churning.stop();
          printFigure(name, `health under churn (100 slice changes/s for ${CHURN_SECONDS} s)`, {
            changes: churn.total,
            ...figures(churnAnswers),
          });
          const after = await lab!.probe(lab!.pod('pod-a'), {
            proto: 'tcp',
            ip: CLUSTER_IP,
            port: SERVICE_PORT,
            timeoutMs: 1_000,
          });
          const metricsAfterChurn = await (
            await fetch(program.metricsUrl, { signal: AbortSignal.timeout(5_000) })
          ).text();
          verify({
            name,
            programmedMs,
            loading: loadAnswers,
            churn: churnAnswers,
            servedAfterChurn: after.ok,
            metricsAfterChurn,
            startLogs,
            logs: logs(),
          });
        }
      },
      240_000,
    );
  });
}
