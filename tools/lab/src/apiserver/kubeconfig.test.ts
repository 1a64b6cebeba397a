import { access, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { kubeconfigFor } from './kubeconfig.js';

describe('kubeconfigFor', () => {
  it('writes a kubeconfig for the server that skips TLS verification, and removes it', async () => {
    const config = await kubeconfigFor({ url: 'http://127.0.0.1:4321' });
    try {
      expect(await readFile(config.path, 'utf8')).toBe(config.yaml);
      expect(config.yaml).toContain('server: "http://127.0.0.1:4321"');
      expect(config.yaml).toContain('insecure-skip-tls-verify: true');
      expect(config.yaml).toContain('current-context: kpng-lab');
    } finally {
      await config.remove();
    }
    await expect(access(config.path)).rejects.toThrow();
  });
});
