/**
 * The test clients' `policy-creation-enforcement-latency` in precise mode against the enforcer
 * (issue 26: "reports the injected truth within +-20 ms"). The client runs as its program (its
 * TypeScript sources through the bench's hooks) inside a lab client pod, probing two target pods
 * with its own TCP dialer every 5 ms; its API server is a fake one in this process, reached through
 * a forwarder in the pod (a unix socket: no route out of the lab). The enforcer on the lab node
 * (`@kpng/netpol/testing`'s `ClientEgressEnforcer`, as the client's lab e2e sets it up) holds an
 * egress deny for the client pod; once the client has seen the allow policy, after a
 * random 300-500 ms, the allow policy is handed to the enforcer (one sync: element updates through
 * its long-lived `nft -i`), and once the client has seen its deletion, after another random delay,
 * it is taken away. The truth (the commit) lies between the sync's start and end: the window.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnChild, type SpawnedChild } from '@kpng/kit';
import { ECHO_PORT, FakeApiServer, kubeconfigFor, type KubeObject, type Lab, type SpawnedProcess } from '@kpng/lab';
import { ClientEgressEnforcer } from '@kpng/netpol/testing';
import { PRECISE_INTERVAL_MS, type PreciseSample } from './precise-figures.js';

const HOOKS = fileURLToPath(new URL('../../scripts/register-ts.mjs', import.meta.url));
const FORWARD = fileURLToPath(new URL('../../scripts/forward.mjs', import.meta.url));
/** The client program's TypeScript entry point (run through the bench's hooks, as the bench runs). */
function clientProgram(): string {
  const packageJson = createRequire(import.meta.url).resolve('@kpng/test-clients/package.json');
  return join(dirname(packageJson), 'src', 'bin', 'policy-creation-enforcement-latency.ts');
}
const TARGETS = ['target-a', 'target-b'] as const;
/** The API server as the client pod sees it (the forwarder's port on the pod's loopback). */
const API_PORT = 6443;
/** Bounds on waiting for the client's log: generous, a start on a loaded machine takes seconds. */
const START_MS = 120_000;
const STEP_MS = 60_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A policy as the API server holds it (the client only watches its name and timestamps). */
function apiPolicy(name: string): KubeObject {
  const created = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  return {
    kind: 'NetworkPolicy',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, creationTimestamp: created },
  };
}

/** The client's JSON log records with message `msg`, from its output so far. */
function records(client: SpawnedProcess, msg: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of client.output.split('\n')) {
    if (!line.startsWith('{')) continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // a line cut by the output's tail, or still being written
    }
    if (record['msg'] === msg) out.push(record);
  }
  return out;
}

/** Waits until the client has logged `count` records `msg` (polling its output: the bench only reads the log's own timestamps). */
async function waitForRecords(
  client: SpawnedProcess,
  msg: string,
  count: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Record<string, unknown>[]> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = records(client, msg);
    if (found.length >= count) return found;
    if (client.exited) throw new Error(`the client exited (${client.exitCode}) before "${msg}": ${client.output}`);
    if (performance.now() > deadline || signal.aborted)
      throw new Error(`no "${msg}" x${count} from the client within ${timeoutMs} ms: ${client.output}`);
    await sleep(20);
  }
}

/**
 * The forwarder (`scripts/forward.mjs`) on this side: a unix socket in a fresh folder whose
 * connections go to `port` on this process's loopback.
 */
async function unixToLoopback(port: number): Promise<{ readonly path: string; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'kpng-bench-api-'));
  const path = join(dir, 'api.sock');
  let output = '';
  let ready!: () => void;
  const listening = new Promise<void>((resolve) => (ready = resolve));
  const child: SpawnedChild = spawnChild([process.execPath, FORWARD, path, String(port)], {
    onStdout: (chunk) => {
      output += chunk.toString();
      if (output.includes('ready\n')) ready();
    },
  });
  const close = async (): Promise<void> => {
    child.kill('SIGTERM');
    await child.exited;
    await rm(dir, { recursive: true, force: true });
  };
  const exited = child.exited.then((exit) => {
    throw new Error(`the API forwarder exited (${exit.exitCode}): ${output}`);
  });
  try {
    await Promise.race([listening, exited]);
  } catch (e) {
    await close();
    throw e;
  }
  exited.catch(() => undefined);
  return { path, close };
}

/**
 * `rounds` runs of the client (each one creation and one revocation of an allow policy, two
 * targets: 4 samples). `lab` has the pods `client` and the `TARGETS`.
 */
