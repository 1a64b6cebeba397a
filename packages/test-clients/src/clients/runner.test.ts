import { EventEmitter } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { MetricsServer } from '../metrics/server.js';
import { MemoryLog } from '../../test/support/log.js';
import { main as podCreationMain } from './pod-creation/main.js';
import { main as policyCreationMain } from './policy-creation/main.js';
import { main as serviceProgrammingMain } from './service-programming/main.js';

class Output {
  text = '';
  write(chunk: string) {
    this.text += chunk;
    return true;
  }
}

/** A kubeconfig pointing at nothing that answers: these tests never reach an API server. */
function deadKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'http://127.0.0.1:9', skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

describe('client binaries: command line', () => {
  it.each([
    [podCreationMain, ['-TargetPort=80'], 'pod-creation-reachability-latency: -HostNamespace is required'],
    [
      podCreationMain,
      ['-HostNamespace=d', '-TargetLabelSelector=a=b', '-TargetNamespace=t', '-TargetPort=0'],
      '-TargetPort must be between 1 and 65535 (got 0)',
    ],
    [podCreationMain, ['-Bogus=1'], 'flag provided but not defined: -Bogus'],
    [
      policyCreationMain,
      ['-HostNamespace=d', '-TargetLabelSelector=a=b', '-TargetNamespace=t', '-TargetPort=80'],
      '-AllowPolicyName is required',
    ],
    [serviceProgrammingMain, ['--service-name=web'], '-ServiceNamespace is required'],
    [serviceProgrammingMain, ['--service-namespace=d', '--service-name=web', 'extra'], 'unexpected argument "extra"'],
  ])('a bad flag exits 2 with a clear message (%#)', async (main, argv, message) => {
    const stderr = new Output();
    const stdout = new Output();
    expect(await main(argv, { stdout, stderr })).toBe(2);
    expect(stderr.text).toContain(message);
    expect(stderr.text).toContain('-help');
    expect(stdout.text).toBe('');
  });

  it('-help prints the flags and exits 0', async () => {
    const stdout = new Output();
    expect(await podCreationMain(['-help'], { stdout, stderr: new Output() })).toBe(0);
    expect(stdout.text).toContain('Usage of pod-creation-reachability-latency:');
    expect(stdout.text).toContain('-MetricsPort int   (alias --metrics-port)');
  });

  it.each(['-version', '--version'])('%s prints the program and package version and exits 0', async (flag) => {
    const stdout = new Output();
    expect(await podCreationMain([flag], { stdout, stderr: new Output() })).toBe(0);
    expect(stdout.text).toMatch(/^pod-creation-reachability-latency \d+\.\d+\.\d+ \(@kpng\/test-clients\)\n$/);
  });
});

/** A port free on 127.0.0.1 right now, and a way to hold one busy. */
async function holdPort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    release: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('client binaries: lifecycle', () => {
  const argv = (port: number) => [
    '--service-namespace=default',
    '--service-name=web',
    '--metrics-bind-address=127.0.0.1',
    `--metrics-port=${port}`,
  ];

  it('logs its flags as JSON, serves /healthz, and on SIGTERM stops, closes the server and exits 0', async () => {
    const held = await holdPort();
    await held.release();
    const signals = new EventEmitter();
    const log = new MemoryLog();
    let server: MetricsServer | undefined;
    const exit = serviceProgrammingMain(argv(held.port), {
      signals,
      logSink: log.sink,
      registry: new Registry(),
      kubeConfig: deadKubeConfig(),
      onMetricsServer: (s) => (server = s),
    });
    expect(log.records[0]).toMatchObject({
      msg: 'starting',
      client: 'service-programming-latency',
      level: 'info',
      flags: { ServiceName: 'web', ProbeInterval: '100ms', MetricsPort: held.port },
    });
    await log.waitFor('cannot get the Service; retrying');
    expect(server?.port).toBe(held.port);
    expect((await fetch(`http://127.0.0.1:${held.port}/healthz`)).status).toBe(200);
    signals.emit('SIGTERM');
    expect(await exit).toBe(0);
    expect(log.find('shutting down', { signal: 'SIGTERM' })).toHaveLength(1);
    expect(signals.listenerCount('SIGTERM')).toBe(0);
    await expect(fetch(`http://127.0.0.1:${held.port}/healthz`)).rejects.toThrow();
  });

  it('exits 1 when the metrics port is taken', async () => {
    const held = await holdPort();
    try {
      const log = new MemoryLog();
      expect(
        await serviceProgrammingMain(argv(held.port), {
          signals: new EventEmitter(),
          logSink: log.sink,
          registry: new Registry(),
          kubeConfig: deadKubeConfig(),
        }),
      ).toBe(1);
      expect(log.find('client failed')[0]?.['error']).toMatch(/EADDRINUSE/);
    } finally {
      await held.release();
    }
  });
});
