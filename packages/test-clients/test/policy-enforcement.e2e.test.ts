// Kernel e2e: the policy-creation client's real main, probing from a lab "client pod". A stand-in
// enforcer (an nft rule on the lab node, inside its namespace) drops the client's traffic to the
// targets while the deny policy is "in force". The test lifts the rule a known delay after the
// client saw the allow policy, and puts it back a known delay after the client saw the policy
// deleted: the client must report creation and deletion latencies of at least those delays.
import { FakeApiServer, kernelE2e, kubeconfigFor, Lab, sweepLeftovers, type LabKubeconfig } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/clients/policy-creation/main.js';
import { pod, policy } from '../src/testing/objects.js';
import { NetnsDialer } from './support/netns-dialer.js';
import { sample, sleep, startClient } from './support/harness.js';

const e2e = await kernelE2e('test-clients: policy enforcement');

const PORT = 8080;
const TARGETS = ['target-a', 'target-b'];
const CREATION_DELAY_MS = 500;
const DELETION_DELAY_MS = 400;
/** nft runs, probe interval (20 ms) and scheduling: generous. */
const SLACK_S = 2;
const TABLE = 'kpng-t-enforcer';

describe.skipIf(!e2e.run)('policy-creation-enforcement-latency in the lab', () => {
  let lab: Lab;
  let server: FakeApiServer;
  let kubeconfig: LabKubeconfig;
  let dialer: NetnsDialer;

  /** Drops (deny in force) or accepts the client's traffic to the targets, on the lab node only. */
  const enforce = async (deny: boolean) => {
    const targets = TARGETS.map((t) => lab.pod(t).ipv4).join(', ');
    const rules = deny ? `add rule inet ${TABLE} forward ip saddr ${lab.pod('client').ipv4} ip daddr { ${targets} } tcp dport ${PORT} drop\n` : '';
    await lab.node.namespace.exec(['nft', '-f', '-'], { input: `flush chain inet ${TABLE} forward\n${rules}` });
  };

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['client', ...TARGETS] });
    await Promise.all(TARGETS.map((t) => lab.startEcho(t, [PORT])));
    await lab.node.namespace.exec(['nft', '-f', '-'], { input: `add table inet ${TABLE}\nadd chain inet ${TABLE} forward { type filter hook forward priority 0 ; }\n` });
    await enforce(true);
    server = await FakeApiServer.start();
    kubeconfig = await kubeconfigFor(server);
    for (const t of TARGETS) server.create(pod(t, { ip: lab.pod(t).ipv4, created: Date.now() }));
    server.create(policy('deny-egress-to-target', { created: Date.now() }));
    dialer = await NetnsDialer.start(lab.pod('client').namespace);
  });
  afterAll(async () => {
    await dialer?.close();
    await kubeconfig?.remove();
    await server?.close();
    await lab?.delete();
  });

  it('measures enforcement after the allow policy is created, and revocation after it is deleted', async () => {
    const client = await startClient(
      main,
      [
        '-HostNamespace=default',
        '-TargetLabelSelector=target=test-policy',
        '-TargetNamespace=test-policy',
        `-TargetPort=${PORT}`,
        '-AllowPolicyName=allow-egress-to-target',
        '-MeasurePolicyDeletion',
        `-Kubeconfig=${kubeconfig.path}`,
        '-ProbeInterval=20ms',
        '-ProbeTimeout=300ms',
        '-TargetTimeout=30s',
      ],
      dialer,
    );
    try {
      for (const t of TARGETS) await client.log.waitFor('probing target pod', { pod: t });
      await sleep(200); // denied meanwhile: dropped attempts time out
      expect(client.log.find('target pod reached after policy creation')).toHaveLength(0);

      const allow = policy('allow-egress-to-target', { created: Date.now() });
      server.create(allow);
      await client.log.waitFor('allow policy created');
      await sleep(CREATION_DELAY_MS);
      await enforce(false);
      for (const t of TARGETS) {
        const reached = await client.log.waitFor('target pod reached after policy creation', { pod: t });
        expect(reached).toMatchObject({ startSource: 'watch' });
        expect(reached['latencySeconds']).toBeGreaterThanOrEqual(CREATION_DELAY_MS / 1_000);
        expect(reached['latencySeconds']).toBeLessThan(CREATION_DELAY_MS / 1_000 + SLACK_S);
      }

      server.delete(allow);
      await client.log.waitFor('allow policy deleted');
      await sleep(DELETION_DELAY_MS);
      await enforce(true);
      await client.log.waitFor('measurement complete', {}, 10_000);
      for (const t of TARGETS) {
        const revoked = client.log.find('target pod unreachable after revocation', { pod: t })[0];
        expect(revoked).toMatchObject({ startSource: 'watch', measurement: 'policy_deletion' });
        expect(revoked!['latencySeconds']).toBeGreaterThanOrEqual(DELETION_DELAY_MS / 1_000);
        expect(revoked!['latencySeconds']).toBeLessThan(DELETION_DELAY_MS / 1_000 + SLACK_S);
      }
      const text = await client.metrics();
      expect(sample(text, 'policy_enforcement_latency_policy_creation_seconds_count')).toBe(2);
      expect(sample(text, 'policy_enforcement_latency_policy_deletion_seconds_count')).toBe(2);
      expect(sample(text, 'policy_enforcement_latency_policy_creation_seconds_bucket{le="0.5"}')).toBe(0);
      expect(sample(text, 'policy_enforcement_latency_policy_deletion_seconds_bucket{le="0.1"}')).toBe(0);
      expect(sample(text, 'kpng_test_client_probe_attempts_total{measurement="policy_creation",result="timeout"}')).toBeGreaterThan(0);
      expect(sample(text, 'kpng_test_client_complete{measurement="policy_deletion"}')).toBe(1);
      const summary = (msg: string) => TARGETS.map((t) => client.log.find(msg, { pod: t })[0]!['latencySeconds']).join(', ');
      console.info(
        `[policy] creation: injected ${CREATION_DELAY_MS / 1_000} s, measured ${summary('target pod reached after policy creation')}; ` +
          `deletion: injected ${DELETION_DELAY_MS / 1_000} s, measured ${summary('target pod unreachable after revocation')}`,
      );
    } finally {
      expect(await client.stop()).toBe(0);
    }
  });
});
