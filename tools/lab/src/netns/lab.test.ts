import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { kernelE2e } from './e2e-mode.js';
import { isAlive } from './kill.js';
import { Lab } from './lab.js';
import { listNamespaces, sweepLeftovers } from './sweep.js';

const e2e = await kernelE2e('netns lab');

describe.skipIf(!e2e.run)('Lab (kernel)', () => {
  let lab: Lab;

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['pod-a', 'pod-b'], remotePods: ['pod-c'] });
    await Promise.all([
      lab.startEcho('pod-a', [8080]),
      lab.startEcho('pod-b', [8080, 9090]),
      lab.startEcho('pod-c', [8080]),
    ]);
  });

  afterAll(async () => {
    await lab?.delete();
  });

  type Case = [from: string, to: string, family: 'ipv4' | 'ipv6', proto: 'tcp' | 'udp'];
  const cases: Case[] = [];
  for (const [from, to] of [
    ['pod-a', 'pod-b'],
    ['pod-a', 'pod-c'],
    ['pod-c', 'pod-b'],
    ['external', 'pod-b'],
    ['external', 'pod-c'],
  ]) {
    for (const family of ['ipv4', 'ipv6'] as const)
      for (const proto of ['tcp', 'udp'] as const) cases.push([from as string, to as string, family, proto]);
  }

  test.each(cases)('%s reaches %s over %s %s, unmasqueraded', async (from, to, family, proto) => {
    const client = from === 'external' ? lab.external : lab.pod(from);
    const result = await lab.probe(client, { proto, ip: lab.pod(to)[family], port: 8080 });
    expect(result).toMatchObject({ ok: true, server: to, seenSource: client[family] });
  });

  test('the node reaches its pods and the remote node', async () => {
    expect(await lab.probe(lab.node, { proto: 'tcp', ip: lab.pod('pod-b').ipv4, port: 9090 })).toMatchObject({
      ok: true,
      server: 'pod-b',
    });
    expect(await lab.probe(lab.node, { proto: 'tcp', ip: lab.pod('pod-c').ipv6, port: 8080 })).toMatchObject({
      ok: true,
      server: 'pod-c',
    });
  });

  test('a closed port is refused, over TCP and UDP', async () => {
    for (const proto of ['tcp', 'udp'] as const) {
      expect(await lab.probe(lab.pod('pod-a'), { proto, ip: lab.pod('pod-b').ipv4, port: 7 })).toEqual({
        ok: false,
        error: 'refused',
      });
    }
  });

  test('pod-to-pod traffic crosses the node: a node forward rule decides drop (timeout) vs reject (refused)', async () => {
    const node = lab.node.namespace;
    const target = { proto: 'tcp' as const, ip: lab.pod('pod-b').ipv4, port: 8080, timeoutMs: 500 };
    await node.exec(['nft', '-f', '-'], {
      input:
        'add table inet lab-test\nadd chain inet lab-test forward { type filter hook forward priority 0 ; }\nadd rule inet lab-test forward ip daddr 198.18.1.11 drop\n',
    });
    try {
      expect(await lab.probe(lab.pod('pod-a'), target)).toEqual({ ok: false, error: 'timeout' });
      await node.exec(['nft', '-f', '-'], {
        input:
          'flush chain inet lab-test forward\nadd rule inet lab-test forward ip daddr 198.18.1.11 reject with tcp reset\n',
      });
      expect(await lab.probe(lab.pod('pod-a'), target)).toEqual({ ok: false, error: 'refused' });
    } finally {
      await node.exec(['nft', 'delete', 'table', 'inet', 'lab-test']);
    }
    expect(await lab.probe(lab.pod('pod-a'), target)).toMatchObject({ ok: true, server: 'pod-b' });
  });

  test('masquerading on the node shows its pod gateway to local pods and its node IP to remote pods', async () => {
    const node = lab.node.namespace;
    await node.exec(['nft', '-f', '-'], {
      input:
        'add table inet lab-masq\nadd chain inet lab-masq post { type nat hook postrouting priority 100 ; }\nadd rule inet lab-masq post masquerade\n',
    });
    try {
      const seen = async (to: string, family: 'ipv4' | 'ipv6'): Promise<string | undefined> =>
        (await lab.probe(lab.external, { proto: 'tcp', ip: lab.pod(to)[family], port: 8080 })).seenSource;
      expect(await seen('pod-b', 'ipv4')).toBe(lab.node.podGatewayV4);
      expect(await seen('pod-b', 'ipv6')).toBe(lab.node.podGatewayV6);
      expect(await seen('pod-c', 'ipv4')).toBe(lab.node.ipv4);
      expect(await seen('pod-c', 'ipv6')).toBe(lab.node.ipv6);
    } finally {
      await node.exec(['nft', 'delete', 'table', 'inet', 'lab-masq']);
    }
  });

  test('probeRepeatedly makes bounded sequential attempts', async () => {
    const results = await lab.probeRepeatedly(
      lab.pod('pod-a'),
      { proto: 'udp', ip: lab.pod('pod-c').ipv4, port: 8080 },
      3,
    );
    expect(results.map((result) => result.server)).toEqual(['pod-c', 'pod-c', 'pod-c']);
  });
});

describe.skipIf(!e2e.run)('Lab cleanup (kernel)', () => {
  test('dispose deletes every namespace and stops the echo servers', async () => {
    let names: string[] = [];
    let echoPid: number | undefined;
    {
      await using lab = await Lab.create({ pods: ['solo'] });
      names = lab.namespaces.map((namespace) => namespace.name);
      echoPid = (await lab.startEcho('solo', [8080])).process.pid;
      expect(names).toHaveLength(4);
    }
    const remaining = await listNamespaces();
    expect(names.filter((name) => remaining.includes(name))).toEqual([]);
    expect(isAlive(echoPid as number)).toBe(false);
  });

  test('a failed build deletes what it created', async () => {
    const before = new Set(await listNamespaces());
    await expect(Lab.create({ pods: ['dup', 'dup'] })).rejects.toThrow(/unique/);
    await expect(Lab.create({ pods: ['Bad Name'] })).rejects.toThrow(/must match/);
    const created = (await listNamespaces()).filter(
      (name) => !before.has(name) && name.startsWith(`kpng-t-${process.pid}-`),
    );
    expect(created).toEqual([]);
  });
});
