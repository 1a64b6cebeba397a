import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSync } from '@kpng/kit';
import { requireBuilt } from '../built.js';
import { splitImage } from '../kustomize/images.js';
import { overlayNames, renderOverlay } from '../kustomize/overlays.js';
import {
  entrypointProgram,
  imagePath,
  images,
  isNode,
  resolveProgram,
  type Image,
  type PackageFile,
} from './images.js';

/*
 * Every container in every overlay runs a program of its image with flags: the program must be
 * in the image, and each flag must be one that program's --help lists. Catches a manifest that
 * drifts from a CLI (a renamed flag, a flag of another program) before a cluster does.
 */

interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
}

const byRepo = new Map(images().map((i) => [`kpng/${i.name}`, i]));

function invocation(image: Image, c: Container): { program: PackageFile; argv: string[] } {
  if (c.command) {
    const [exe, ...rest] = c.command;
    if (isNode(exe!))
      return { program: resolveProgram(image, imagePath(rest[0]!)), argv: [...rest.slice(1), ...(c.args ?? [])] };
    return { program: resolveProgram(image, imagePath(exe!)), argv: [...rest, ...(c.args ?? [])] };
  }
  const ep = entrypointProgram(image);
  return { program: ep.file, argv: [...ep.args, ...(c.args ?? [])] };
}

const cases = overlayNames().flatMap((o) =>
  renderOverlay(o)
    .filter((r) => r.kind === 'DaemonSet' || r.kind === 'Deployment')
    .flatMap((r) =>
      (r['spec'] as unknown as { template: { spec: { containers: Container[] } } }).template.spec.containers.map(
        (c) => [`${o}: ${r.kind} ${r.metadata.name}, container ${c.name}`, c] as const,
      ),
    ),
);

const helpCache = new Map<string, string>();
function help(p: PackageFile): string {
  const file = join(p.pkg.dir, p.file);
  if (!helpCache.has(file)) {
    const r = runSync([process.execPath, file, '--help'], { timeoutMs: 20_000, env: { NODE_NAME: 'help' } });
    expect(r.exitCode, `${p.pkg.manifest.name} ${p.file} --help: ${r.stderr}`).toBe(0);
    helpCache.set(file, `${r.stdout}\n${r.stderr}`);
  }
  return helpCache.get(file)!;
}

describe.each(cases)('%s', (_id, c) => {
  const image = byRepo.get(splitImage(c.image).name);

  it('runs a program its image installs', () => {
    expect(image, c.image).toBeDefined();
    const { program } = invocation(image!, c);
    expect(image!.packages).toContain(program.pkg);
  });

  it("passes only flags the program's --help lists", ({ skip }) => {
    const { program, argv } = invocation(image!, c);
    requireBuilt([program.pkg], skip);
    const text = help(program);
    const used = argv.filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]!);
    expect(used.length).toBeGreaterThan(0);
    for (const f of used)
      expect(text, `${f} in ${program.pkg.manifest.name} --help`).toMatch(new RegExp(`(^|[\\s,\\[])${f}\\b`, 'm'));
  });

  it('names, with --backend, a module the image installs and that exports its backend module', async () => {
    const { argv } = invocation(image!, c);
    const i = argv.findIndex((a) => a === '--backend' || a.startsWith('--backend='));
    if (i < 0) return void expect(argv.join(' ')).not.toMatch(/--backend/);
    const mod = argv[i]!.includes('=') ? argv[i]!.split('=')[1]! : argv[i + 1]!;
    expect(image!.packages.map((p) => p.manifest.name)).toContain(mod);
    const exports = (await import(/* @vite-ignore */ mod)) as { backend?: { create?: unknown; parseFlags?: unknown } };
    expect(typeof exports.backend?.create, `${mod} backend.create`).toBe('function');
    expect(typeof exports.backend?.parseFlags, `${mod} backend.parseFlags`).toBe('function');
  });
});
