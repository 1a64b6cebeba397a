// The example manifests (manifests/): valid Kubernetes objects, and consistent with the clients
// they deploy: every client's arguments pass its own flag parser and validation, its policies,
// RBAC and PodMonitor match its pods, and its targets match its selector.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  podCreationConfig,
  podCreationFlags,
  policyCreationConfig,
  policyCreationFlags,
  serviceProgrammingConfig,
  serviceProgrammingFlags,
} from '../src/config/clients.js';

const ROOT = fileURLToPath(new URL('../manifests/', import.meta.url));
/** Stand-ins for the values a user fills in. */
const FILL: Readonly<Record<string, string>> = {
  '{{.kubeAPIServerIP}}': '192.0.2.10',
  CREATED_AT: '2026-01-23T20:10:17.829Z',
};

type Obj = any;

type ModelClass = new (data: unknown) => { validate(): void };
const model = (m: unknown) => m as ModelClass;

const MODELS: Readonly<Record<string, () => Promise<ModelClass>>> = {
  'v1/Namespace': async () => model((await import('kubernetes-models/v1/Namespace')).Namespace),
  'v1/Service': async () => model((await import('kubernetes-models/v1/Service')).Service),
  'v1/ServiceAccount': async () => model((await import('kubernetes-models/v1/ServiceAccount')).ServiceAccount),
  'apps/v1/Deployment': async () => model((await import('kubernetes-models/apps/v1/Deployment')).Deployment),
  'networking.k8s.io/v1/NetworkPolicy': async () =>
    model((await import('kubernetes-models/networking.k8s.io/v1/NetworkPolicy')).NetworkPolicy),
  'rbac.authorization.k8s.io/v1/ClusterRole': async () =>
    model((await import('kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole')).ClusterRole),
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': async () =>
    model((await import('kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding')).ClusterRoleBinding),
};

function load(client: string): Obj[] {
  const dir = join(ROOT, client);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((file) => {
      let text = readFileSync(join(dir, file), 'utf8');
      for (const [from, to] of Object.entries(FILL)) text = text.replaceAll(from, to);
      return parseAllDocuments(text).map((doc) => {
        expect(doc.errors, file).toEqual([]);
        return { ...(doc.toJS() as Obj), file };
      });
    });
}

const CLIENTS = {
  'pod-creation-reachability-latency': (args: string[]) => podCreationConfig(podCreationFlags().parse(args)),
  'policy-creation-enforcement-latency': (args: string[]) => policyCreationConfig(policyCreationFlags().parse(args)),
  'service-programming-latency': (args: string[]) => serviceProgrammingConfig(serviceProgrammingFlags().parse(args)),
} as const;

const matches = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  Object.entries(selector ?? {}).every(([k, v]) => labels[k] === v);
const find = (objs: Obj[], kind: string, name?: string) =>
  objs.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));

