import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Document, parseDocument } from 'yaml';
import { DEPLOY_DIR } from '../workspace.js';
import { buildDashboard } from './dashboard.js';

export const OBSERVABILITY_DIR = join(DEPLOY_DIR, 'observability');
export const RULES_FILE = join(OBSERVABILITY_DIR, 'prometheus', 'kpng-rules.yaml');
export const PROMETHEUS_RULE_FILE = join(OBSERVABILITY_DIR, 'prometheus', 'prometheusrule.yaml');
export const PODMONITOR_FILE = join(OBSERVABILITY_DIR, 'prometheus', 'podmonitor.yaml');
export const SCRAPE_CONFIG_FILE = join(OBSERVABILITY_DIR, 'prometheus', 'scrape-config.yaml');
export const DASHBOARD_FILE = join(OBSERVABILITY_DIR, 'grafana', 'kpng.json');

const GENERATED =
  'Generated from kpng-rules.yaml by `npm run -w @kpng/release observability`: edit that file, not this one.';

/** The Prometheus Operator's PrometheusRule holding the plain rules file's groups, styles kept. */
export function renderPrometheusRule(rulesText: string): string {
  const src = parseDocument(rulesText);
  if (src.errors.length) throw new Error(`kpng-rules.yaml: ${src.errors[0]!.message}`);
  const doc = new Document({
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'kpng', namespace: 'kube-system', labels: { 'app.kubernetes.io/part-of': 'kpng' } },
    spec: {},
  });
  doc.setIn(['spec', 'groups'], src.get('groups', true));
  doc.commentBefore = ` ${GENERATED}`;
  return doc.toString({ lineWidth: 0 });
}

export function renderDashboard(): string {
  return `${JSON.stringify(buildDashboard(), null, 2)}\n`;
}

/** Generated files and their expected contents. */
export function generatedFiles(): Record<string, string> {
  return {
    [PROMETHEUS_RULE_FILE]: renderPrometheusRule(readFileSync(RULES_FILE, 'utf8')),
    [DASHBOARD_FILE]: renderDashboard(),
  };
}
