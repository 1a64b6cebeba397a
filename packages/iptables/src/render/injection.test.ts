// Names come from the API (namespaces, Service and port names): none may inject iptables syntax.
// Fuzzed names with quotes, backslashes, newlines, option-like text and unicode render to lines
// whose tokens are exactly what the renderer meant: every comment stays one token of safe text,
// chain names stay hashes, no line breaks or stray options appear. (The kernel check of the same
// inputs, `iptables-restore --test`, is test/injection.e2e.test.ts.)
import { nodeState, RecordingLogger } from '@kpng/core/testing';
import { describe, expect, it } from 'vitest';
import { IptablesBackend } from '../backend/iptables-backend.js';
import { FakeIptables } from '../iptables/fake/fake-iptables.js';
import { tokenize } from '../iptables/fake/tables.js';
import { fuzzedServices } from '../../test/support/fuzz.js';
import { resolveConfig } from './config.js';
import { renderContext } from './context.js';
import { renderService } from './service.js';

const OPTION_ARGS = new Set([
  '-m',
  '-p',
  '-d',
  '-s',
  '-i',
  '-j',
  '--dport',
  '--comment',
  '--name',
  '--rcheck',
  '--seconds',
  '--reap',
  '--set',
  '--mode',
  '--probability',
  '--to-destination',
  '--dst-type',
  '--src-type',
  '--reject-with',
]);

describe('names never inject iptables syntax', () => {
  const config = resolveConfig({
    localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/16', '2001:db8::/32'] },
  });
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %i', (seed) => {
    const state = nodeState(fuzzedServices(seed));
    for (const family of ['IPv4', 'IPv6'] as const) {
      const ctx = renderContext(config, family, state.node, 0);
      for (const svc of state.services) {
        const rendered = renderService(svc, ctx);
        const lines = [...rendered.filter, ...rendered.nat, ...[...rendered.chains.values()].flat()];
        for (const line of lines) {
          expect(line).not.toMatch(/[\n\r\0\\']/);
          const tokens = tokenize(line);
          expect(tokens[0]).toBe('-A');
          tokens.forEach((token, i) => {
            if (tokens[i - 1] === '--comment') {
              expect(token).toMatch(/^[A-Za-z0-9 ./:_\-[\]>]*$/);
              expect(token.length).toBeLessThanOrEqual(200);
            } else if (token.startsWith('-')) {
              // Every option is one the renderer writes, never text from a name.
              expect(
                OPTION_ARGS.has(token) || /^-[ADI]$/.test(token) || /^-?\d/.test(token),
                `${token} in ${line}`,
              ).toBe(true);
            }
          });
        }
      }
    }
  });
});

describe('fuzzed Services load into the in-memory iptables', () => {
  // Found by the kernel check: an ETP Local Service's UDP port without a NodePort has no external
  // path in a family without external IPs, so no KUBE-EXT chain may jump to a missing KUBE-SVL.
  it.each([11, 12, 13, 14])('seed %i, both families', async (seed) => {
    const fake = new FakeIptables();
    const backend = new IptablesBackend({
      execer: fake,
      conntrack: false,
      log: new RecordingLogger(),
      localDetector: { mode: 'ClusterCIDR', clusterCIDRs: ['198.18.0.0/22', '2001:db8::/46'] },
    });
    await backend.sync({
      state: nodeState(fuzzedServices(seed)),
      changes: { triggerTimes: new Map(), nodeChanged: false },
      full: true,
      revision: seed,
    });
    expect(fake.restores.map((r) => r.ok)).toEqual([true, true]);
  });
});
