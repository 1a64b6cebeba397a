import { randomBytes } from 'node:crypto';
import { ADDRESS_PLAN, podAddresses } from './address-plan.js';
import { startEchoServer, type EchoOptions, type EchoServer } from './echo.js';
import { holdConnection, type HeldConnection, type HoldTarget } from './held.js';
import { NetworkNamespace } from './namespace.js';
import { probe, probeRepeatedly, type ProbeOptions, type ProbeResult } from './probe.js';
import {
  hostCommands,
  linkCommands,
  nodeDefaultRouteCommands,
  podCommands,
  ROUTER_SYSCTLS,
  NO_DAD_SYSCTLS,
} from './topology.js';

export interface LabOptions {
  /** Pods on the node under test, e.g. `['pod-a', 'pod-b']`. */
  readonly pods?: readonly string[];
  /** Pods on the remote node: endpoints "elsewhere". */
  readonly remotePods?: readonly string[];
  /**
   * Give the node default routes via the external client (which does not forward), as a real
   * node has, so Service traffic the rules leave alone reaches the filter hooks instead of dying
   * in routing. Off by default: without it such traffic is refused as unreachable at once.
   */
  readonly nodeDefaultRoute?: boolean;
}

export interface LabHost {
  readonly namespace: NetworkNamespace;
  readonly ipv4: string;
  readonly ipv6: string;
  readonly podGatewayV4: string;
  readonly podGatewayV6: string;
}

export interface LabPod {
  readonly name: string;
  readonly host: 'node' | 'remote';
  readonly namespace: NetworkNamespace;
  readonly ipv4: string;
  readonly ipv6: string;
}

export interface LabClient {
  readonly namespace: NetworkNamespace;
  readonly ipv4: string;
  readonly ipv6: string;
}

const POD_NAME = /^[a-z0-9][a-z0-9-]{0,30}$/;
let labs = 0;

/** Unique within the process even when test files share it (worker threads share one pid). */
function labId(): string {
  return `l${labs++}${randomBytes(2).toString('hex')}`;
}

/**
 * The kernel e2e topology: a node (where the proxy's rules go), pods routed to it, a remote node
 * with its own pods, and an external client; IPv4 and IPv6 everywhere (see `ADDRESS_PLAN`).
 * Dispose it (`await using lab = await Lab.create(…)`) to delete every namespace.
 */
export class Lab implements AsyncDisposable {
  readonly node: LabHost;
  readonly remote: LabHost;
  readonly external: LabClient;
  readonly pods: readonly LabPod[];
  readonly #namespaces: readonly NetworkNamespace[];

  private constructor(node: LabHost, remote: LabHost, external: LabClient, pods: readonly LabPod[]) {
    this.node = node;
    this.remote = remote;
    this.external = external;
    this.pods = pods;
    this.#namespaces = [node.namespace, remote.namespace, external.namespace, ...pods.map((pod) => pod.namespace)];
  }

  static async create(options: LabOptions = {}): Promise<Lab> {
    const names = [...(options.pods ?? []), ...(options.remotePods ?? [])];
    const invalid = names.find((name) => !POD_NAME.test(name));
    if (invalid !== undefined) throw new Error(`pod name ${JSON.stringify(invalid)} must match ${POD_NAME.source}`);
    if (new Set(names).size !== names.length) throw new Error('pod names must be unique');

    const id = labId();
    const created: NetworkNamespace[] = [];
    const make = async (name: string): Promise<NetworkNamespace> => {
      const namespace = await NetworkNamespace.create(`${id}-${name}`);
      created.push(namespace);
      return namespace;
    };
    try {
      const [nodeNs, remoteNs, externalNs, ...podNs] = await Promise.all([
        make('node'),
        make('remote'),
        make('ext'),
        ...names.map((_, i) => make(`p${i}`)),
      ]);
      if (nodeNs === undefined || remoteNs === undefined || externalNs === undefined)
        throw new Error('namespaces missing');
      const pods = podsOf(options, podNs);
      await wire(nodeNs, remoteNs, externalNs, pods);
      if (options.nodeDefaultRoute === true) await nodeNs.ipBatch(nodeDefaultRouteCommands());
      const host = (
        namespace: NetworkNamespace,
        plan: typeof ADDRESS_PLAN.node | typeof ADDRESS_PLAN.remote,
      ): LabHost => ({
        namespace,
        ipv4: plan.ipv4,
        ipv6: plan.ipv6,
        podGatewayV4: plan.podGatewayV4,
        podGatewayV6: plan.podGatewayV6,
      });
      return new Lab(
        host(nodeNs, ADDRESS_PLAN.node),
        host(remoteNs, ADDRESS_PLAN.remote),
        { namespace: externalNs, ipv4: ADDRESS_PLAN.external.ipv4, ipv6: ADDRESS_PLAN.external.ipv6 },
        pods,
      );
    } catch (error) {
      await Promise.allSettled(created.map((namespace) => namespace.delete()));
      throw error;
    }
  }

