import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, binMap, type WorkspacePackage } from '../workspace.js';
import { installTarballs, runCommand as run } from './install.js';
import { npmPack } from './pack.js';

/**
 * "npm pack of every package yields a tarball that installs and runs in an empty directory":
 * packs each package, installs all tarballs into a fresh project exactly as the images do
 * (`npm install --omit=dev <tarballs>`; kpng's packages depend on each other by version and
 * are not on a registry, so they must be installed together), then imports every package and
 * runs every bin with --version and --help.
 */

export interface Check {
  readonly what: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface SmokeResult {
  readonly project: string;
  readonly tarballs: readonly string[];
  readonly checks: readonly Check[];
}

export function packSmoke(
  packages: readonly WorkspacePackage[],
  workDir: string,
  log: (line: string) => void = () => {},
): SmokeResult {
  const packs = join(workDir, 'packs');
  const project = join(workDir, 'project');
  mkdirSync(packs, { recursive: true });

  const tarballs = packages.map((p) => {
    const r = npmPack(p, { destination: packs });
    log(`packed ${r.name}@${r.version}: ${r.filename} (${r.files.length} files)`);
    return join(packs, r.filename);
  });

  // The workspace's install-script approvals (npm 11 asks otherwise), nothing else.
  const root = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { allowScripts?: unknown };
  const install = installTarballs(project, tarballs, {
    name: 'kpng-pack-smoke',
    private: true,
    type: 'module',
    allowScripts: root.allowScripts ?? {},
  });
  const checks: Check[] = [
    { what: 'npm install --omit=dev <every tarball>', ok: install.status === 0, detail: install.output },
  ];
  log(`npm install: exit ${install.status}`);
  if (install.status !== 0) return { project, tarballs, checks };

  for (const p of packages) {
    const imp = run(
      process.execPath,
      ['--input-type=module', '-e', `await import(${JSON.stringify(p.manifest.name)})`],
      project,
      60_000,
    );
    checks.push({ what: `import('${p.manifest.name}')`, ok: imp.status === 0, detail: imp.output });
    for (const bin of Object.keys(binMap(p.manifest))) {
      for (const flag of ['--version', '--help']) {
        const r = run(join(project, 'node_modules', '.bin', bin), [flag], project, 60_000);
        const ok = r.status === 0 && r.output.trim().length > 0;
        checks.push({
          what: `${bin} ${flag}`,
          ok,
          detail: `exit ${r.status}: ${r.output.trim().split('\n').slice(0, 3).join(' | ')}`,
        });
        log(`${bin} ${flag}: exit ${r.status}`);
      }
    }
  }
  return { project, tarballs, checks };
}
