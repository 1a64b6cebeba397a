import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  AVAILABLE_MODES,
  conntrackSysctls,
  decodeConfiguration,
  validateConfiguration,
  withDefaults,
} from '@kpng/kube-proxy';
import { overlayNames, renderOverlay } from '../kustomize/overlays.js';
import type { Resource } from '../kustomize/render.js';
import { splitImage } from '../kustomize/images.js';
import { images } from '../docker/images.js';
import { validateObject } from './validate.js';

/* Minimal typed views of what the assertions read. */
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: {
      fieldRef?: { fieldPath: string };
      configMapKeyRef?: { name: string; key: string; optional?: boolean };
    };
  }[];
  ports?: { name?: string; containerPort: number }[];
  livenessProbe?: { httpGet?: { path: string; port: number } };
  readinessProbe?: { httpGet?: { path: string; port: number } };
  securityContext?: {
    privileged?: boolean;
    runAsUser?: number;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { add?: string[]; drop?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  serviceAccountName?: string;
  nodeSelector?: Record<string, string>;
  securityContext?: { windowsOptions?: { hostProcess?: boolean; runAsUserName?: string } };
  hostNetwork?: boolean;
  dnsPolicy?: string;
  priorityClassName?: string;
  tolerations?: { key?: string; operator?: string; effect?: string }[];
  containers: Container[];
  volumes?: {
    name: string;
    hostPath?: { path: string; type?: string };
    emptyDir?: object;
    configMap?: { name: string };
    secret?: { secretName: string; defaultMode?: number };
  }[];
}
interface Workload {
  overlay: string;
  resource: Resource;
  selector: Record<string, string>;
  labels: Record<string, string>;
  pod: PodSpec;
}

const rendered = Object.fromEntries(overlayNames().map((o) => [o, renderOverlay(o)]));
const workloads: Workload[] = Object.entries(rendered).flatMap(([overlay, rs]) =>
  rs
    .filter((r) => r.kind === 'DaemonSet' || r.kind === 'Deployment')
    .map((r) => {
      const spec = r['spec'] as unknown as {
        selector: { matchLabels: Record<string, string> };
        template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
      };
      return {
        overlay,
        resource: r,
        selector: spec.selector.matchLabels,
        labels: spec.template.metadata.labels,
        pod: spec.template.spec,
      };
    }),
);
/** Windows nodes run HostProcess pods: no capabilities, no /lib/modules; checked on their own below. */
const onWindows = (w: Workload) => w.pod.nodeSelector?.['kubernetes.io/os'] === 'windows';
/** The NetworkPolicy enforcer's DaemonSet runs beside a proxy, not as one: checked on its own below. */
const isNetpol = (w: Workload) => w.overlay === 'netpol';
const nodeProxies = workloads.filter((w) => w.resource.kind === 'DaemonSet' && !onWindows(w) && !isNetpol(w));
const windowsProxies = workloads.filter((w) => w.resource.kind === 'DaemonSet' && onWindows(w));
const byName = (w: Workload, name: string) => w.pod.containers.find((c) => c.name === name)!;
const flags = (c: Container) => [...(c.command ?? []).slice(1), ...(c.args ?? [])];
const flag = (c: Container, name: string) =>
  flags(c)
    .find((a) => a.startsWith(`--${name}=`))
    ?.slice(name.length + 3);
/** Containers that program the kernel: they run a backend (the kpng-nft or kube-proxy image). */
const programsKernel = (c: Container) => /\/(kpng-nft|kube-proxy)(:|$)/.test(c.image);

describe('overlays', () => {
  it('are the four deployment modes, plus Windows nodes and NetworkPolicy enforcement (alone, or in the compat kube-proxy)', () => {
    expect(Object.keys(rendered)).toEqual([
      'central',
      'kube-proxy',
      'kube-proxy-netpol',
      'netpol',
      'nft',
      'split',
      'win-kernel',
    ]);
  });

  it.each(
    Object.entries(rendered).flatMap(([o, rs]) => rs.map((r) => [`${o}: ${r.kind} ${r.metadata.name}`, r] as const)),
  )('%s validates against the Kubernetes schema, with no unknown field', async (_id, r) => {
    expect(await validateObject(r)).toEqual([]);
  });

  it('validation does catch a wrong type and a misplaced field', async () => {
    const ds = structuredClone(rendered['nft']!.find((r) => r.kind === 'DaemonSet')!) as any;
    ds.spec.template.spec.containers[0].ports[0].containerPort = '10249';
    ds.spec.template.spec.containers[0].hostNetwork = true;
    const problems = await validateObject(ds);
    expect(problems).toContain('/spec/template/spec/containers/0/ports/0/containerPort must be integer');
    expect(problems).toContain('spec.template.spec.containers[0].hostNetwork: unknown field');
  });

  it.each(Object.keys(rendered))('%s: everything lives in kube-system, every reference resolves', (o) => {
    const rs = rendered[o]!;
    const has = (kind: string, name: string) => rs.some((r) => r.kind === kind && r.metadata.name === name);
    for (const r of rs.filter((x) => !x.kind.startsWith('Cluster')))
      expect(r.metadata['namespace'], `${r.kind} ${r.metadata.name}`).toBe('kube-system');
    for (const w of workloads.filter((x) => x.overlay === o)) {
      expect(has('ServiceAccount', w.pod.serviceAccountName!), `${w.resource.metadata.name}: service account`).toBe(
        true,
      );
      for (const [k, v] of Object.entries(w.selector)) expect(w.labels[k], `selector ${k}`).toBe(v);
      for (const c of w.pod.containers) {
        for (const e of c.env ?? []) {
          const ref = e.valueFrom?.configMapKeyRef;
          if (ref && !ref.optional) expect(has('ConfigMap', ref.name), `${c.name}: ConfigMap ${ref.name}`).toBe(true);
        }
        for (const m of c.volumeMounts ?? [])
          expect(
            w.pod.volumes?.some((v) => v.name === m.name),
            `${c.name}: volume ${m.name}`,
          ).toBe(true);
      }
      for (const v of w.pod.volumes ?? [])
        // kube-root-ca.crt: the cluster CA, which the control plane publishes in every namespace.
        if (v.configMap && v.configMap.name !== 'kube-root-ca.crt')
          expect(has('ConfigMap', v.configMap.name), `volume ${v.name}`).toBe(true);
    }
    for (const b of rs.filter((r) => r.kind === 'ClusterRoleBinding')) {
      const rb = b as unknown as {
        roleRef: { name: string };
        subjects: { kind: string; name: string; namespace: string }[];
      };
      expect(has('ClusterRole', rb.roleRef.name), `${b.metadata.name}: role`).toBe(true);
      for (const s of rb.subjects)
        expect(has('ServiceAccount', s.name) && s.namespace === 'kube-system', `${b.metadata.name}: ${s.name}`).toBe(
          true,
        );
    }
  });

  it.each(Object.keys(rendered))('%s: every image is one built from deploy/images, with a pinned tag', (o) => {
    const built = new Set(images().map((i) => `kpng/${i.name}`));
    for (const w of workloads.filter((x) => x.overlay === o)) {
      for (const c of w.pod.containers) {
        const ref = splitImage(c.image);
        expect(built.has(ref.name), `${c.name}: ${c.image}`).toBe(true);
        expect(ref.tag ?? ref.digest, `${c.name}: ${c.image} tag`).toMatch(/^(\d+\.\d+\.\d+.*|sha256:.*)$/);
      }
    }
  });
});

describe('RBAC is least privilege', () => {
  const roles = Object.values(rendered)
    .flat()
    .filter((r) => r.kind === 'ClusterRole');
  const rules = (r: Resource) => r['rules'] as { apiGroups: string[]; resources: string[]; verbs: string[] }[];

  it('reads only services, nodes, endpointslices and servicecidrs (the enforcer: pods, namespaces, networkpolicies too); writes only events; no wildcard', () => {
    const proxy: Record<string, string[]> = {
      '': ['services', 'nodes'],
      'discovery.k8s.io': ['endpointslices'],
      'networking.k8s.io': ['servicecidrs'],
    };
    const enforcer: Record<string, string[]> = {
      '': [...proxy['']!, 'pods', 'namespaces'],
      'discovery.k8s.io': proxy['discovery.k8s.io']!,
      'networking.k8s.io': [...proxy['networking.k8s.io']!, 'networkpolicies'],
    };
    expect(roles.map((r) => r.metadata.name)).toContain('kpng-netpol');
    for (const role of roles) {
      const read = role.metadata.name === 'kpng-netpol' ? enforcer : proxy;
      for (const rule of rules(role)) {
        for (const x of [...rule.apiGroups, ...rule.resources, ...rule.verbs])
          expect(x, role.metadata.name).not.toBe('*');
        for (const g of rule.apiGroups) {
          for (const res of rule.resources) {
            if (res === 'events') {
              expect(['', 'events.k8s.io']).toContain(g);
              expect(
                rule.verbs.every((v) => v === 'create' || v === 'patch'),
                `${role.metadata.name}: events ${rule.verbs}`,
              ).toBe(true);
            } else {
              expect(read[g] ?? [], `${role.metadata.name}: ${g}/${res}`).toContain(res);
              expect(
                rule.verbs.every((v) => ['get', 'list', 'watch'].includes(v)),
                `${role.metadata.name}: ${res} ${rule.verbs}`,
              ).toBe(true);
            }
          }
        }
      }
    }
  });

  it('the proxy role can list and watch all three kinds it informs on', () => {
    const kpng = roles.find((r) => r.metadata.name === 'kpng')!;
    const can = (g: string, res: string, verb: string) =>
      rules(kpng).some((r) => r.apiGroups.includes(g) && r.resources.includes(res) && r.verbs.includes(verb));
    for (const [g, res] of [
      ['', 'services'],
      ['', 'nodes'],
      ['discovery.k8s.io', 'endpointslices'],
    ] as const) {
      for (const verb of ['list', 'watch']) expect(can(g, res, verb), `${g}/${res} ${verb}`).toBe(true);
    }
    expect(can('events.k8s.io', 'events', 'create')).toBe(true);
  });

  it('central-mode node agents get no read access to the API at all', () => {
    const agent = workloads.find((w) => w.overlay === 'central' && w.resource.kind === 'DaemonSet')!;
    const binding = rendered['central']!.find(
      (r) =>
        r.kind === 'ClusterRoleBinding' &&
        (r['subjects'] as { name: string }[]).some((s) => s.name === agent.pod.serviceAccountName),
    )!;
    const role = roles.find((r) => r.metadata.name === (binding['roleRef'] as { name: string }).name)!;
    expect(rules(role).flatMap((r) => r.resources)).toEqual(['events']);
  });
});

describe.each(nodeProxies.map((w) => [`${w.overlay}/${w.resource.metadata.name}`, w] as const))(
  'node proxy DaemonSet %s',
  (_id, w) => {
    const backend = w.pod.containers.find(programsKernel)!;

    it('runs on every node, on the host network, as a node-critical pod', () => {
      expect(w.pod.hostNetwork).toBe(true);
      expect(w.pod.dnsPolicy).toBe('ClusterFirstWithHostNet');
      expect(w.pod.priorityClassName).toBe('system-node-critical');
      for (const effect of ['NoSchedule', 'NoExecute']) {
        expect(w.pod.tolerations, effect).toContainEqual({ operator: 'Exists', effect });
      }
    });

    it('has exactly one kernel-programming container: root with NET_ADMIN and NET_RAW only, not privileged', () => {
      expect(w.pod.containers.filter(programsKernel)).toHaveLength(1);
      const sc = backend.securityContext!;
      expect(sc.privileged).toBe(false);
      expect(sc.allowPrivilegeEscalation).toBe(false);
      expect(sc.runAsUser).toBe(0);
      expect(sc.capabilities?.drop).toEqual(['ALL']);
      expect([...(sc.capabilities?.add ?? [])].sort()).toEqual(['NET_ADMIN', 'NET_RAW']);
      for (const c of w.pod.containers.filter((x) => x !== backend)) {
        expect(c.securityContext?.capabilities, c.name).toEqual({ drop: ['ALL'] });
        expect(c.securityContext?.privileged, c.name).toBe(false);
      }
    });

    it('knows its node name and mounts what kube-proxy mounts', () => {
      for (const c of w.pod.containers) {
        expect(c.env, c.name).toContainEqual({
          name: 'NODE_NAME',
          valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } },
        });
      }
      const mount = (path: string) => backend.volumeMounts?.find((m) => m.mountPath === path);
      const volume = (name: string | undefined) => w.pod.volumes?.find((v) => v.name === name);
      expect(mount('/lib/modules')?.readOnly).toBe(true);
      expect(volume(mount('/lib/modules')?.name)?.hostPath).toEqual({ path: '/lib/modules' });
      expect(volume(mount('/run/xtables.lock')?.name)?.hostPath).toEqual({
        path: '/run/xtables.lock',
        type: 'FileOrCreate',
      });
    });

    it('is probed on /livez (liveness) and /healthz (readiness) at the port its health server binds', () => {
      expect(backend.livenessProbe?.httpGet).toEqual({ path: '/livez', port: 10256 });
      expect(backend.readinessProbe?.httpGet).toEqual({ path: '/healthz', port: 10256 });
      const bind = flag(backend, 'healthz-bind-address') ?? '0.0.0.0:10256'; // compat: config.conf, checked below
      expect(bind).toBe('0.0.0.0:10256');
    });

    it('binds no host port twice, even beside a central core on the same node', () => {
      const central = workloads.filter(
        (x) => x.overlay === w.overlay && x.resource.kind === 'Deployment' && x.pod.hostNetwork,
      );
      const ports = [w, ...central].flatMap((x) =>
        x.pod.containers.flatMap((c) => (c.ports ?? []).map((p) => p.containerPort)),
      );
      expect(ports.length).toBeGreaterThan(0);
      expect(new Set(ports).size).toBe(ports.length);
      for (const x of [w, ...central]) {
        for (const c of x.pod.containers) {
          for (const f of ['metrics-bind-address', 'healthz-bind-address']) {
            const v = flag(c, f);
            if (v)
              expect(
                c.ports?.map((p) => p.containerPort),
                `${c.name} --${f}`,
              ).toContain(Number(v.split(':').at(-1)));
          }
        }
      }
    });
  },
);

