import { defineBackend, type Backend } from '@kpng/core';
import { Registry } from 'prom-client';
import { describe, expect, test } from 'vitest';
import { backend, withNetpol, WITH_NETPOL_FLAG } from './backend-module.js';

const svc: Backend = { name: 'svc', families: ['IPv4'], sync: async () => {}, cleanup: async () => {} };
const main = defineBackend<{ mode: string }>({
  name: 'svc',
  program: 'kpng-svc',
  proxyMode: 'svc',
  summary: 'a service backend',
  flags: { mode: { type: 'string', help: 'a flag of its own' } },
  parseFlags: (values) => {
    if (WITH_NETPOL_FLAG in values) throw new Error('saw --with-netpol');
    return { mode: String(values['mode']) };
  },
  create: () => svc,
});

describe('the netpol backend module', () => {
  test('alone: it asks for the policy view', () => {
    expect(backend).toMatchObject({ name: 'netpol', program: 'kpng-netpol', policy: true });
    expect(withNetpol(undefined)).toMatchObject({ name: 'netpol', policy: true, flags: { [WITH_NETPOL_FLAG]: {} } });
  });

  test('beside a service backend: its name and flags, --with-netpol kept from its parser, both backends', async () => {
    const both = withNetpol(main as never);
    expect(both).toMatchObject({ name: 'svc', program: 'kpng-svc', policy: true });
    expect(Object.keys(both.flags).sort()).toEqual(['mode', WITH_NETPOL_FLAG]);
    const options = both.parseFlags({ mode: 'x', [WITH_NETPOL_FLAG]: true });
    expect(options).toEqual({ mode: 'x' });
    const created = await both.create(options, { nodeName: 'n', registry: new Registry() });
    expect(created.name).toBe('svc+netpol');
    expect(withNetpol(both)).toBe(both);
  });
});
