// The lab's options for proxy tests (kernel): a node default route, a fixed UDP source port, and
// TCP connections held open across rule changes.
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { kernelE2e } from './e2e-mode.js';
import { Lab } from './lab.js';
import { sweepLeftovers } from './sweep.js';

const e2e = await kernelE2e('netns lab options');

/** Runs `body` with a forward-hook rule on the node, deleting it afterwards. */
async function withForwardRule(lab: Lab, rule: string, body: () => Promise<void>): Promise<void> {
  const node = lab.node.namespace;
  await node.exec(['nft', '-f', '-'], {
    input: `add table inet lab-opt\nadd chain inet lab-opt forward { type filter hook forward priority 0 ; }\nadd rule inet lab-opt forward ${rule}\n`,
  });
  try {
    await body();
  } finally {
    await node.exec(['nft', 'delete', 'table', 'inet', 'lab-opt']);
  }
}

describe.skipIf(!e2e.run)('Lab options (kernel)', () => {
  let lab: Lab;

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['pod-a', 'pod-b'], nodeDefaultRoute: true });
    await lab.startEcho('pod-b', [8080], { holdPorts: [9191] });
  });

  afterAll(async () => {
    await lab?.delete();
  });

  test('with a default route, traffic to a Service address reaches the node forward hook', async () => {
    const target = { proto: 'tcp' as const, ip: '198.19.0.99', port: 80, timeoutMs: 500 };
    for (const ip of ['198.19.0.99', '2001:db8:5e::99']) {
      const family = ip.includes(':') ? 'ip6' : 'ip';
      await withForwardRule(lab, `${family} daddr ${ip} reject with tcp reset`, async () => {
        expect(await lab.probe(lab.pod('pod-a'), { ...target, ip })).toEqual({ ok: false, error: 'refused' });
      });
      // Nothing NATs it and the external client does not forward: it ends there, unanswered.
      expect(await lab.probe(lab.pod('pod-a'), { ...target, ip })).toEqual({ ok: false, error: 'timeout' });
    }
  });

  test('a fixed UDP source port: every attempt is the same flow', async () => {
    const target = { proto: 'udp' as const, ip: lab.pod('pod-b').ipv4, port: 8080, timeoutMs: 500 };
    await withForwardRule(lab, 'udp sport 40123 drop', async () => {
      expect(await lab.probeRepeatedly(lab.pod('pod-a'), { ...target, sourcePort: 40123 }, 2)).toEqual([
        { ok: false, error: 'timeout' },
        { ok: false, error: 'timeout' },
      ]);
      expect(await lab.probe(lab.pod('pod-a'), target)).toMatchObject({ ok: true, server: 'pod-b' });
    });
    expect(await lab.probe(lab.pod('pod-a'), { ...target, sourcePort: 40123 })).toMatchObject({
      ok: true,
      server: 'pod-b',
    });
    await expect(lab.probe(lab.pod('pod-a'), { ...target, proto: 'tcp', sourcePort: 40123 })).rejects.toThrow(
      /UDP probes only/,
    );
  });

  test('a held connection keeps working when new connections are refused', async () => {
    // Conntrack must see the connection from its start (as under a proxy's ct rules), or it
    // picks it up mid-stream as new.
    const node = lab.node.namespace;
    await node.exec(['nft', '-f', '-'], {
      input:
        'add table inet lab-ct\nadd chain inet lab-ct forward { type filter hook forward priority 10 ; }\nadd rule inet lab-ct forward ct state established counter\n',
    });
    onTestFinished(() => node.exec(['nft', 'delete', 'table', 'inet', 'lab-ct']).then(() => undefined));
    for (const ip of [lab.pod('pod-b').ipv4, lab.pod('pod-b').ipv6]) {
      await using held = await lab.hold(lab.pod('pod-a'), { ip, port: 9191 });
      expect(await held.exchange('1')).toBe('pod-b 1');
      await withForwardRule(lab, 'ct state new reject with tcp reset', async () => {
        expect(await held.exchange('2')).toBe('pod-b 2');
        await expect(lab.hold(lab.pod('pod-a'), { ip, port: 9191 })).rejects.toThrow(/refused/);
        expect(await lab.probe(lab.pod('pod-a'), { proto: 'tcp', ip, port: 8080 })).toEqual({
          ok: false,
          error: 'refused',
        });
      });
      expect(await held.exchange('3')).toBe('pod-b 3');
    }
  });

  test('a held connection that breaks says why', async () => {
    const held = await lab.hold(lab.pod('pod-a'), { ip: lab.pod('pod-b').ipv4, port: 9191, timeoutMs: 500 });
    await withForwardRule(lab, 'ip daddr 198.18.1.11 tcp dport 9191 drop', async () => {
      await expect(held.exchange('lost')).rejects.toThrow(/timeout/);
    });
    await held.close();
    await expect(lab.hold(lab.pod('pod-a'), { ip: lab.pod('pod-b').ipv4, port: 7 })).rejects.toThrow(/refused/);
  });
});
