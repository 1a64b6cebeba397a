import { runSync } from '@kpng/kit';
import { REPO_ROOT } from '../workspace.js';

/** Nx in scripts: no cloud, no daemon, no terminal UI (TOOLCHAIN.md), and never a prompt. */
export const NX_ENV = {
  NX_NO_CLOUD: 'true',
  NX_DAEMON: 'false',
  NX_TUI: 'false',
  NX_INTERACTIVE: 'false',
  FORCE_COLOR: '0',
  CI: 'true',
};

export function nx(args: readonly string[], timeout = 120_000): { status: number | null; output: string } {
  try {
    const r = runSync(['npx', 'nx', ...args], { cwd: REPO_ROOT, timeoutMs: timeout, env: NX_ENV });
    return { status: r.exitCode, output: `${r.stdout}${r.stderr}` };
  } catch (e) {
    return { status: null, output: String(e) };
  }
}

export interface VersionPlan {
  /** project -> new version */
  readonly versions: ReadonlyMap<string, string>;
  /** tags `git tag` would create */
  readonly tags: readonly string[];
}

/** Parses `nx release version --dry-run --verbose` output. */
export function parseVersionOutput(output: string): VersionPlan {
  const versions = new Map<string, string>();
  for (const m of output.matchAll(/^(\S+) .*New version (\S+) written to manifest/gm)) versions.set(m[1]!, m[2]!);
  const tags = [...output.matchAll(/^git tag --annotate (\S+)/gm)].map((m) => m[1]!);
  return { versions, tags };
}

/** Parses `nx release changelog --dry-run` output: the CHANGELOG.md files it would write, by project. */
export function parseChangelogOutput(output: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of output.matchAll(/Previewing an entry in (\S+CHANGELOG\.md) for (\S+)@(\S+)/g)) out.set(m[2]!, m[1]!);
  return out;
}
