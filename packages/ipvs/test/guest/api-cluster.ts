// The world of the API server cases in the VM: a lab (pod-a the client, echo servers on pod-b and
// pod-c), the lab's fake API server on the guest's loopback serving the node, `web` and its slice
// (pod-b), and kpng-ipvs reading it (`--kubeconfig`), started and past its first sync.
import { FakeApiServer, kubeconfigFor, Lab, type LabKubeconfig } from '@kpng/lab';
import { ECHO_PORT, endpointSlice, node, NODE_NAME, service } from '@kpng/lab/fault';
import { KpngIpvsChild } from './kpng-ipvs-child.js';

/** Under emulation on a loaded host, a start through the API server took 15-18 s alone (README). */
const START_BUDGET_MS = 240_000;

export interface ApiCluster {
  readonly lab: Lab;
  readonly server: FakeApiServer;
  /** The program running now (see `replaceProgram`). */
  readonly program: KpngIpvsChild;
  /** How long the program took from its start to its first sync. */
  readonly startToSyncedMs: number;
  /** Stops the program and starts a fresh one (same flags); resolves at its first sync with the ms it took. */
  replaceProgram(): Promise<number>;
  close(): Promise<void>;
}

/** Starts `program` and resolves at its first sync (read from its log: no probe process meanwhile). */
async function untilFirstSync(program: KpngIpvsChild): Promise<number> {
  const started = Date.now();
  program.start();
  await program.waitFor('the first sync', async () => program.syncOperations().length > 0, START_BUDGET_MS);
  return Date.now() - started;
}

export async function startApiCluster(): Promise<ApiCluster> {
  let lab: Lab | undefined;
  let server: FakeApiServer | undefined;
  let kubeconfig: LabKubeconfig | undefined;
  let program: KpngIpvsChild | undefined;
  const close = async (): Promise<void> => {
    await program?.stop();
    await lab?.delete();
    await server?.close();
    await kubeconfig?.remove();
  };
  try {
    lab = await Lab.create({ pods: ['pod-a', 'pod-b', 'pod-c'] });
    await lab.startEcho('pod-b', [ECHO_PORT]);
    await lab.startEcho('pod-c', [ECHO_PORT]);
    server = await FakeApiServer.start();
    server.create(node({ ipv4Only: true }));
    server.create(service());
    server.create(endpointSlice([lab.pod('pod-b')]));
    kubeconfig = await kubeconfigFor(server);
    const options = {
      netns: lab.node.namespace.name,
      source: { kubeconfig: kubeconfig.path },
      nodeName: NODE_NAME,
      syncPeriod: '3s',
    };
    program = new KpngIpvsChild(options);
    const startToSyncedMs = await untilFirstSync(program);
    return {
      lab,
      server,
      get program() {
        return program!;
      },
      startToSyncedMs,
      replaceProgram: async () => {
        await program?.stop();
        program = new KpngIpvsChild(options);
        return untilFirstSync(program);
      },
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
