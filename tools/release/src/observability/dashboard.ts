/**
 * The Grafana dashboard in deploy/observability/grafana/kpng.json, as code: panels are listed
 * once here with their PromQL, and `npm run -w @kpng/release observability` writes the JSON (a
 * test checks the committed file is current). Import the JSON in Grafana, or provision it.
 */

export interface Target {
  readonly expr: string;
  readonly legend: string;
}

export interface PanelSpec {
  readonly title: string;
  readonly description: string;
  readonly unit: string;
  readonly targets: readonly Target[];
  /** Grid width (of 24); rows of panels wrap automatically. */
  readonly width?: number;
  readonly kind?: 'timeseries' | 'stat';
}

export interface RowSpec {
  readonly title: string;
  readonly panels: readonly PanelSpec[];
}

/** Label selector every query carries: the dashboard's job and node variables. */
const SEL = 'job=~"$job", node=~"$node"';
const RATE = '[$__rate_interval]';

const quantiles = (metric: string, by: string, qs: readonly number[]): Target[] =>
  qs.map((q) => ({
    expr: `histogram_quantile(${q.toFixed(2)}, sum by (${by ? `${by}, ` : ''}le) (rate(${metric}_bucket{${SEL}}${RATE})))`,
    legend: `p${Math.round(q * 100)}${by ? ` {{${by}}}` : ''}`,
  }));

export const ROWS: readonly RowSpec[] = [
  {
    title: 'Proxies',
    panels: [
      {
        title: 'Proxies up',
        description: 'Proxy pods answering scrapes (one per node expected).',
        unit: 'short',
        kind: 'stat',
        width: 6,
        targets: [{ expr: `count(up{${SEL}, component="proxy"} == 1)`, legend: 'up' }],
      },
      {
        title: 'Health answers',
        description:
          '/healthz answers by status code (503: a queued update older than 2 x syncPeriod, or the node is being deleted).',
        unit: 'reqps',
        width: 18,
        targets: [{ expr: `sum by (code) (rate(kubeproxy_proxy_healthz_total{${SEL}}${RATE}))`, legend: '{{code}}' }],
      },
    ],
  },
  {
    title: 'Rule syncs',
    panels: [
      {
        title: 'Sync duration by IP family',
        description: 'p50 and p99 of kubeproxy_sync_proxy_rules_duration_seconds, all selected nodes pooled.',
        unit: 's',
        targets: quantiles('kubeproxy_sync_proxy_rules_duration_seconds', 'ip_family', [0.5, 0.99]),
      },
      {
        title: 'Last sync age',
        description: 'Seconds since the last successful sync, per node and IP family.',
        unit: 's',
        targets: [
          {
            expr: `time() - max by (node, ip_family) (kubeproxy_sync_proxy_rules_last_timestamp_seconds{${SEL}})`,
            legend: '{{node}} {{ip_family}}',
          },
        ],
      },
      {
        title: 'Sync failures',
        description: 'Failed backend syncs (retried as full syncs after syncPeriod) and failed nft transactions.',
        unit: 'ops',
        width: 24,
        targets: [
          {
            expr: `sum by (node, backend) (rate(kpng_sync_failures_total{${SEL}}${RATE}))`,
            legend: '{{node}} {{backend}}',
          },
          {
            expr: `sum by (node, ip_family) (rate(kubeproxy_sync_proxy_rules_nftables_sync_failures_total{${SEL}}${RATE}))`,
            legend: '{{node}} nft {{ip_family}}',
          },
        ],
      },
    ],
  },
  {
    title: 'Network programming latency',
    panels: [
      {
        title: 'Network programming latency',
        description:
          'From the EndpointSlice change (endpoints.kubernetes.io/last-change-trigger-time) to rules programmed: p50/p90/p99 pooled over the selected nodes, as clusterloader2 measures it.',
        unit: 's',
        width: 24,
        targets: quantiles('kubeproxy_network_programming_duration_seconds', '', [0.5, 0.9, 0.99]),
      },
    ],
  },
  {
    title: 'kpng core',
    panels: [
      {
        title: 'Stream clients',
        description: 'Clients connected to the node-local (local) and global (central core) state streams.',
        unit: 'short',
        targets: [{ expr: `sum by (node, api) (kpng_stream_clients{${SEL}})`, legend: '{{node}} {{api}}' }],
      },
      {
        title: 'Model events vs revisions',
        description:
          'API events received by the model and the revisions they produced: events that change no hash produce no revision (deduplication).',
        unit: 'ops',
        targets: [
          { expr: `sum(rate(kpng_model_events_total{${SEL}}${RATE}))`, legend: 'events' },
          { expr: `sum(rate(kpng_model_revisions_total{${SEL}}${RATE}))`, legend: 'revisions' },
          {
            expr: `sum by (api) (rate(kpng_stream_states_sent_total{${SEL}}${RATE}))`,
            legend: 'states sent ({{api}})',
          },
        ],
      },
    ],
  },
  {
    title: 'API server',
    panels: [
      {
        title: 'API errors',
        description: 'API server requests that did not answer 2xx, by node and code (<error>: no answer at all).',
        unit: 'reqps',
        width: 24,
        targets: [
          {
            expr: `sum by (node, code) (rate(rest_client_requests_total{${SEL}, code!~"2.."}${RATE}))`,
            legend: '{{node}} {{code}}',
          },
        ],
      },
    ],
  },
];

