import { missingBuildOutput } from './npm/pack.js';
import { inCi, type WorkspacePackage } from './workspace.js';

/**
 * Checks that need built packages (dist/) call this first. Outside CI a missing build skips the
 * test with a message saying how to build; in CI (`.ci/run` builds before testing, CI=true) it
 * is a failure.
 */
export function requireBuilt(pkgs: readonly WorkspacePackage[], skip: (note: string) => void): void {
  const missing = pkgs.flatMap((p) => missingBuildOutput(p).map((f) => `${p.manifest.name}: ${f}`));
  if (missing.length === 0) return;
  const message = `not built (${missing.join(', ')}); run \`npx nx run-many -t build\` first`;
  if (inCi()) throw new Error(`${message}. CI builds before testing, so this is a build failure.`);
  console.warn(`SKIPPED: ${message}`);
  skip(message);
}
