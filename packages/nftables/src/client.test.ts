import { describe, expect, test } from 'vitest';
import { createNftClient } from './client.js';
import { ScriptedExecer, type ScriptedCall } from '@kpng/kit/testing';
import type { Chain, NftSet, Table } from './objects/types.js';

const VERSION: ScriptedCall = { argv: ['nft', '--version'], result: { stdout: 'nftables v1.0.6 (Lester Gooch #5)\n' } };
const DESTROY_PROBE = (ok: boolean): ScriptedCall => ({
  argv: ['nft', '--check', '-f', '-'],
  stdin: 'destroy table ip kpng-capability-probe\n',
  result: ok ? {} : { exitCode: 1, stderr: 'Error: syntax error, unexpected table, expecting string\n' },
});
const COMMENT_PROBE: ScriptedCall = {
  argv: ['nft', '--check', '-f', '-'],
  stdin: 'add table ip kpng-capability-probe { comment "probe" ; }\n',
};

const table: Table = { kind: 'table', family: 'ip', name: 'kpng' };
const chain: Chain = { kind: 'chain', family: 'ip', table: 'kpng', name: 'services' };
const set: NftSet = { kind: 'set', family: 'ip', table: 'kpng', name: 'cluster-ips', type: 'ipv4_addr' };

async function clientWith(script: readonly ScriptedCall[], destroy = false, netns?: string) {
  const execer = new ScriptedExecer([VERSION, DESTROY_PROBE(destroy), COMMENT_PROBE, ...script]);
  const client = await createNftClient(netns === undefined ? { execer } : { execer, netns });
  return { client, execer };
}

describe('createNftClient', () => {
  test('probes the host once: version, destroy, object comments', async () => {
    const { client, execer } = await clientWith([]);
    expect(client.capabilities).toEqual({ version: '1.0.6', destroy: false, objectComments: true });
    expect(Object.isFrozen(client.capabilities)).toBe(true);
    expect(execer.remaining).toBe(0);
  });

  test.each(['nftables v0.9.8 (E.D.S.)', 'nftables v1.0.0 (Fearless Fosdick #2)'])('refuses %s', async (version) => {
    const execer = new ScriptedExecer([{ argv: ['nft', '--version'], result: { stdout: version } }]);
    await expect(createNftClient({ execer })).rejects.toMatchObject({
      kind: 'not-supported',
      message: expect.stringMatching(/1\.0\.1 or newer/),
    });
  });

  test('fails clearly when nft cannot report a version', async () => {
    const execer = new ScriptedExecer([
      { argv: ['nft', '--version'], result: { exitCode: 127, stderr: 'nft: not found' } },
    ]);
    await expect(createNftClient({ execer })).rejects.toThrow(/cannot determine the nft version: nft: not found/);
  });

  test('runs everything inside a network namespace when asked', async () => {
    const inside = (call: ScriptedCall): ScriptedCall => ({
      ...call,
      argv: ['ip', 'netns', 'exec', 'kpng-t-1-node', ...call.argv],
    });
    const execer = new ScriptedExecer([VERSION, DESTROY_PROBE(true), COMMENT_PROBE].map(inside));
    const client = await createNftClient({ execer, netns: 'kpng-t-1-node' });
    expect(client.capabilities.destroy).toBe(true);
  });
});

