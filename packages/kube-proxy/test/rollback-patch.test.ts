// The rollback step's manifest (deploy/kubernetes/rollback, docs/kube-proxy-swap.md): an init
// container of kpng's image running this package's `kube-proxy --cleanup`, with what the clean-up
// needs (NET_ADMIN, the xtables lock), mounting only volumes kubeadm's DaemonSet has (the same as
// deploy/kubernetes/overlays/kube-proxy's, which keeps kubeadm's).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const deploy = new URL('../../../deploy/kubernetes/', import.meta.url);
const patch = parse(readFileSync(new URL('rollback/kpng-cleanup-init-container.yaml', deploy), 'utf8'));
const daemonSet = parse(readFileSync(new URL('overlays/kube-proxy/daemonset.yaml', deploy), 'utf8'));
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};

describe('the rollback init container', () => {
  const init = patch.spec.template.spec.initContainers[0];

  it("runs kpng's kube-proxy --cleanup from kpng's image, this version", () => {
    expect(Object.keys(pkg.bin)).toContain('kube-proxy');
    expect(init.image).toBe(`kpng/kube-proxy:${pkg.version}`);
    expect(init.command).toEqual(['/usr/local/bin/kube-proxy', '--cleanup']);
    expect(init.securityContext.capabilities.add).toContain('NET_ADMIN');
  });

  it("mounts only volumes kubeadm's DaemonSet has", () => {
    const volumes = (daemonSet.spec.template.spec.volumes as { name: string }[]).map((v) => v.name);
    for (const mount of init.volumeMounts as { name: string }[]) expect(volumes).toContain(mount.name);
    expect((init.volumeMounts as { mountPath: string }[]).map((m) => m.mountPath)).toContain('/run/xtables.lock');
  });
});
