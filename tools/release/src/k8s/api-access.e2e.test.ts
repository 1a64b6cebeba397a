// The netpol overlay's container, run as its manifest runs it (its image's entrypoint program and
// args, from the built workspace package) against the lab's fake API server, with its nft writes
// in a network namespace this test creates and deletes: every request it makes must be one its
// ClusterRole grants, and every read the role grants must be one it makes (least privilege).
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnChild, type ProcessExit } from '@kpng/kit';
import {
  createNamespace,
  FakeApiServer,
  kernelE2e,
  kubeconfigFor,
  sweepLeftovers,
  type NetworkNamespace,
  type RecordedRequest,
} from '@kpng/lab';
import { requireBuilt } from '../built.js';
import { entrypointProgram, images } from '../docker/images.js';
import { splitImage } from '../kustomize/images.js';
import { renderOverlay } from '../kustomize/overlays.js';
import type { Resource } from '../kustomize/render.js';

interface Container {
  image: string;
  args?: string[];
}
interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** `group/resource verb` of a request, from its path (`/api/v1/...`: the core group). */
function access(r: Pick<RecordedRequest, 'path' | 'verb'>): { group: string; resource: string; verb: string } {
  const parts = r.path
    .split('?')[0]!
    .split('/')
    .filter((p) => p !== '');
  const [root, ...rest] = parts;
  const group = root === 'api' ? '' : (rest.shift() ?? '');
  rest.shift(); // the version
  // namespaces/NS/RESOURCE[/NAME] is a namespaced resource; namespaces[/NAME] is the Namespace kind.
  const resource = rest[0] === 'namespaces' && rest.length >= 3 ? rest[2]! : (rest[0] ?? '');
  return { group, resource, verb: r.verb };
}

const e2e = await kernelE2e('api-access');
const NODE = 'node-a';
const overlay = renderOverlay('netpol');
const daemonSet = overlay.find((r) => r.kind === 'DaemonSet')!;
const container = (daemonSet['spec'] as unknown as { template: { spec: { containers: Container[] } } }).template.spec
  .containers[0]!;
const role = overlay.find((r: Resource) => r.kind === 'ClusterRole')!;
const rules = role['rules'] as unknown as Rule[];
const grants = (group: string, resource: string, verb: string) =>
  rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe.skipIf(!e2e.run)('netpol overlay: what kpng-netpol asks the API server for', () => {
  it('is what its ClusterRole grants, and the role grants no read it does not make', async ({ skip }) => {
    const image = images().find((i) => `kpng/${i.name}` === splitImage(container.image).name)!;
    const program = entrypointProgram(image);
    requireBuilt([program.file.pkg], skip);
    await sweepLeftovers();
    const ns: NetworkNamespace = await createNamespace('api-access');
    cleanups.push(() => ns.delete());
    const api = await FakeApiServer.start();
    cleanups.push(() => api.close());
    const kubeconfig = await kubeconfigFor(api);
    cleanups.push(() => kubeconfig.remove());
    api.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
    api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', labels: { team: 'a' } } });
    api.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { namespace: 'default', name: 'web', labels: { app: 'web' } },
      spec: { nodeName: NODE, containers: [{ name: 'web' }] },
      status: { phase: 'Running', podIPs: [{ ip: '198.18.1.10' }] },
    });
    api.create({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { namespace: 'default', name: 'web' },
      spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [] },
    });

    // The manifest's args, without its servers (they would bind the host's ports, which are not the test's).
    const servers = ['--metrics-bind-address', '--healthz-bind-address'];
    const args = (container.args ?? []).filter((a) => !servers.includes(a.split('=')[0]!));
    expect(args.length + servers.length).toBe((container.args ?? []).length);
    let stderr = '';
    const child = spawnChild(
      [
        process.execPath,
        join(program.file.pkg.dir, program.file.file),
        ...program.args,
        ...args,
        '--kubeconfig',
        kubeconfig.path,
        '--node-name',
        NODE,
        '--netns',
        ns.name,
        ...servers.flatMap((f) => [f, '']),
      ],
      { onStderr: (d) => (stderr = (stderr + d.toString()).slice(-4000)) },
    );
    let exit: ProcessExit | undefined;
    const exited = child.exited.then((e) => (exit = e).exitCode);
    cleanups.push(async () => (child.kill('SIGKILL'), await exited));

    /** Every list and watch the role grants, as `group/resource verb`. */
    const grantedReads = rules.flatMap((rule) =>
      rule.apiGroups.flatMap((group) =>
        rule.resources.flatMap((resource) =>
          rule.verbs.filter((v) => v === 'list' || v === 'watch').map((verb) => `${group}/${resource} ${verb}`),
        ),
      ),
    );
    const made = () =>
      new Set(
        api.requests().map((r) => {
          const a = access(r);
          return `${a.group}/${a.resource} ${a.verb}`;
        }),
      );
    // Enforced (the isolated pod is in the table's verdict map), and every granted read made (the
    // informers start apart: ServiceCIDRs' after a probe of the served version). The deadline only
    // bounds a hung program (generous: a loaded CI machine starts node slowly); past it, the
    // assertions below say which read is missing.
    const deadline = Date.now() + 90_000;
    for (;;) {
      const r = await ns.exec(['nft', 'list', 'map', 'inet', 'kpng-netpol', 'ingress-pods-v4'], { check: false });
      const enforced = r.stdout.includes('198.18.1.10');
      const seen = made();
      if (enforced && grantedReads.every((g) => seen.has(g))) break;
      if (exit !== undefined || Date.now() > deadline) {
        if (enforced && exit === undefined) break;
        throw new Error(`kpng-netpol never enforced the policy (exit ${exit?.exitCode}): ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const requests = api.requests().map(access);
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests)
      expect(grants(r.group, r.resource, r.verb), `${r.group}/${r.resource} ${r.verb}`).toBe(true);
    const seen = made();
    for (const g of grantedReads) expect(seen, `granted but never made: ${g}`).toContain(g);
  });
});
