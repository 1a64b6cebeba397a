// A fault case's world with a program as a child process: a lab (pod-a the client,
// pod-b an echo server that also holds connections), the lab's API server with the `web` Service
// (an echo port and a hold port) and its slice, and the child, started and answering.
import { FakeApiServer, kubeconfigFor, Lab, sweepLeftovers, type LabKubeconfig } from '@kpng/lab';
import { CLUSTER_IP, ECHO_PORT, endpointSlice, node, service, SERVICE_PORT } from '@kpng/lab/fault';
import { ChildProgram, type ChildOptions } from './child-program.js';

/** The Service port whose connections stay open (pod-b's hold port behind it). */
export const HOLD_SERVICE_PORT = 81;
const HOLD_PORT = 9090;

export interface ChildCluster {
  readonly lab: Lab;
  readonly server: FakeApiServer;
  readonly program: ChildProgram;
  close(): Promise<void>;
}

function holdingService() {
  const s = service();
  return {
    ...s,
    spec: {
      ...s.spec,
      ports: [...s.spec.ports, { name: 'hold', protocol: 'TCP', port: HOLD_SERVICE_PORT, targetPort: HOLD_PORT }],
    },
  };
}

function holdingSlice(lab: Lab) {
  const s = endpointSlice([lab.pod('pod-b')]);
  return { ...s, ports: [...s.ports, { name: 'hold', protocol: 'TCP', port: HOLD_PORT }] };
}

/** Resolves once a connection through the ClusterIP answers (bounded); `what` names it in the error. */
export async function untilServing(lab: Lab, deadlineMs: number, what: () => string): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < deadlineMs) {
    const r = await lab.probe(lab.pod('pod-a'), { proto: 'tcp', ip: CLUSTER_IP, port: SERVICE_PORT, timeoutMs: 500 });
    if (r.ok) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the ClusterIP never answered within ${deadlineMs} ms; ${what()}`);
}

export async function startChildCluster(options: Omit<ChildOptions, 'netns' | 'kubeconfig'>): Promise<ChildCluster> {
  await sweepLeftovers();
  let lab: Lab | undefined;
  let server: FakeApiServer | undefined;
  let kubeconfig: LabKubeconfig | undefined;
  let program: ChildProgram | undefined;
  const close = async (): Promise<void> => {
    await program?.close();
    await lab?.delete();
    await server?.close();
    await kubeconfig?.remove();
  };
  try {
    lab = await Lab.create({ pods: ['pod-a', 'pod-b'] });
    await lab.startEcho('pod-b', [ECHO_PORT], { holdPorts: [HOLD_PORT] });
    server = await FakeApiServer.start();
    server.create(node());
    server.create(holdingService());
    server.create(holdingSlice(lab));
    kubeconfig = await kubeconfigFor(server);
    program = await ChildProgram.create({ ...options, netns: lab.node.namespace.name, kubeconfig });
    program.start();
    const started = program;
    await untilServing(lab, 20_000, () => `logs:\n${started.logs().slice(-3_000)}`);
    return { lab, server, program, close };
  } catch (e) {
    await close();
    throw e;
  }
}
