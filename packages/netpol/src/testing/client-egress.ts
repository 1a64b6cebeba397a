/**
 * The enforcer as the test clients' `policy-creation-enforcement-latency` is measured against it
 * (its lab e2e in @kpng/test-clients, the netpol bench's precise-mode row): the node-local policy
 * view of one client pod (namespace `default`, labels `app: test-client`) and its target pods
 * (namespace `test-policy`, labels `target: test-policy`), all on this node; an egress deny for the
 * client pod; and an allow policy (egress to the targets on `ports`) handed to the enforcer or
 * taken away, each one sync, timed around: the commit lies between its `sentAt` and `confirmedAt`.
 */
import { policyKey } from '@kpng/core';
import { convertNamespace, convertNetworkPolicy, convertPod, PolicyView } from '@kpng/core/runtime';
import { SILENT_LOGGER } from '@kpng/core/testing';
import { createNftClient } from '@kpng/nftables';
import { NetpolEnforcer } from '../backend/enforcer.js';

/** One change handed to the enforcer: the commit lies between these instants (epoch ms). */
export interface EnforcedChange {
  readonly sentAt: number;
  readonly confirmedAt: number;
}

export interface ClientEgressOptions {
  /** The lab node's namespace: the enforcer's table goes there (IPv4). */
  readonly netns: string;
  readonly clientIp: string;
  readonly targets: readonly { readonly name: string; readonly ip: string }[];
  /** The ports the allow policy opens to the targets. */
  readonly ports: readonly number[];
}

export const CLIENT_LABELS = { app: 'test-client' } as const;

function unwrap<T>(result: { ok: true; value: T } | { ok: false; errors: readonly string[] }): T {
  if (!result.ok) throw new Error(result.errors.join('; '));
  return result.value;
}

/** Epoch ms on the clients' clock (`performance.timeOrigin + performance.now()`). */
const now = (): number => performance.timeOrigin + performance.now();

export class ClientEgressEnforcer {
  readonly #view: PolicyView;
  readonly #enforcer: NetpolEnforcer;
  readonly #ports: readonly number[];

  private constructor(view: PolicyView, enforcer: NetpolEnforcer, ports: readonly number[]) {
    this.#view = view;
    this.#enforcer = enforcer;
    this.#ports = ports;
  }

  /** The view and the enforcer, the client's egress denied (enforced before this resolves). */
  static async start(options: ClientEgressOptions): Promise<ClientEgressEnforcer> {
    const view = new PolicyView('node');
    for (const name of ['default', 'test-policy'])
      view.setNamespace(
        unwrap(convertNamespace({ metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } })),
      );
    const pod = (name: string, namespace: string, labels: Record<string, string>, ip: string) =>
      unwrap(
        convertPod({ metadata: { namespace, name, labels }, spec: { nodeName: 'node' }, status: { podIPs: [{ ip }] } }),
      );
    view.setPod(pod('client', 'default', CLIENT_LABELS, options.clientIp));
    for (const t of options.targets) view.setPod(pod(t.name, 'test-policy', { target: 'test-policy' }, t.ip));
    const deny = { podSelector: { matchLabels: CLIENT_LABELS }, policyTypes: ['Egress'] };
    view.setPolicy(unwrap(convertNetworkPolicy({ metadata: { namespace: 'default', name: 'deny' }, spec: deny })));
    const enforcer = new NetpolEnforcer({
      nft: await createNftClient({ netns: options.netns, interactive: true }),
      families: ['IPv4'],
      log: SILENT_LOGGER,
    });
    const started = new ClientEgressEnforcer(view, enforcer, options.ports);
    try {
      await started.enforce(true);
    } catch (e) {
      await enforcer.close();
      throw e;
    }
    return started;
  }

  /** Only the deny policy (`deny`), or the allow policy too: one sync. */
  async enforce(deny: boolean): Promise<EnforcedChange> {
    if (deny) this.#view.deletePolicy(policyKey('default', 'allow'));
    else {
      const allow = {
        podSelector: { matchLabels: CLIENT_LABELS },
        policyTypes: ['Egress'],
        egress: [
          {
            to: [
              {
                namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'test-policy' } },
                podSelector: { matchLabels: { target: 'test-policy' } },
              },
            ],
            ports: this.#ports.map((port) => ({ port })),
          },
        ],
      };
      this.#view.setPolicy(
        unwrap(convertNetworkPolicy({ metadata: { namespace: 'default', name: 'allow' }, spec: allow })),
      );
    }
    const state = this.#view.state().state;
    const sentAt = now();
    await this.#enforcer.sync(state);
    return { sentAt, confirmedAt: now() };
  }

  async close(): Promise<void> {
    await this.#enforcer.close();
  }
}
