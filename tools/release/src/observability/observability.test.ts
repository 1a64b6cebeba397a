import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderOverlay, overlayNames } from '../kustomize/overlays.js';
import { bracketProblem, codebaseMetricNames, isKnownMetric, metricNames } from '../promql/metrics.js';
import { REPO_ROOT } from '../workspace.js';
import { dashboardExpressions } from './dashboard.js';
import {
  DASHBOARD_FILE,
  PODMONITOR_FILE,
  PROMETHEUS_RULE_FILE,
  RULES_FILE,
  SCRAPE_CONFIG_FILE,
  generatedFiles,
} from './files.js';

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Group {
  name: string;
  rules: Rule[];
}

const known = codebaseMetricNames(REPO_ROOT);
const rules = parse(readFileSync(RULES_FILE, 'utf8')) as { groups: Group[] };
const recorded = new Set(rules.groups.flatMap((g) => g.rules.flatMap((r) => (r.record ? [r.record] : []))));
/** Series Prometheus itself makes. */
const BUILTIN = new Set(['up']);

function unknownMetrics(expr: string): string[] {
  return metricNames(expr).filter((n) => !BUILTIN.has(n) && !recorded.has(n) && !isKnownMetric(n, known));
}

describe('metric names in the codebase', () => {
  it('include the kube-proxy and kpng metrics the assets rely on (the scan works)', () => {
    for (const m of [
      'kubeproxy_sync_proxy_rules_duration_seconds',
      'kpng_stream_clients',
      'rest_client_requests_total',
    ]) {
      expect(known.has(m), m).toBe(true);
    }
  });
});

