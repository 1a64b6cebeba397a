// The iptables backend over time, on a real node in the lab, on iptables-legacy and iptables-nft,
// IPv4 and IPv6: the shared lifecycle cases every Linux backend runs (@kpng/lab lifecycleCases:
// partial syncs, stale UDP flows, affinity switching, a corrupted restore, a restart keeping
// connections), and cleanup removing exactly its chains. One lab for the file.
import { ConntrackTool, type ConntrackCleaner } from '@kpng/core';
import { lifecycleScenario, nodeState } from '@kpng/core/testing';
import {
  createProxyLab,
  destination,
  kernelE2e,
  lifecycleCases,
  sweepLeftovers,
  type Lab,
  type LifecycleDriver,
} from '@kpng/lab';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IptablesBackend } from '../src/backend/iptables-backend.js';
import { command } from '../src/iptables/commands.js';
import { processExecer, type Execer } from '@kpng/kit';
import type { IptablesFlavour } from '../src/render/config.js';
import { E2E_CONFIG, FLAVOURS, fullSync, partialSync } from './e2e-helpers.js';

const e2e = await kernelE2e('iptables backend: lifecycle');

/** The backend with switchable seams: a cleaner that can be turned off, an execer that can corrupt the next restore. */
class IptablesDriver implements LifecycleDriver {
  readonly failureMetric =
    /kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total\{ip_family="IPv4"\} [1-9]/;
  backend: IptablesBackend;
  #clean = true;
  #corrupt = false;
  #revision = 1;
  readonly #registry = new Registry();
  readonly #execer: Execer = {
    run: (argv, stdin, signal) => {
      if (this.#corrupt && argv.some((a) => a.endsWith('-restore'))) {
        this.#corrupt = false;
        // A real failure at the end of the nat table: the kernel must apply none of that table.
        return processExecer.run(argv, stdin.replace(/COMMIT\n$/, '-A KUBE-NO-SUCH-CHAIN -j ACCEPT\nCOMMIT\n'), signal);
      }
      return processExecer.run(argv, stdin, signal);
    },
  };

  constructor(
    readonly netns: string,
    readonly flavour: IptablesFlavour,
  ) {
    this.backend = this.#create();
  }

  #create(): IptablesBackend {
    const tool = new ConntrackTool({ execer: this.#execer, netns: this.netns });
    const conntrack: ConntrackCleaner = {
      clean: (request) => (this.#clean ? tool.clean(request) : Promise.resolve(0)),
    };
    return new IptablesBackend({
      ...E2E_CONFIG,
      flavour: this.flavour,
      netns: this.netns,
      execer: this.#execer,
      conntrack,
      metrics: this.#registry,
    });
  }

  async sync(state: Parameters<LifecycleDriver['sync']>[0], changed?: readonly string[]): Promise<void> {
    const local = nodeState(lifecycleScenario(state));
    await this.backend.sync(
      changed === undefined ? fullSync(local, ++this.#revision) : partialSync(local, changed, ++this.#revision),
    );
  }
  corruptNextApply(): void {
    this.#corrupt = true;
  }
  cleanConntrack(on: boolean): void {
    this.#clean = on;
  }
  restart(): void {
    this.backend = this.#create(); // a new instance: its first sync is a full restore that sweeps
  }
  metrics(): Promise<string> {
    return this.#registry.metrics();
  }
}

describe.skipIf(!e2e.run)('iptables backend in the lab: lifecycle', () => {
  let lab: Lab;

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await createProxyLab();
  });
  afterAll(async () => {
    await lab?.delete();
  });

  describe.each(FLAVOURS)('iptables-%s', (flavour) => {
    let driver: IptablesDriver;
    beforeAll(async () => {
      driver = new IptablesDriver(lab.node.namespace.name, flavour);
      await driver.sync({ web: [], dns: ['b'] });
    });

    // Each flavour's UDP flows use their own source ports (conntrack outlives the rules).
    lifecycleCases(
      () => lab,
      () => driver,
      flavour === 'legacy' ? 40_000 : 41_000,
    );

    it('cleanup removes the kube-proxy chains and nothing else', async () => {
      const ns = lab.node.namespace;
      await ns.exec([command('IPv4', flavour, 'iptables'), '-t', 'nat', '-N', 'SOMEONE-ELSE']);
      await driver.backend.cleanup();
      for (const family of ['IPv4', 'IPv6'] as const) {
        const { stdout } = await ns.exec([command(family, flavour, 'save')]);
        expect(stdout).not.toMatch(/KUBE-(?!FIREWALL)/);
      }
      expect((await ns.exec([command('IPv4', flavour, 'save'), '-t', 'nat'])).stdout).toMatch(/:SOMEONE-ELSE/);
      await ns.exec([command('IPv4', flavour, 'iptables'), '-t', 'nat', '-X', 'SOMEONE-ELSE']);
      const probe = await lab.probe(lab.pod('pod-c'), {
        proto: 'tcp',
        ip: destination(lab, 'IPv4', 'cluster:10'),
        port: 80,
        timeoutMs: 1_000,
      });
      expect(probe.error).toBe('timeout');
    });
  });
});
