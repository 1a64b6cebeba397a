// The kpng-nft program in-process (core over a manifest file + this backend), programming the
// lab's node: a Service becomes reachable, follows an edit of the manifest, and --cleanup removes
// the tables. Metrics and health servers are disabled (they would listen in the root namespace).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { waitForServer, webManifest } from '@kpng/lab';
import { createLab } from './e2e-helpers.js';
import { kernelE2e, sweepLeftovers, type Lab } from './lab.js';

const e2e = await kernelE2e('kpng-nft program');

describe.skipIf(!e2e.run)('kpng-nft in the lab', () => {
  let lab: Lab;
  const dir = mkdtempSync(join(tmpdir(), 'kpng-nft-cli-'));
  const file = join(dir, 'cluster.yaml');

  beforeAll(async () => {
    await sweepLeftovers();
    lab = await createLab();
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await lab?.delete();
  });

  const waitFor = (pod: string): Promise<string | undefined> =>
    waitForServer(lab, lab.external.namespace, lab.node.ipv4, 30080, pod);

  it('runs core + backend from a manifest, follows edits, and cleans up', async () => {
    writeFileSync(file, webManifest('198.18.1.10'));
    const stop = new AbortController();
    const flags = ['--netns', lab.node.namespace.name, '--metrics-bind-address', '', '--healthz-bind-address', ''];
    const running = main(
      ['--file', file, '--node-name', 'node-a', '--cluster-cidr', '198.18.0.0/22', ...flags],
      {},
      stop.signal,
    );
    try {
      expect(await waitFor('pod-a')).toBe('pod-a');
      writeFileSync(file, webManifest('198.18.1.11'));
      expect(await waitFor('pod-b')).toBe('pod-b');
    } finally {
      stop.abort();
    }
    expect(await running).toBe(0);
    expect(await main(['--cleanup', ...flags], {})).toBe(0);
    const { stdout } = await lab.node.namespace.exec(['nft', 'list', 'tables']);
    expect(stdout.trim()).toBe('');
  });
});
