import { describe, expect, it } from 'vitest';
import { publishablePackages } from '../workspace.js';
import { nx, parseChangelogOutput, parseVersionOutput } from './nx-release.js';

/*
 * `nx release` as configured in nx.json must work non-interactively: independent versions, one
 * `{projectName}@{version}` tag and one CHANGELOG.md per package. Dry runs only; they write
 * nothing. The top-level `nx release` refuses granular git options (release.version.git /
 * release.changelog.git), so a release is `nx release version` then `nx release changelog`.
 * --first-release: until the first tags exist, current versions come from package.json.
 */
const packages = publishablePackages();

describe('nx release (dry run)', () => {
  let versions = new Map<string, string>();

  it('`nx release version patch` bumps every package on its own and tags each {projectName}@{version}', () => {
    const r = nx(['release', 'version', 'patch', '--dry-run', '--first-release', '--verbose']);
    expect(r.status, r.output.slice(-3000)).toBe(0);
    expect(r.output).toContain('NOTE: The "dryRun" flag means no changes were made.');
    const plan = parseVersionOutput(r.output);
    for (const p of packages) {
      const v = plan.versions.get(p.manifest.name);
      expect(v, `${p.manifest.name}: its own "New version" line`).toBeDefined();
      const [maj, min, pat] = p.manifest.version.split('.').map(Number);
      expect(v).toBe(`${maj}.${min}.${pat! + 1}`);
      expect(plan.tags, `${p.manifest.name} tag`).toContain(`${p.manifest.name}@${v}`);
    }
    versions = new Map(plan.versions);
  }, 120_000);

  it('`nx release changelog` previews one CHANGELOG.md per package, in the package', ({ skip }) => {
    if (versions.size === 0) return skip('the version step failed (see above)');
    // One run per distinct new version (changelog takes one version for the projects it is given).
    const groups = new Map<string, string[]>();
    for (const p of packages)
      groups.set(versions.get(p.manifest.name)!, [
        ...(groups.get(versions.get(p.manifest.name)!) ?? []),
        p.manifest.name,
      ]);
    const files = new Map<string, string>();
    for (const [version, projects] of groups) {
      const r = nx([
        'release',
        'changelog',
        version,
        '--dry-run',
        '--first-release',
        `--projects=${projects.join(',')}`,
      ]);
      expect(r.status, r.output.slice(-3000)).toBe(0);
      for (const [k, v] of parseChangelogOutput(r.output)) files.set(k, v);
    }
    for (const p of packages) {
      const dir = p.dir.split('/').slice(-2).join('/');
      expect(files.get(p.manifest.name), p.manifest.name).toBe(`${dir}/CHANGELOG.md`);
    }
  }, 120_000);
});
