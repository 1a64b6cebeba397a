/**
 * `kubernetes_build_info`, which component-base registers in every Kubernetes binary: a constant 1
 * labelled with the version. Dashboards use its `git_version` to see which kube-proxy runs where;
 * kpng reports its own version (or what `--version=vX.Y.Z` says), with compiler `kpng`.
 */
import { Gauge, type Registry } from 'prom-client';

const GO_ARCH: Readonly<Record<string, string>> = {
  x64: 'amd64',
  ia32: '386',
  arm64: 'arm64',
  arm: 'arm',
  ppc64: 'ppc64le',
  s390x: 's390x',
};

export function registerBuildInfo(registry: Registry, version: string): void {
  const [, major = '', minor = ''] = /^v?(\d+)\.(\d+)/.exec(version) ?? [];
  const gauge = new Gauge({
    name: 'kubernetes_build_info',
    help: "[ALPHA] A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
    labelNames: [
      'major',
      'minor',
      'git_version',
      'git_commit',
      'git_tree_state',
      'build_date',
      'go_version',
      'compiler',
      'platform',
    ] as const,
    registers: [registry],
  });
  gauge.set(
    {
      major,
      minor,
      git_version: version,
      git_commit: '',
      git_tree_state: '',
      build_date: '',
      go_version: '',
      compiler: 'kpng',
      platform: `${process.platform}/${GO_ARCH[process.arch] ?? process.arch}`,
    },
    1,
  );
}
