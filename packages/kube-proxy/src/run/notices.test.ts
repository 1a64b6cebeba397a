import { describe, expect, it } from 'vitest';
import { withDefaults } from '../config/defaults.js';
import { featureGateWarnings, unsupportedSettingWarnings } from './notices.js';

describe('featureGateWarnings', () => {
  it('warns once per gate, whatever its value', () => {
    expect(featureGateWarnings({ NFTablesProxyMode: true, SomethingNew: false })).toEqual([
      "feature gate NFTablesProxyMode=true is not used by kpng's kube-proxy and is ignored",
      "feature gate SomethingNew=false is not used by kpng's kube-proxy and is ignored",
    ]);
    expect(featureGateWarnings({})).toEqual([]);
  });
});

describe('unsupportedSettingWarnings', () => {
  it('is quiet for the defaults', () => {
    expect(unsupportedSettingWarnings(withDefaults({ mode: 'nftables' }))).toEqual([]);
  });

  it('names each setting kpng accepts but does not act on', () => {
    const c = withDefaults({
      mode: 'nftables',
      enableProfiling: true,
      showHiddenMetricsForVersion: '1.32',
      bindAddress: '198.18.255.1',
      iptables: { masqueradeBit: 12 },
      windowsRunAsService: true,
    });
    expect(unsupportedSettingWarnings(c).map((w) => w.split(':')[0])).toEqual([
      'enableProfiling',
      'showHiddenMetricsForVersion',
      'bindAddress',
      'windowsRunAsService',
      'iptables.masqueradeBit has no effect in nftables mode (nftables.masqueradeBit does)',
    ]);
  });
});
