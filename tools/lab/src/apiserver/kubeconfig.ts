import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LabKubeconfig {
  readonly yaml: string;
  /** A file holding `yaml`, in a fresh temporary folder. */
  readonly path: string;
  /** Deletes the file and its folder. */
  remove(): Promise<void>;
}

/**
 * A kubeconfig pointing at a (fake) API server. With `ca` (an HTTPS server's CA certificate, PEM)
 * the client verifies the server against it (`certificate-authority-data`), as on a real cluster;
 * without, the server speaks plain HTTP, which @kubernetes/client-node only accepts when
 * `insecure-skip-tls-verify` is set.
 */
export function kubeconfigYaml(serverUrl: string, contextName = 'kpng-lab', ca?: Buffer | undefined): string {
  const quoted = JSON.stringify(serverUrl);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${contextName}`,
    '  cluster:',
    `    server: ${quoted}`,
    ca !== undefined
      ? `    certificate-authority-data: ${ca.toString('base64')}`
      : '    insecure-skip-tls-verify: true',
    'users:',
    `- name: ${contextName}`,
    '  user:',
    '    token: kpng-lab-token',
    'contexts:',
    `- name: ${contextName}`,
    '  context:',
    `    cluster: ${contextName}`,
    `    user: ${contextName}`,
    `current-context: ${contextName}`,
    '',
  ].join('\n');
}

export async function kubeconfigFor(server: {
  readonly url: string;
  readonly ca?: Buffer | undefined;
}): Promise<LabKubeconfig> {
  const yaml = kubeconfigYaml(server.url, undefined, server.ca);
  const dir = await mkdtemp(join(tmpdir(), 'kpng-kubeconfig-'));
  const path = join(dir, 'kubeconfig.yaml');
  await writeFile(path, yaml, { mode: 0o600 });
  return { yaml, path, remove: () => rm(dir, { recursive: true, force: true }) };
}