describe('Prometheus rules (deploy/observability/prometheus/kpng-rules.yaml)', () => {
  const all = rules.groups.flatMap((g) => g.rules.map((r) => ({ group: g.name, ...r })));

  it('are groups of named rules, each an alert or a recording rule with an expression', () => {
    expect(rules.groups.length).toBeGreaterThan(0);
    for (const g of rules.groups) {
      expect(g.name, 'group name').toMatch(/\S/);
      expect(g.rules.length, g.name).toBeGreaterThan(0);
    }
    for (const r of all) {
      expect(Boolean(r.alert) !== Boolean(r.record), `${r.group}: exactly one of alert/record`).toBe(true);
      expect(typeof r.expr, `${r.alert ?? r.record}: expr`).toBe('string');
    }
  });

  it('alerts have a severity, a summary, a description and a valid `for`', () => {
    const alerts = all.filter((r) => r.alert);
    expect(new Set(alerts.map((a) => a.alert)).size, 'alert names are unique').toBe(alerts.length);
    for (const a of alerts) {
      expect(['critical', 'warning', 'info'], `${a.alert} severity`).toContain(a.labels?.['severity']);
      expect(a.annotations?.['summary'], `${a.alert} summary`).toMatch(/\S/);
      expect(a.annotations?.['description'], `${a.alert} description`).toMatch(/\S/);
      if (a.for !== undefined) expect(a.for, `${a.alert} for`).toMatch(/^(\d+(ms|s|m|h|d|w|y))+$/);
    }
  });

  it('cover the operator-facing failure modes', () => {
    const exprs = (name: string) => all.find((r) => r.alert === name)?.expr ?? '';
    expect(exprs('KpngProxyDown')).toMatch(/\bup\{/);
    expect(exprs('KpngProxyAbsent')).toMatch(/absent\(/);
    expect(exprs('KpngSlowRuleSyncs')).toMatch(
      /histogram_quantile\(0\.99,[\s\S]*kubeproxy_sync_proxy_rules_duration_seconds_bucket/,
    );
    expect(exprs('KpngSyncsFailing')).toMatch(
      /kpng_sync_failures_total[\s\S]*kubeproxy_sync_proxy_rules_nftables_sync_failures_total/,
    );
    expect(exprs('KpngApiServerErrors')).toMatch(/rest_client_requests_total\{[^}]*code!~"2\.\."/);
    expect(exprs('KpngNetworkProgrammingLatencyHigh')).toMatch(
      /kubeproxy:kubeproxy_network_programming_duration:histogram_quantile/,
    );
    expect(exprs('KpngStreamClientsStuck')).toMatch(
      /kpng_stream_clients[\s\S]*kpng_stream_states_sent_total[\s\S]*kpng_model_revisions_total/,
    );
    expect(exprs('KpngRevisionLag')).toMatch(/kpng_stream_revision[\s\S]*kpng_model_revisions_total/);
  });

  it('record the three NetworkProgrammingLatency quantiles clusterloader2 reads', () => {
    const rec = all.filter((r) => r.record === 'kubeproxy:kubeproxy_network_programming_duration:histogram_quantile');
    expect(rec.map((r) => r.labels?.['quantile']).sort()).toEqual(['0.50', '0.90', '0.99']);
    for (const r of rec)
      expect(r.expr).toContain(
        `histogram_quantile(${r.labels!['quantile']}, sum(rate(kubeproxy_network_programming_duration_seconds_bucket[5m])) by (le))`,
      );
  });

  it.each(all.map((r) => [r.alert ?? r.record!, r.expr] as const))(
    '%s: balanced, and selects only metrics kpng exports',
    (_name, expr) => {
      expect(bracketProblem(expr)).toBeUndefined();
      expect(metricNames(expr).length).toBeGreaterThan(0);
      expect(unknownMetrics(expr)).toEqual([]);
    },
  );
});

describe('generated files', () => {
  it.each(Object.entries(generatedFiles()).map(([f, t]) => [f.slice(REPO_ROOT.length + 1), f, t] as const))(
    '%s is up to date (npm run -w @kpng/release observability)',
    (_rel, file, text) => {
      expect(readFileSync(file, 'utf8')).toBe(text);
    },
  );

  it("the PrometheusRule carries exactly the plain file's groups", () => {
    const pr = parse(readFileSync(PROMETHEUS_RULE_FILE, 'utf8')) as {
      apiVersion: string;
      kind: string;
      metadata: { name: string };
      spec: { groups: Group[] };
    };
    expect([pr.apiVersion, pr.kind, pr.metadata.name]).toEqual(['monitoring.coreos.com/v1', 'PrometheusRule', 'kpng']);
    expect(pr.spec.groups).toEqual(rules.groups);
  });
});

describe('Grafana dashboard (deploy/observability/grafana/kpng.json)', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Record<string, unknown> & {
    uid: string;
    panels: {
      id: number;
      type: string;
      title: string;
      gridPos: { w: number; x: number };
      targets?: { refId: string; expr: string }[];
    }[];
  };
  const exprs = dashboardExpressions(dashboard);

  it('parses, has a uid and uniquely numbered panels that fit the 24-column grid', () => {
    expect(dashboard.uid).toMatch(/^[\w-]{1,40}$/);
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    for (const p of dashboard.panels) expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
    for (const p of dashboard.panels.filter((x) => x.type !== 'row'))
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
  });

  it('charts every signal operators asked for', () => {
    const all = exprs.map((e) => e.expr).join('\n');
    for (const needle of [
      /histogram_quantile\(0\.50, sum by \(ip_family, le\) \(rate\(kubeproxy_sync_proxy_rules_duration_seconds_bucket/,
      /histogram_quantile\(0\.99, sum by \(ip_family, le\) \(rate\(kubeproxy_sync_proxy_rules_duration_seconds_bucket/,
      /histogram_quantile\(0\.90, sum by \(le\) \(rate\(kubeproxy_network_programming_duration_seconds_bucket/,
      /time\(\) - max by \(node, ip_family\) \(kubeproxy_sync_proxy_rules_last_timestamp_seconds/,
      /kpng_sync_failures_total/,
      /kubeproxy_sync_proxy_rules_nftables_sync_failures_total/,
      /kpng_stream_clients/,
      /kpng_model_events_total[\s\S]*kpng_model_revisions_total/,
      /rest_client_requests_total\{[^}]*code!~"2\.\."/,
      /kubeproxy_proxy_healthz_total/,
    ]) {
      expect(all).toMatch(needle);
    }
  });

  it.each(exprs.map((e) => [e.where, e.expr] as const))(
    '%s: balanced, and selects only metrics kpng exports',
    (_w, expr) => {
      expect(bracketProblem(expr)).toBeUndefined();
      expect(unknownMetrics(expr)).toEqual([]);
    },
  );
});

// What the scrape side must agree on with the manifests: pod labels, port names, bind addresses.
describe('scrape configuration against the rendered manifests', () => {
  const podMonitor = parse(readFileSync(PODMONITOR_FILE, 'utf8')) as {
    apiVersion: string;
    kind: string;
    spec: {
      jobLabel: string;
      namespaceSelector: { matchNames: string[] };
      selector: { matchLabels: Record<string, string> };
      podMetricsEndpoints: {
        port: string;
        path: string;
        relabelings: { sourceLabels: string[]; targetLabel: string }[];
      }[];
    };
  };
  const scrape = parse(readFileSync(SCRAPE_CONFIG_FILE, 'utf8')) as {
    scrape_configs: {
      job_name: string;
      relabel_configs: { action: string; source_labels: string[]; regex?: string; target_label?: string }[];
    }[];
  };
  type Container = {
    name: string;
    args?: string[];
    command?: string[];
    ports?: { name?: string; containerPort: number }[];
  };
  const pods = overlayNames().flatMap((o) =>
    renderOverlay(o)
      .filter((r) => r.kind === 'DaemonSet' || r.kind === 'Deployment')
      .map((r) => {
        const t = (
          r['spec'] as { template: { metadata: { labels: Record<string, string> }; spec: { containers: Container[] } } }
        ).template;
        return {
          where: `${o}/${r.kind}/${r.metadata.name}`,
          namespace: r.metadata['namespace'] as string,
          labels: t.metadata.labels,
          containers: t.spec.containers,
        };
      }),
  );
  const scrapedPorts = podMonitor.spec.podMetricsEndpoints.map((e) => e.port);

  it('the PodMonitor is well-formed and labels targets with node and component', () => {
    expect([podMonitor.apiVersion, podMonitor.kind]).toEqual(['monitoring.coreos.com/v1', 'PodMonitor']);
    for (const e of podMonitor.spec.podMetricsEndpoints) {
      expect(e.path).toBe('/metrics');
      expect(e.relabelings.map((r) => r.targetLabel).sort()).toEqual(['component', 'node']);
    }
  });

  it.each(pods.map((p) => [p.where, p] as const))(
    '%s is selected, named for `job`, and every metrics port it binds is scraped',
    (_w, pod) => {
      expect(podMonitor.spec.namespaceSelector.matchNames).toContain(pod.namespace);
      for (const [k, v] of Object.entries(podMonitor.spec.selector.matchLabels)) expect(pod.labels[k], k).toBe(v);
      expect(['kpng', 'kube-proxy', 'kpng-netpol']).toContain(pod.labels[podMonitor.spec.jobLabel]);
      expect(['proxy', 'central', 'netpol']).toContain(pod.labels['app.kubernetes.io/component']);
      for (const c of pod.containers) {
        const bind = [...(c.command ?? []), ...(c.args ?? [])]
          .map((a) => /^--metrics-bind-address=(.*):(\d+)$/.exec(a))
          .find(Boolean);
        const port = bind ? Number(bind[2]) : c.name === 'kube-proxy' ? 10249 : undefined; // compat: from config.conf
        expect(port, `${c.name}: metrics bind address`).toBeDefined();
        if (bind) expect(bind[1], `${c.name}: metrics must be reachable by Prometheus`).toBe('0.0.0.0');
        const named = c.ports?.find((p) => p.containerPort === port);
        expect(
          named?.name && scrapedPorts.includes(named.name),
          `${c.name}: port ${port} declared under a scraped name`,
        ).toBe(true);
      }
    },
  );

  it('the plain scrape config keeps the same pods and ports, and sets the same labels', () => {
    const job = scrape.scrape_configs.find((j) => j.job_name === 'kpng')!;
    const keep = (label: string) =>
      new RegExp(
        `^(?:${job.relabel_configs.find((r) => r.action === 'keep' && r.source_labels[0] === label)!.regex})$`,
      );
    expect(
      keep('__meta_kubernetes_pod_label_app_kubernetes_io_part_of').test(
        podMonitor.spec.selector.matchLabels['app.kubernetes.io/part-of']!,
      ),
    ).toBe(true);
    for (const p of scrapedPorts) expect(keep('__meta_kubernetes_pod_container_port_name').test(p), p).toBe(true);
    const targets = job.relabel_configs.filter((r) => r.action === 'replace').map((r) => r.target_label);
    expect(targets).toEqual(expect.arrayContaining(['job', 'namespace', 'pod', 'node', 'component']));
  });
});
