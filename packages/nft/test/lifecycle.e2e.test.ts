// The nft backend over time, on a real node in the lab, IPv4 and IPv6: the shared lifecycle cases
// every Linux backend runs (@kpng/lab lifecycleCases: partial syncs, stale UDP flows, affinity
// switching, a failed transaction, a restart keeping connections), and cleanup removing exactly
// its tables.
import { ConntrackTool, type ConntrackCleaner } from '@kpng/core';
import { lifecycleScenario } from '@kpng/core/testing';
import { lifecycleCases, type LifecycleDriver } from '@kpng/lab';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NftBackend } from '../src/backend/nft-backend.js';
import { processExecer, type Execer } from '@kpng/kit';
import { nodeState } from '../src/testing/fixtures.js';
import { createLab, destination, E2E_CONFIG, fullSync, partialSync } from './e2e-helpers.js';
import { kernelE2e, sweepLeftovers, type Lab } from './lab.js';

const e2e = await kernelE2e('nft backend: lifecycle');

/** The backend with switchable seams: a cleaner that can be turned off, an execer that can corrupt the next nft run. */
class NftDriver implements LifecycleDriver {
  readonly failureMetric = /kubeproxy_sync_proxy_rules_nftables_sync_failures_total\{ip_family="IPv4"\} [1-9]/;
  backend: NftBackend;
  #clean = true;
  #corrupt = false;
  #revision = 1;
  readonly #registry = new Registry();
  readonly #netns: string;
  readonly #execer: Execer = {
    run: (argv, stdin, signal) => {
      if (this.#corrupt && argv.includes('nft') && argv.includes('-f')) {
        this.#corrupt = false;
        // A real nft failure, late in the transaction: the kernel must apply none of it.
        return processExecer.run(argv, `${stdin}add rule ip kpng no-such-chain accept\n`, signal);
      }
      return processExecer.run(argv, stdin, signal);
    },
  };

  constructor(netns: string) {
    this.#netns = netns;
    this.backend = this.#create();
  }

  #create(): NftBackend {
    const tool = new ConntrackTool({ execer: this.#execer, netns: this.#netns });
    const conntrack: ConntrackCleaner = {
      clean: (request) => (this.#clean ? tool.clean(request) : Promise.resolve(0)),
    };
    return new NftBackend({
      ...E2E_CONFIG,
      netns: this.#netns,
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
    this.backend = this.#create(); // a new instance: its first sync drops and recreates the table
  }
  metrics(): Promise<string> {
    return this.#registry.metrics();
  }
}

describe.skipIf(!e2e.run)('nft backend in the lab: lifecycle', () => {
  let lab: Lab;
  let driver: NftDriver;

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await createLab();
    driver = new NftDriver(lab.node.namespace.name);
    await driver.sync({ web: [], dns: ['b'] });
  });
  afterAll(async () => {
    await lab?.delete();
  });

  lifecycleCases(
    () => lab,
    () => driver,
  );

  it('cleanup removes the kpng tables and nothing else', async () => {
    const ns = lab.node.namespace;
    await ns.exec(['nft', 'add', 'table', 'inet', 'someone-else']);
    await driver.backend.cleanup();
    const { stdout } = await ns.exec(['nft', 'list', 'tables']);
    expect(stdout.trim().split('\n')).toEqual(['table inet someone-else']);
    const probe = await lab.probe(lab.pod('pod-c'), {
      proto: 'tcp',
      ip: destination(lab, 'IPv4', 'cluster:10'),
      port: 80,
      timeoutMs: 1_000,
    });
    expect(probe.error).toBe('timeout');
  });
});