export async function preciseModeSamples(
  lab: Lab,
  rounds: number,
  signal: AbortSignal,
  log: (message: string) => void,
): Promise<PreciseSample[]> {
  const program = clientProgram();
  await Promise.all(TARGETS.map((t) => lab.startEcho(t, [ECHO_PORT])));
  const samples: PreciseSample[] = [];
  /** What to stop and remove once done, last started first. */
  const started: (() => Promise<void>)[] = [];
  try {
    const enforcer = await ClientEgressEnforcer.start({
      netns: lab.node.namespace.name,
      clientIp: lab.pod('client').ipv4,
      targets: TARGETS.map((name) => ({ name, ip: lab.pod(name).ipv4 })),
      ports: [ECHO_PORT],
    });
    started.push(() => enforcer.close());
    const api = await FakeApiServer.start();
    started.push(() => api.close());
    const socket = await unixToLoopback(Number(new URL(api.url).port));
    started.push(() => socket.close());
    const kubeconfig = await kubeconfigFor({ url: `http://127.0.0.1:${API_PORT}` });
    started.push(() => kubeconfig.remove());
    const forward = lab.pod('client').namespace.spawn([process.execPath, FORWARD, String(API_PORT), socket.path]);
    started.push(() => forward.stop());
    await forward.waitForOutput('ready\n', START_MS);
    for (const t of TARGETS)
      api.create({
        kind: 'Pod',
        metadata: { name: t, namespace: 'test-policy', uid: `uid-${t}`, labels: { target: 'test-policy' } },
        status: { podIP: lab.pod(t).ipv4, podIPs: [{ ip: lab.pod(t).ipv4 }] },
      });
    for (let round = 0; round < rounds && !signal.aborted; round++) {
      const name = `allow-${round}`;
      const client = lab
        .pod('client')
        .namespace.spawn([
          process.execPath,
          '--import',
          HOOKS,
          program,
          '-HostNamespace=default',
          '-TargetLabelSelector=target=test-policy',
          '-TargetNamespace=test-policy',
          `-MaxTargets=${TARGETS.length}`,
          `-AllowPolicyName=${name}`,
          `-Kubeconfig=${kubeconfig.path}`,
          `-TargetPort=${ECHO_PORT}`,
          '-Mode=precise',
          `-ProbeInterval=${PRECISE_INTERVAL_MS}ms`,
          '-ProbeTimeout=300ms',
          '-MeasurePolicyDeletion',
          '-TargetTimeout=60s',
          '-MetricsPort=9160',
          '-MetricsBindAddress=127.0.0.1',
        ]);
      try {
        await waitForRecords(client, 'probing target pod', TARGETS.length, START_MS, signal);
        await sleep(200); // denied meanwhile: the first attempts are dropped
        const allow = apiPolicy(name);
        api.create(allow);
        const [created] = await waitForRecords(client, 'allow policy created', 1, STEP_MS, signal);
        await sleep(300 + Math.random() * 200);
        const lifted = await enforcer.enforce(false);
        const seen = Date.parse(created!['seenAt'] as string);
        for (const reached of await waitForRecords(
          client,
          'target pod reached after policy creation',
          TARGETS.length,
          STEP_MS,
          signal,
        ))
          samples.push({
            kind: 'creation',
            reportedAt: seen + (reached['latencySeconds'] as number) * 1000,
            window: lifted,
          });
        api.delete(allow);
        const [deleted] = await waitForRecords(client, 'allow policy deleted', 1, STEP_MS, signal);
        await sleep(300 + Math.random() * 200);
        const blocked = await enforcer.enforce(true);
        await waitForRecords(client, 'measurement complete', 1, STEP_MS, signal);
        const revokedSeen = Date.parse(deleted!['seenAt'] as string);
        for (const revoked of records(client, 'target pod unreachable after revocation'))
          samples.push({
            kind: 'revocation',
            reportedAt: revokedSeen + (revoked['latencySeconds'] as number) * 1000,
            window: blocked,
          });
        const last = samples.slice(-2 * TARGETS.length);
        log(
          `netpol precise mode: round ${round + 1}/${rounds}: reported - commit end ${last
            .map((s) => `${s.kind} ${(s.reportedAt - s.window.confirmedAt).toFixed(1)}`)
            .join(
              ', ',
            )} ms (windows ${(lifted.confirmedAt - lifted.sentAt).toFixed(1)}, ${(blocked.confirmedAt - blocked.sentAt).toFixed(1)} ms)`,
        );
      } finally {
        await client.stop();
      }
    }
  } finally {
    for (const stop of started.reverse()) await stop();
  }
  return samples;
}
