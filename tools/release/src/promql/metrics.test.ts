import { describe, expect, it } from 'vitest';
import { bracketProblem, isKnownMetric, metricNames } from './metrics.js';

describe('metricNames', () => {
  it('finds selectors and ignores functions, labels, ranges, keywords and variables', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (ip_family, le) (rate(kubeproxy_sync_proxy_rules_duration_seconds_bucket{job=~"$job", code!~"2.."}[$__rate_interval])))',
      ),
    ).toEqual(['kubeproxy_sync_proxy_rules_duration_seconds_bucket']);
    expect(metricNames('time() - max by (node) (a_last_timestamp_seconds)')).toEqual(['a_last_timestamp_seconds']);
    expect(
      metricNames('(x_total > 0) and on (pod, node) (increase(y_total[15m]) == 0) or absent(up == 1) offset 5m'),
    ).toEqual(['x_total', 'y_total', 'up']);
    expect(metricNames('rec:ord:ed{quantile="0.99"} > 30 unless ignoring(a) bool 1e3')).toEqual(['rec:ord:ed']);
  });

  it('resolves histogram series to their family', () => {
    const known = new Set(['kubeproxy_network_programming_duration_seconds']);
    expect(isKnownMetric('kubeproxy_network_programming_duration_seconds_bucket', known)).toBe(true);
    expect(isKnownMetric('kubeproxy_network_programing_duration_seconds_bucket', known)).toBe(false);
  });

  it('reports unbalanced brackets outside strings', () => {
    expect(bracketProblem('sum(rate(x{a="("}[5m]))')).toBeUndefined();
    expect(bracketProblem('sum(rate(x[5m])')).toBe('unclosed (');
    expect(bracketProblem('x{a="b"]')).toBe('unbalanced ]');
  });
});