describe.each(windowsProxies.map((w) => [`${w.overlay}/${w.resource.metadata.name}`, w] as const))(
  'Windows node proxy DaemonSet %s',
  (_id, w) => {
    const c = w.pod.containers[0]!;

    it('runs one HostProcess container as SYSTEM on every Windows node, as a node-critical pod', () => {
      expect(w.pod.containers).toHaveLength(1);
      expect(splitImage(c.image).name).toBe('kpng/kpng-win-kernel');
      expect(w.pod.hostNetwork).toBe(true);
      expect(w.pod.securityContext?.windowsOptions).toEqual({
        hostProcess: true,
        runAsUserName: 'NT AUTHORITY\\SYSTEM',
      });
      expect(w.pod.priorityClassName).toBe('system-node-critical');
      for (const effect of ['NoSchedule', 'NoExecute'])
        expect(w.pod.tolerations, effect).toContainEqual({ operator: 'Exists', effect });
    });

    it("never selects the Linux proxies' pods, and has a name of its own", () => {
      for (const linux of nodeProxies) {
        const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
          Object.entries(selector).every(([k, v]) => labels[k] === v);
        expect(matches(w.selector, linux.labels), linux.overlay).toBe(false);
        expect(w.resource.metadata.name).not.toBe(linux.resource.metadata.name);
      }
    });

    it('knows its node and HNS network, is probed on /livez and /healthz, binds each port once', () => {
      expect(c.env).toContainEqual({ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } });
      expect(flag(c, 'network-name')).toBe('$(KUBE_NETWORK)');
      expect(c.env?.find((e) => e.name === 'KUBE_NETWORK')?.value).toBeTruthy();
      expect(c.livenessProbe?.httpGet).toEqual({ path: '/livez', port: 10256 });
      expect(c.readinessProbe?.httpGet).toEqual({ path: '/healthz', port: 10256 });
      expect(flag(c, 'healthz-bind-address')).toBe('0.0.0.0:10256');
      const ports = (c.ports ?? []).map((p) => p.containerPort);
      expect(new Set(ports).size).toBe(ports.length);
      for (const f of ['metrics-bind-address', 'healthz-bind-address'])
        expect(ports).toContain(Number(flag(c, f)!.split(':').at(-1)));
    });
  },
);

