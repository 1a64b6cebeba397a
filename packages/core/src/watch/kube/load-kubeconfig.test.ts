import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeconfigYaml } from '@kpng/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeConfig } from './load-kubeconfig.js';

describe('loadKubeConfig', () => {
  let dir: string;
  let path: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kpng-kc-'));
    path = join(dir, 'config');
    await writeFile(path, kubeconfigYaml('http://127.0.0.1:1'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads a kubeconfig file', () => {
    const kc = loadKubeConfig({ kubeconfigPath: path });
    expect(kc.getCurrentCluster()).toMatchObject({ server: 'http://127.0.0.1:1', skipTLSVerify: true });
  });

  it('lets the server flag override the current cluster', () => {
    const kc = loadKubeConfig({ kubeconfigPath: path, server: 'http://127.0.0.1:2' });
    expect(kc.getCurrentCluster()).toMatchObject({ server: 'http://127.0.0.1:2', skipTLSVerify: true });
    expect(kc.getCurrentUser()?.token).toBe('kpng-lab-token');
  });
});
