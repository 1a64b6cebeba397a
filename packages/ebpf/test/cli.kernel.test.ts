// The kpng-ebpf program in-process (core over a manifest file + this backend), its programs
// attached to a cgroup this test creates: a Service becomes reachable from a client in that cgroup,
// follows an edit of the manifest, and stopping the program detaches everything. Metrics and health
// servers are disabled (they would listen in the root namespace).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { kernelE2e, Lab, sweepLeftovers, webManifest } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { TestCgroup } from './test-cgroup.js';

const e2e = await kernelE2e('kpng-ebpf program');

describe.skipIf(!e2e.run)('kpng-ebpf in the lab', () => {
  let lab: Lab;
  let cgroup: TestCgroup;
  const dir = mkdtempSync(join(tmpdir(), 'kpng-ebpf-cli-'));
  const file = join(dir, 'cluster.yaml');

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await Lab.create({ pods: ['client', 'pod-a', 'pod-b'] });
    await Promise.all([lab.startEcho('pod-a', [8080]), lab.startEcho('pod-b', [8080])]);
    cgroup = TestCgroup.create();
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    cgroup?.remove();
    await lab?.delete();
  });

  /** Polls the ClusterIP from the cgroup until `pod` answers (the program syncs asynchronously). */
  async function waitFor(pod: string): Promise<string | undefined> {
    let last: string | undefined;
    // 150 tries, 200 ms apart: generous for a program start on a loaded 2-core machine.
    for (let i = 0; i < 150; i++) {
      const [result] = await cgroup.client(lab.pod('client').namespace, { proto: 'tcp', ip: '198.19.0.10', port: 80 });
      last = result?.reply?.split(' ')[0];
      if (last === pod) return last;
      await sleep(200);
    }
    return last;
  }

  it('runs core + backend from a manifest, follows edits, and detaches when stopped', async () => {
    writeFileSync(file, webManifest(lab.pod('pod-a').ipv4));
    const stop = new AbortController();
    const flags = ['--cgroup-root', cgroup.path, '--metrics-bind-address', '', '--healthz-bind-address', ''];
    const running = main(['--file', file, '--node-name', 'node-a', ...flags], {}, stop.signal);
    try {
      expect(await waitFor('pod-a')).toBe('pod-a');
      expect(await cgroup.attached()).toHaveLength(8);
      writeFileSync(file, webManifest(lab.pod('pod-b').ipv4));
      expect(await waitFor('pod-b')).toBe('pod-b');
    } finally {
      stop.abort();
    }
    expect(await running).toBe(0);
    expect(await cgroup.attached()).toEqual([]);
    expect(await main(['--cleanup', ...flags], {})).toBe(0);
  });

  it('refuses a --cgroup-root that is not a cgroup v2 directory, attaching nothing', async () => {
    const stop = new AbortController();
    const flags = ['--cgroup-root', dir, '--metrics-bind-address', '', '--healthz-bind-address', ''];
    await expect(main(['--file', file, '--node-name', 'node-a', ...flags], {}, stop.signal)).rejects.toThrow(
      /is not a cgroup v2 directory/,
    );
    expect(await cgroup.attached()).toEqual([]);
  });
});