type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

const DS = { type: 'prometheus', uid: '${datasource}' };

/** The Grafana dashboard model (schemaVersion 39). */
export function buildDashboard(): Record<string, JsonValue> {
  const panels: JsonValue[] = [];
  let id = 1;
  let y = 0;
  for (const row of ROWS) {
    panels.push({
      type: 'row',
      id: id++,
      title: row.title,
      collapsed: false,
      gridPos: { h: 1, w: 24, x: 0, y },
      panels: [],
    });
    y += 1;
    let x = 0;
    for (const p of row.panels) {
      const w = p.width ?? 12;
      if (x + w > 24) [x, y] = [0, y + 8];
      panels.push(panel(p, id++, { h: 8, w, x, y }));
      x += w;
    }
    y += 8;
  }
  return {
    uid: 'kpng-overview',
    title: 'kpng / kube-proxy',
    description: 'kpng service proxy: rule syncs, network programming latency, state stream, API errors, health.',
    tags: ['kpng', 'kube-proxy', 'networking'],
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    timezone: 'browser',
    annotations: { list: [] },
    links: [],
    templating: {
      list: [
        { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', current: {}, hide: 0 },
        variable('job', 'Job', 'label_values(up{job=~"kpng|kube-proxy"}, job)', false),
        variable(
          'node',
          'Node',
          'label_values(kubeproxy_sync_proxy_rules_last_timestamp_seconds{job=~"$job"}, node)',
          true,
        ),
      ],
    },
    panels,
  };
}

function variable(name: string, label: string, query: string, multi: boolean): JsonValue {
  return {
    name,
    label,
    type: 'query',
    datasource: DS,
    query: { query, refId: `${name}-query` },
    definition: query,
    refresh: 2,
    includeAll: true,
    allValue: '.*',
    multi,
    current: {},
    sort: 1,
    hide: 0,
  };
}

function panel(p: PanelSpec, id: number, gridPos: { h: number; w: number; x: number; y: number }): JsonValue {
  const kind = p.kind ?? 'timeseries';
  return {
    type: kind,
    id,
    title: p.title,
    description: p.description,
    datasource: DS,
    gridPos,
    targets: p.targets.map((t, i) => ({
      refId: String.fromCharCode(65 + i),
      datasource: DS,
      expr: t.expr,
      legendFormat: t.legend,
      range: true,
    })),
    fieldConfig: {
      defaults: { unit: p.unit, ...(kind === 'timeseries' ? { custom: { drawStyle: 'line', fillOpacity: 10 } } : {}) },
      overrides: [],
    },
    options:
      kind === 'stat'
        ? {
            reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
            colorMode: 'value',
            graphMode: 'area',
          }
        : {
            legend: { displayMode: 'list', placement: 'bottom', showLegend: true },
            tooltip: { mode: 'multi', sort: 'desc' },
          },
  };
}

/** Every PromQL expression in a dashboard model: panel targets and query variables. */
export function dashboardExpressions(d: Record<string, unknown>): { where: string; expr: string }[] {
  const out: { where: string; expr: string }[] = [];
  for (const p of (d['panels'] as { title: string; targets?: { expr: string }[] }[]) ?? []) {
    for (const t of p.targets ?? []) out.push({ where: `panel "${p.title}"`, expr: t.expr });
  }
  for (const v of ((d['templating'] as { list: { name: string; type: string; definition?: string }[] }) ?? { list: [] })
    .list) {
    if (v.type !== 'query' || !v.definition) continue;
    const m = /^label_values\((.*),\s*\w+\)$/.exec(v.definition);
    out.push({ where: `variable $${v.name}`, expr: m ? m[1]! : v.definition });
  }
  return out;
}