describe('netpol overlay', () => {
  const w = workloads.find(isNetpol)!;
  const c = w.pod.containers[0]!;

  it('runs kpng-netpol alone on every Linux node, on the host network, as a node-critical pod', () => {
    expect(w.resource.kind).toBe('DaemonSet');
    expect(w.pod.containers).toHaveLength(1);
    expect(splitImage(c.image).name).toBe('kpng/kpng-netpol');
    expect(flags(c)).not.toContain('--connect');
    expect(w.pod.hostNetwork).toBe(true);
    expect(w.pod.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux' });
    expect(w.pod.priorityClassName).toBe('system-node-critical');
    for (const effect of ['NoSchedule', 'NoExecute'])
      expect(w.pod.tolerations, effect).toContainEqual({ operator: 'Exists', effect });
    expect(c.env).toContainEqual({ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } });
  });

  it('runs as root with NET_ADMIN only (nft is all it executes), not privileged', () => {
    const sc = c.securityContext!;
    expect(sc.privileged).toBe(false);
    expect(sc.allowPrivilegeEscalation).toBe(false);
    expect(sc.runAsUser).toBe(0);
    expect(sc.capabilities).toEqual({ drop: ['ALL'], add: ['NET_ADMIN'] });
  });

  it('runs as its own service account, bound to the enforcer role', () => {
    const binding = rendered['netpol']!.find(
      (r) =>
        r.kind === 'ClusterRoleBinding' &&
        (r['subjects'] as { name: string }[]).some((s) => s.name === w.pod.serviceAccountName),
    )!;
    expect(w.pod.serviceAccountName).toBe('kpng-netpol');
    expect((binding['roleRef'] as { name: string }).name).toBe('kpng-netpol');
  });

  it('is probed at the port its health server binds, and binds no port any proxy or core binds beside it', () => {
    expect(c.livenessProbe?.httpGet).toEqual({ path: '/livez', port: 10264 });
    expect(c.readinessProbe?.httpGet).toEqual({ path: '/healthz', port: 10264 });
    const own = (c.ports ?? []).map((p) => p.containerPort);
    for (const f of ['metrics-bind-address', 'healthz-bind-address'])
      expect(own, f).toContain(Number(flag(c, f)!.split(':').at(-1)));
    const others = workloads
      .filter((x) => x !== w && x.pod.hostNetwork && !onWindows(x))
      .flatMap((x) => x.pod.containers.flatMap((o) => (o.ports ?? []).map((p) => p.containerPort)));
    expect(others.length).toBeGreaterThan(0);
    for (const port of own) expect(others, String(port)).not.toContain(port);
  });
});

