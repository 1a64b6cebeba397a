/** `kube-proxy --help`, generated from the flag table so it cannot drift from what is accepted. */
import { FLAGS } from '../flags/table.js';
import type { FlagSpec } from '../flags/spec.js';

const HEADER = `kube-proxy (kpng): the Kubernetes network proxy, as a drop-in for kube-proxy.

It watches Services, EndpointSlices and this Node, and programs the kernel through kpng's
nftables backend. Only the nftables mode is available in this build; a blank mode means nftables.
With --config, the file is the configuration: of the other flags only --master, --hostname-override,
the logging flags (-v, --vmodule, --logging-format, --log-*) and the actions
(--cleanup, --write-config-to, --init-only) count; the rest are ignored with a warning, as upstream.

Usage:
  kube-proxy [flags]
  kube-proxy explain NAMESPACE/NAME [flags]   (kpng: one Service's rules as this node's kernel holds them)

Flags:
`;

export function usage(): string {
  const rows = FLAGS.filter((f) => !f.hidden && !f.deprecated).map((f) => [left(f), right(f)] as const);
  const width = Math.max(...rows.map(([l]) => l.length)) + 3;
  return HEADER + rows.map(([l, r]) => `${l.padEnd(width)}${r}`).join('\n') + '\n';
}

function left(f: FlagSpec): string {
  const names = f.shorthand ? `  -${f.shorthand}, --${f.name}` : `      --${f.name}`;
  return f.type === '' ? names : `${names} ${f.type}`;
}

function right(f: FlagSpec): string {
  return f.defaultText === undefined ? f.usage : `${f.usage} (default ${f.defaultText})`;
}
