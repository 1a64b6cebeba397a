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

  it('trusts an HTTPS server through its CA, without skipping verification', async () => {
    const ca = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const config = await kubeconfigFor({ url: 'https://127.0.0.1:4321', ca });
    try {
      expect(config.yaml).toContain(`certificate-authority-data: ${ca.toString('base64')}`);
      expect(config.yaml).not.toContain('insecure-skip-tls-verify');
    } finally {
      await config.remove();
    }
  });
});