describe('NftClient.run and check', () => {
  test('pipes the rendered transaction into nft -f -', async () => {
    const { client, execer } = await clientWith([
      { argv: ['nft', '-f', '-'], stdin: 'add table ip kpng\nadd chain ip kpng services\n' },
      { argv: ['nft', '--check', '-f', '-'], stdin: 'add table ip kpng\nadd chain ip kpng services\n' },
    ]);
    const tx = client.newTransaction();
    tx.add(table);
    tx.add(chain);
    await client.run(tx);
    await client.check(tx);
    expect(execer.remaining).toBe(0);
  });

  test('emulates destroy where the host lacks it, natively where it has it', async () => {
    const emulated = await clientWith([
      {
        argv: ['nft', '-f', '-'],
        stdin: 'add set ip kpng cluster-ips { type ipv4_addr ; }\ndelete set ip kpng cluster-ips\n',
      },
    ]);
    const native = await clientWith([{ argv: ['nft', '-f', '-'], stdin: 'destroy set ip kpng cluster-ips\n' }], true);
    for (const { client, execer } of [emulated, native]) {
      const tx = client.newTransaction();
      tx.destroy(set);
      await client.run(tx);
      expect(execer.remaining).toBe(0);
    }
  });

  test('drops object comments where the kernel refuses them', async () => {
    const execer = new ScriptedExecer([
      VERSION,
      DESTROY_PROBE(false),
      { ...COMMENT_PROBE, result: { exitCode: 1, stderr: 'Error: Operation not supported\n' } },
      { argv: ['nft', '-f', '-'], stdin: 'add table ip kpng\n' },
    ]);
    const client = await createNftClient({ execer });
    const tx = client.newTransaction();
    tx.add({ ...table, comment: 'rules for kpng' });
    await client.run(tx);
    expect(execer.remaining).toBe(0);
  });

  test('an empty transaction runs nothing', async () => {
    const { client, execer } = await clientWith([]);
    await client.run(client.newTransaction());
    expect(execer.calls).toHaveLength(3);
  });

  test('a latched validation error is raised without running nft', async () => {
    const { client, execer } = await clientWith([]);
    const tx = client.newTransaction();
    tx.add({ ...chain, name: 'bad name' });
    await expect(client.run(tx)).rejects.toMatchObject({ kind: 'invalid' });
    expect(execer.calls).toHaveLength(3);
  });

  test('a failure keeps stderr and points at the failing operation', async () => {
    const stderr =
      '/dev/stdin:3:17-22: Error: Could not process rule: No such file or directory\nadd chain ip kpng services\n                ^^^^^^\n';
    const { client } = await clientWith([{ argv: ['nft', '-f', '-'], result: { exitCode: 1, stderr } }]);
    const tx = client.newTransaction();
    tx.add(table);
    tx.destroy(set); // emulated: lines 2 and 3
    tx.add(chain);
    const error = await client.run(tx).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'not-found', stderr, line: 3, operation: { verb: 'destroy', object: set } });
  });
});

describe('NftClient listing', () => {
  test('lists a table with handles and parses it', async () => {
    const stdout =
      'table ip kpng { # handle 4\n\tchain services { # handle 1\n\t\tjump other # handle 3\n\t}\n\tchain other { # handle 2\n\t}\n}\n';
    const { client } = await clientWith([{ argv: ['nft', '-a', 'list', 'table', 'ip', 'kpng'], result: { stdout } }]);
    expect(await client.listTable('ip', 'kpng')).toEqual([
      table,
      { kind: 'chain', family: 'ip', table: 'kpng', name: 'other' },
      chain,
      { kind: 'rule', family: 'ip', table: 'kpng', chain: 'services', rule: 'jump other', handle: 3 },
    ]);
  });

  test('lists the elements of a map', async () => {
    const stdout =
      'table ip kpng {\n\tmap m {\n\t\ttype ipv4_addr : verdict\n\t\telements = { 198.19.0.1 comment "a, b" : drop,\n\t\t\t     198.19.0.2 : goto x }\n\t}\n}\n';
    const { client } = await clientWith([{ argv: ['nft', 'list', 'map', 'ip', 'kpng', 'm'], result: { stdout } }]);
    expect(await client.listElements('ip', 'kpng', { map: 'm' })).toEqual([
      { kind: 'element', family: 'ip', table: 'kpng', map: 'm', key: ['198.19.0.1'], value: ['drop'], comment: 'a, b' },
      { kind: 'element', family: 'ip', table: 'kpng', map: 'm', key: ['198.19.0.2'], value: ['goto x'] },
    ]);
  });

  test('a missing table is not-found', async () => {
    const stderr = 'Error: No such file or directory\nlist table ip nope\n              ^^^^\n';
    const { client } = await clientWith([
      { argv: ['nft', '-a', 'list', 'table', 'ip', 'nope'], result: { exitCode: 1, stderr } },
    ]);
    await expect(client.listTable('ip', 'nope')).rejects.toMatchObject({ kind: 'not-found', stderr });
  });

  test('names are validated before they reach the nft command line', async () => {
    const { client, execer } = await clientWith([]);
    await expect(client.listTable('ip', 'kpng ; flush ruleset')).rejects.toMatchObject({ kind: 'invalid' });
    await expect(client.listElements('ip', 'kpng', { set: 'x; flush ruleset' })).rejects.toMatchObject({
      kind: 'invalid',
    });
    expect(execer.calls).toHaveLength(3);
  });
});