describe('split overlay', () => {
  const w = workloads.find((x) => x.overlay === 'split')!;

  it('runs the core and the backend in two containers sharing /run/kpng', () => {
    expect(w.pod.containers.map((c) => c.name).sort()).toEqual(['kpng', 'kpng-core']);
    const run = w.pod.volumes!.find((v) => v.name === 'kpng-run')!;
    expect(run.emptyDir).toEqual({});
    for (const c of w.pod.containers)
      expect(c.volumeMounts, c.name).toContainEqual({ name: 'kpng-run', mountPath: '/run/kpng' });
  });

  it('the core serves the node-local stream on the socket the backend dials', () => {
    const core = byName(w, 'kpng-core');
    const backend = byName(w, 'kpng');
    expect(splitImage(core.image).name).toBe('kpng/kpng');
    expect(flag(core, 'listen')).toBe('unix:///run/kpng/kpng.sock');
    expect(flags(backend).some((a) => a.endsWith('=unix:///run/kpng/kpng.sock'))).toBe(true);
    expect(flags(backend)).not.toContain('--backend');
  });
});

describe('central overlay', () => {
  /** The read-only mount holding `path`, and the volume behind it. */
  function mountOf(w: Workload, c: Container, path: string) {
    const mount = c.volumeMounts!.find((m) => path.startsWith(m.mountPath + '/'))!;
    expect(mount.readOnly, `${c.name}: ${path} read-only`).toBe(true);
    return { file: path.slice(mount.mountPath.length + 1), volume: w.pod.volumes!.find((v) => v.name === mount.name)! };
  }
  const central = workloads.find((x) => x.overlay === 'central' && x.resource.kind === 'Deployment')!;
  const agents = workloads.find((x) => x.overlay === 'central' && x.resource.kind === 'DaemonSet')!;
  const rs = rendered['central']!;

  it('runs one core serving the global model on 12090, behind a Service', () => {
    const c = central.pod.containers[0]!;
    expect((central.resource['spec'] as { replicas: number }).replicas).toBe(1);
    expect(flag(c, 'global-listen')).toBe('0.0.0.0:12090');
    expect(flag(c, 'listen')).toBe('none');
    // Its own certificate: one Secret, readable by the container's user and by no one else.
    const cert = mountOf(central, c, flag(c, 'global-tls-cert')!);
    const key = mountOf(central, c, flag(c, 'global-tls-key')!);
    expect([cert.file, key.file]).toEqual(['tls.crt', 'tls.key']);
    expect(key.volume).toBe(cert.volume);
    expect(cert.volume.secret!.secretName).toBe('kpng-central-tls');
    expect(cert.volume.secret!.defaultMode! & 0o007, 'no access for others').toBe(0);
    // Client CA: the cluster CA, which signs the kubelets' client certificates.
    const clientCa = mountOf(central, c, flag(c, 'global-tls-client-ca')!);
    expect([clientCa.file, clientCa.volume.configMap]).toEqual(['ca.crt', { name: 'kube-root-ca.crt' }]);
    expect(c.securityContext?.capabilities).toEqual({ drop: ['ALL'] });
    expect((central.resource['spec'] as any).template.spec.securityContext.runAsNonRoot).toBe(true);
    const svc = rs.find((r) => r.kind === 'Service')!['spec'] as {
      selector: Record<string, string>;
      ports: { port: number; targetPort: string }[];
    };
    for (const [k, v] of Object.entries(svc.selector)) expect(central.labels[k]).toBe(v);
    expect(svc.ports).toContainEqual(expect.objectContaining({ port: 12090, targetPort: 'global-stream' }));
    expect(c.ports).toContainEqual(expect.objectContaining({ name: 'global-stream', containerPort: 12090 }));
  });

  it('node agents consume the central core (address from a ConfigMap) and program nftables', () => {
    const a = byName(agents, 'kpng');
    expect(flag(a, 'api')).toBe('$(KPNG_CENTRAL_ADDRESS)');
    // Each agent's own identity: the kubelet's client certificate (CN system:node:NAME) from the host,
    // and the node it names comes from spec.nodeName.
    const cert = mountOf(agents, a, flag(a, 'api-tls-cert')!);
    expect(flag(a, 'api-tls-key')).toBe(flag(a, 'api-tls-cert'));
    expect(cert.file).toBe('kubelet-client-current.pem');
    expect(cert.volume.hostPath).toEqual({ path: '/var/lib/kubelet/pki', type: 'Directory' });
    expect(a.env!.find((e) => e.name === 'NODE_NAME')!.valueFrom).toEqual({ fieldRef: { fieldPath: 'spec.nodeName' } });
    const ca = mountOf(agents, a, flag(a, 'api-tls-ca')!);
    expect([ca.file, ca.volume.configMap]).toEqual(['ca.crt', { name: 'kpng-central-ca' }]);
    const ref = a.env!.find((e) => e.name === 'KPNG_CENTRAL_ADDRESS')!.valueFrom!.configMapKeyRef!;
    const cm = rs.find((r) => r.kind === 'ConfigMap' && r.metadata.name === ref.name)!;
    expect((cm['data'] as Record<string, string>)[ref.key]).toMatch(/:12090$/);
    expect(splitImage(a.image).name).toBe('kpng/kpng-nft');
  });
});