  /** Every namespace of the lab. */
  get namespaces(): readonly NetworkNamespace[] {
    return this.#namespaces;
  }

  pod(name: string): LabPod {
    const pod = this.pods.find((candidate) => candidate.name === name);
    if (pod === undefined) throw new Error(`no pod ${name} in this lab`);
    return pod;
  }

  /**
   * Starts an echo server answering `NAME CLIENT_IP` in a pod (TCP and UDP, v4 and v6); TCP on
   * `options.holdPorts` keeps connections open and answers each line with `NAME LINE`.
   */
  startEcho(podName: string, ports: readonly number[], options: EchoOptions = {}): Promise<EchoServer> {
    return startEchoServer(this.pod(podName).namespace, podName, ports, options);
  }

  /** Opens one TCP connection from `from` and keeps it open (see `HeldConnection`). */
  hold(from: NetworkNamespace | { readonly namespace: NetworkNamespace }, target: HoldTarget): Promise<HeldConnection> {
    return holdConnection(from instanceof NetworkNamespace ? from : from.namespace, target);
  }

  probe(
    from: NetworkNamespace | { readonly namespace: NetworkNamespace },
    options: ProbeOptions,
  ): Promise<ProbeResult> {
    return probe(from instanceof NetworkNamespace ? from : from.namespace, options);
  }

  probeRepeatedly(
    from: NetworkNamespace | { readonly namespace: NetworkNamespace },
    options: ProbeOptions,
    count: number,
  ): Promise<ProbeResult[]> {
    return probeRepeatedly(from instanceof NetworkNamespace ? from : from.namespace, options, count);
  }

  async delete(): Promise<void> {
    const results = await Promise.allSettled(this.#namespaces.map((namespace) => namespace.delete()));
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.delete();
  }
}

function podsOf(options: LabOptions, namespaces: readonly NetworkNamespace[]): LabPod[] {
  const local = (options.pods ?? []).map((name, index) => ({ name, host: 'node' as const, index }));
  const remote = (options.remotePods ?? []).map((name, index) => ({ name, host: 'remote' as const, index }));
  return [...local, ...remote].map(({ name, host, index }, position) => ({
    name,
    host,
    namespace: namespaces[position] as NetworkNamespace,
    ...podAddresses(host, index),
  }));
}

/** Links, addresses, routes and sysctls, each set inside the namespace it concerns. */
async function wire(
  node: NetworkNamespace,
  remote: NetworkNamespace,
  external: NetworkNamespace,
  pods: readonly LabPod[],
): Promise<void> {
  const all = [node, remote, external, ...pods.map((pod) => pod.namespace)];
  await Promise.all(all.map((namespace) => namespace.sysctl(NO_DAD_SYSCTLS)));
  await Promise.all([node.sysctl(ROUTER_SYSCTLS), remote.sysctl(ROUTER_SYSCTLS)]);
  const onNode = pods.filter((pod) => pod.host === 'node');
  const onRemote = pods.filter((pod) => pod.host === 'remote');
  await node.ipBatch(
    linkCommands(onNode, [
      ['remote0', remote.name, 'node0'],
      ['ext0', external.name, 'eth0'],
    ]),
  );
  await remote.ipBatch(linkCommands(onRemote, []));
  await Promise.all([
    node.ipBatch(hostCommands('node', onNode.length)),
    remote.ipBatch(hostCommands('remote', onRemote.length)),
  ]);
  await Promise.all([
    external.ipBatch([
      'link set eth0 up',
      `addr add ${ADDRESS_PLAN.external.ipv4}/28 dev eth0`,
      `addr add ${ADDRESS_PLAN.external.ipv6}/64 dev eth0 nodad`,
      `route add default via ${ADDRESS_PLAN.external.nodeSideV4}`,
      `route add default via ${ADDRESS_PLAN.external.nodeSideV6}`,
    ]),
    ...pods.map((pod) => pod.namespace.ipBatch(podCommands(pod))),
  ]);
}
