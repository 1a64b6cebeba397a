// One fault case's world: its own lab (node, pod-a as the client, echo servers on the other pods),
// its own fake API server with the node, the `web` Service and its EndpointSlice (pod-b), and the
// program under test, started and answering through the ClusterIP.
import { FakeApiServer, kubeconfigFor, Lab, sweepLeftovers, type LabKubeconfig } from '@kpng/lab';
import { CLUSTER_IP, ECHO_PORT, endpointSlice, node, service, SERVICE_PORT } from '@kpng/lab/fault';
import { startProgram, type ProgramName, type ProgramOptions, type RunningProgram } from './programs.js';

export interface FaultCluster {
  readonly lab: Lab;
  readonly server: FakeApiServer;
  /** The program running now (see `replaceProgram`). */
  readonly program: RunningProgram;
  /** Stops the program and starts a fresh one of the same kind, same flags, same namespace. */
  replaceProgram(): Promise<RunningProgram>;
  /** Stops the program and removes everything (also after a failed start). */
  close(): Promise<void>;
}

export async function startFaultCluster(
  name: ProgramName,
  options: Omit<ProgramOptions, 'netns' | 'kubeconfig'> & { readonly echoPods?: readonly string[] },
): Promise<FaultCluster> {
  await sweepLeftovers();
  const echoPods = options.echoPods ?? ['pod-b'];
  let lab: Lab | undefined;
  let server: FakeApiServer | undefined;
  let kubeconfig: LabKubeconfig | undefined;
  let program: RunningProgram | undefined;
  const close = async (): Promise<void> => {
    await program?.stop();
    await lab?.delete();
    await server?.close();
    await kubeconfig?.remove();
  };
  try {
    lab = await Lab.create({ pods: ['pod-a', ...echoPods] });
    await Promise.all(echoPods.map((pod) => lab!.startEcho(pod, [ECHO_PORT])));
    server = await FakeApiServer.start();
    server.create(node());
    server.create(service());
    server.create(endpointSlice([lab.pod('pod-b')]));
    kubeconfig = await kubeconfigFor(server);
    const programOptions = { ...options, netns: lab.node.namespace.name, kubeconfig };
    program = await startProgram(name, programOptions);
    const replaceProgram = async (): Promise<RunningProgram> => {
      await program?.stop();
      program = undefined;
      return (program = await startProgram(name, programOptions));
    };
    for (let i = 0; i < 60; i++) {
      const r = await lab.probe(lab.pod('pod-a'), { proto: 'tcp', ip: CLUSTER_IP, port: SERVICE_PORT, timeoutMs: 500 });
      if (r.ok) {
        const current = (): RunningProgram => program!;
        return {
          lab,
          server,
          get program() {
            return current();
          },
          replaceProgram,
          close,
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`${name} never programmed the ClusterIP; logs:\n${program.logs()}`);
  } catch (e) {
    await close();
    throw e;
  }
}