describe('kube-proxy compat overlay', () => {
  const w = workloads.find((x) => x.overlay === 'kube-proxy')!;
  const c = w.pod.containers[0]!;
  const cm = rendered['kube-proxy']!.find((r) => r.kind === 'ConfigMap' && r.metadata.name === 'kube-proxy')!;
  const config = parse((cm['data'] as Record<string, string>)['config.conf']!) as Record<string, unknown>;

  it("keeps kubeadm's names, selector and command line", () => {
    expect(w.resource.metadata.name).toBe('kube-proxy');
    expect(w.selector).toEqual({ 'k8s-app': 'kube-proxy' });
    expect(c.command).toEqual([
      '/usr/local/bin/kube-proxy',
      '--config=/var/lib/kube-proxy/config.conf',
      '--hostname-override=$(NODE_NAME)',
    ]);
    const mount = c.volumeMounts!.find((m) => m.mountPath === '/var/lib/kube-proxy')!;
    expect(w.pod.volumes!.find((v) => v.name === mount.name)!.configMap).toEqual({ name: 'kube-proxy' });
  });

  it('carries a KubeProxyConfiguration for nftables mode whose ports match the probes and scrape', () => {
    expect(config['apiVersion']).toBe('kubeproxy.config.k8s.io/v1alpha1');
    expect(config['kind']).toBe('KubeProxyConfiguration');
    expect(config['mode']).toBe('nftables');
    expect(config['healthzBindAddress']).toBe('0.0.0.0:10256');
    expect(config['metricsBindAddress']).toBe('0.0.0.0:10249');
    expect(c.ports).toContainEqual({ name: 'metrics', containerPort: 10249, protocol: 'TCP' });
  });

  it("decodes strictly and validates with @kpng/kube-proxy's own configuration code", () => {
    const decoded = decodeConfiguration((cm['data'] as Record<string, string>)['config.conf']!);
    expect(decoded.warnings).toEqual([]);
    const effective = withDefaults(decoded.config);
    expect(validateConfiguration(effective, { availableModes: AVAILABLE_MODES }).map(String)).toEqual([]);
    expect(effective.mode).toBe('nftables');
  });

  it('leaves conntrack sysctls alone, which is what lets it run unprivileged', () => {
    expect(config['conntrack']).toMatchObject({
      maxPerCore: 0,
      min: 0,
      tcpEstablishedTimeout: '0s',
      tcpCloseWaitTimeout: '0s',
    });
    const effective = withDefaults(decodeConfiguration((cm['data'] as Record<string, string>)['config.conf']!).config);
    expect(conntrackSysctls(effective.conntrack, 64)).toEqual([]);
  });
});

