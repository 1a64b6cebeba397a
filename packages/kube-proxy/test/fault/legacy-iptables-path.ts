// A PATH directory whose `iptables`, `iptables-save`, `iptables-restore` and their ip6tables twins
// are the -legacy tools: what a node does to run the compat kube-proxy on iptables-legacy (it runs
// the `iptables` on PATH, as upstream; the kubernetes-sigs iptables-wrapper and Debian's
// `update-alternatives --set iptables /usr/sbin/iptables-legacy` point the same names at
// xtables-legacy-multi, which acts by the name it is called with).
import { access, constants, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const TOOLS = ['iptables', 'ip6tables'].flatMap((base) => ['', '-save', '-restore'].map((suffix) => [base, suffix]));

/** Where `name` is on PATH (executable), or an error naming what is missing. */
async function onPath(name: string, path: string): Promise<string> {
  for (const dir of path.split(delimiter).filter((d) => d !== '')) {
    const file = join(dir, name);
    if (
      await access(file, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return file;
  }
  throw new Error(`${name} is not on PATH (${path}): install iptables with its legacy tools`);
}

export interface LegacyIptablesPath {
  /** Prepend to PATH. */
  readonly dir: string;
  remove(): Promise<void>;
}

export async function legacyIptablesPath(path = process.env['PATH'] ?? ''): Promise<LegacyIptablesPath> {
  const dir = await mkdtemp(join(tmpdir(), 'kpng-fault-legacy-'));
  try {
    for (const [base, suffix] of TOOLS)
      await symlink(await onPath(`${base}-legacy${suffix}`, path), join(dir, `${base}${suffix}`));
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