describe.each(Object.keys(CLIENTS))('manifests/%s', (client) => {
  const objs = load(client);
  const deployment = objs.find(
    (o) => o.kind === 'Deployment' && o.spec.template.spec.containers[0].command?.[0] === client,
  );
  const container = deployment?.spec.template.spec.containers[0];
  const podLabels: Record<string, string> = deployment?.spec.template.metadata.labels ?? {};

  it('are valid Kubernetes objects', async () => {
    for (const obj of objs) {
      if (obj.kind === 'PodMonitor') continue; // a CRD: checked below
      const model = MODELS[`${obj.apiVersion}/${obj.kind}`];
      expect(model, `${obj.file}: ${obj.apiVersion} ${obj.kind}`).toBeDefined();
      const { file: _file, ...data } = obj;
      const Model = await model!();
      expect(() => new Model(data).validate(), `${obj.file} ${obj.kind} ${obj.metadata.name}`).not.toThrow();
    }
  });

  it('run the client with arguments its own flag parser accepts', () => {
    expect(deployment, 'client Deployment').toBeDefined();
    const env: Record<string, string> = { NODE_IP: '192.0.2.20' };
    const args = (container.args as string[]).map((a) => a.replace(/\$\((\w+)\)/g, (_, v: string) => env[v] ?? ''));
    const config = CLIENTS[client as keyof typeof CLIENTS](args);
    const port = container.ports.find((p: Obj) => p.containerPort === config.serve.metricsPort);
    expect(port, 'the metrics port is a named container port').toBeDefined();
    expect(container.readinessProbe.httpGet).toEqual({ path: '/healthz', port: port.name });
  });

  it('have a PodMonitor that selects the client pods and scrapes its metrics port', () => {
    const [monitor] = find(objs, 'PodMonitor');
    expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(matches(monitor.spec.selector.matchLabels, podLabels)).toBe(true);
    expect(container.ports.map((p: Obj) => p.name)).toContain(monitor.spec.podMetricsEndpoints[0].port);
  });

  it("grant the client's service account what it reads", () => {
    const account = deployment.spec.template.spec.serviceAccountName;
    const [binding] = find(objs, 'ClusterRoleBinding').filter((b) =>
      b.subjects.some((s: Obj) => s.name === account && s.namespace === deployment.metadata.namespace),
    );
    expect(binding, 'a binding for the service account').toBeDefined();
    expect(find(objs, 'ServiceAccount', account)).toHaveLength(1);
    const [role] = find(objs, 'ClusterRole', binding.roleRef.name);
    const allowed = (resource: string, verb: string) =>
      role.rules.some((r: Obj) => r.resources.includes(resource) && r.verbs.includes(verb));
    const needs: [string, string][] =
      client === 'service-programming-latency'
        ? [
            ['services', 'get'],
            ['endpointslices', 'list'],
            ['endpointslices', 'watch'],
          ]
        : [
            ['pods', 'list'],
            ['pods', 'watch'],
            ...(client.startsWith('policy')
              ? ([
                  ['networkpolicies', 'get'],
                  ['networkpolicies', 'watch'],
                ] as [string, string][])
              : []),
          ];
    for (const [resource, verb] of needs) expect(allowed(resource, verb), `${verb} ${resource}`).toBe(true);
  });

  it('have targets the client picks (and, for policies, policies that select the client pods)', () => {
    const args = container.args as string[];
    const flag = (name: string) =>
      args
        .find((a) => a.startsWith(`-${name}=`) || a.startsWith(`--${name}=`))
        ?.split('=')
        .slice(1)
        .join('=');
    if (client === 'service-programming-latency') {
      const [svc] = find(objs, 'Service', flag('service-name'));
      expect(svc.metadata.namespace).toBe(flag('service-namespace'));
      const [target] = find(objs, 'Deployment').filter((d) =>
        matches(svc.spec.selector, d.spec.template.metadata.labels),
      );
      expect(target.spec.template.spec.containers[0].ports[0].containerPort).toBe(svc.spec.ports[0].targetPort);
      expect(target.spec.template.spec.containers[0].args).toContain('--tcp'); // answers with its name
      return;
    }
    const [key, value] = flag('TargetLabelSelector')!.split('=');
    const [target] = find(objs, 'Deployment', 'target-dep');
    expect(target.metadata.namespace).toBe(flag('TargetNamespace'));
    expect(target.spec.template.metadata.labels[key!]).toBe(value);
    expect(target.spec.template.spec.containers[0].ports[0].containerPort).toBe(Number(flag('TargetPort')));
    for (const policy of find(objs, 'NetworkPolicy')) {
      expect(policy.metadata.namespace, policy.metadata.name).toBe(deployment.metadata.namespace);
      expect(matches(policy.spec.podSelector.matchLabels, podLabels), policy.metadata.name).toBe(true);
    }
    if (client.startsWith('policy')) expect(find(objs, 'NetworkPolicy', flag('AllowPolicyName'))).toHaveLength(1);
  });
});