describe('kube-proxy-netpol overlay (compat kube-proxy enforcing NetworkPolicy in process)', () => {
  const configOf = (overlay: string): string => {
    const cm = rendered[overlay]!.find((r) => r.kind === 'ConfigMap' && r.metadata.name === 'kube-proxy')!;
    return (cm['data'] as Record<string, string>)['config.conf']!;
  };
  const daemonSet = (overlay: string) => workloads.find((x) => x.overlay === overlay)!.resource;

  it("is the kube-proxy overlay's DaemonSet and configuration, with enforceNetworkPolicy: true", () => {
    expect(daemonSet('kube-proxy-netpol')).toEqual(daemonSet('kube-proxy'));
    const compat = parse(configOf('kube-proxy')) as Record<string, unknown>;
    const enforcing = parse(configOf('kube-proxy-netpol')) as Record<string, unknown>;
    expect(compat['enforceNetworkPolicy']).toBeUndefined();
    expect(enforcing).toEqual({ ...compat, enforceNetworkPolicy: true });
  });

  it("decodes strictly and validates with @kpng/kube-proxy's own configuration code, enforcing", () => {
    const decoded = decodeConfiguration(configOf('kube-proxy-netpol'));
    expect(decoded.warnings).toEqual([]);
    const effective = withDefaults(decoded.config);
    expect(validateConfiguration(effective, { availableModes: AVAILABLE_MODES }).map(String)).toEqual([]);
    expect(effective.enforceNetworkPolicy).toBe(true);
  });

  it("binds the enforcer's role to the proxy's account, and runs no separate enforcer", () => {
    const resources = rendered['kube-proxy-netpol']!;
    const pod = workloads.find((x) => x.overlay === 'kube-proxy-netpol')!.pod;
    const bindings = resources.filter((r) => r.kind === 'ClusterRoleBinding');
    expect(
      bindings.some(
        (b) =>
          (b['roleRef'] as { name: string }).name === 'kpng-netpol' &&
          (b['subjects'] as { kind: string; name: string; namespace: string }[]).some(
            (s) => s.kind === 'ServiceAccount' && s.name === pod.serviceAccountName && s.namespace === 'kube-system',
          ),
      ),
    ).toBe(true);
    expect(resources.find((r) => r.kind === 'ClusterRole' && r.metadata.name === 'kpng-netpol')).toEqual(
      rendered['netpol']!.find((r) => r.kind === 'ClusterRole' && r.metadata.name === 'kpng-netpol'),
    );
    expect(workloads.filter((x) => x.overlay === 'kube-proxy-netpol')).toHaveLength(1);
  });
});
