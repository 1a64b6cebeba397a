import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { processExecerWith, withTimeout } from '@kpng/kit';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RecordingLogger } from '../sync/recording-logger.js';
import { registerProcessFaults } from '../metrics/process-faults.js';
import { faultPolicy } from './process-faults.js';

const count = async (registry: Registry, kind: string) =>
  (await registerProcessFaults(registry).get()).values.find((v) => v.labels.kind === kind)?.value ?? 0;

describe('faultPolicy', () => {
  it('counts every fault and logs it with its stack', async () => {
    const registry = new Registry();
    const before = await count(registry, 'unhandledRejection');
    const log = new RecordingLogger();
    faultPolicy(log).handle('unhandledRejection', new Error('lost promise'));
    faultPolicy(log).handle('unhandledRejection', 'a string reason');
    expect(await count(registry, 'unhandledRejection')).toBe(before + 2);
    expect(log.at('error')[0]?.fields).toMatchObject({ kind: 'unhandledRejection', err: 'lost promise' });
    expect(String(log.at('error')[0]?.fields['stack'])).toContain('process-faults.test.ts');
  });

  it('logs at most 10 lines a minute, then how many it suppressed', async () => {
    const log = new RecordingLogger();
    let t = 0;
    const policy = faultPolicy(log, () => t);
    for (let i = 0; i < 25; i++) policy.handle('uncaughtException', new Error(`e${i}`));
    expect(log.at('error')).toHaveLength(10);
    t = 60_000;
    policy.handle('uncaughtException', new Error('later'));
    expect(log.at('error').map((r) => r.fields['suppressed'] ?? r.fields['err'])).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `e${i}`),
      15,
      'later',
    ]);
  });

  it('registers one counter on any number of registries', () => {
    const a = new Registry();
    const b = new Registry();
    expect(registerProcessFaults(a)).toBe(registerProcessFaults(b));
    expect(registerProcessFaults(a)).toBe(registerProcessFaults(a));
  });
});

// A real process (the built module, as programs load it): a throw in a callback and a lost
// rejection are counted and logged, and the process carries on to exit 0 on its own.
describe('installFaultPolicy in a process', () => {
  const built = fileURLToPath(new URL('../../dist/runtime/process-faults.js', import.meta.url));
  const builtMetric = fileURLToPath(new URL('../../dist/metrics/process-faults.js', import.meta.url));

  it('keeps the process running through an uncaught exception and an unhandled rejection', async () => {
    expect(existsSync(built), `${built} is missing: build first (npx nx run-many -t build)`).toBe(true);
    const script = `
      const { installFaultPolicy } = await import(${JSON.stringify(built)});
      const { registerProcessFaults } = await import(${JSON.stringify(builtMetric)});
      const { Registry } = await import('prom-client');
      installFaultPolicy();
      const registry = new Registry();
      registerProcessFaults(registry);
      setTimeout(() => { throw new Error('thrown in a timer'); }, 1);
      void Promise.reject(new Error('nobody listens'));
      setTimeout(async () => { process.stdout.write(await registry.metrics()); }, 50);
    `;
    const execer = withTimeout(processExecerWith({ cwd: fileURLToPath(new URL('../..', import.meta.url)) }), 60_000);
    const { exitCode, stdout, stderr } = await execer.run([process.execPath, '--input-type=module', '-e', script], '');
    expect(exitCode).toBe(0);
    expect(stdout).toContain('kpng_unexpected_errors_total{kind="uncaughtException"} 1');
    expect(stdout).toContain('kpng_unexpected_errors_total{kind="unhandledRejection"} 1');
    expect(stderr).toContain('thrown in a timer');
    expect(stderr).toContain('nobody listens');
  });
});
