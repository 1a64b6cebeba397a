import { describe, expect, it } from 'vitest';
import { convertServiceCIDR } from './service-cidr.js';

const cidr = (spec: unknown) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name: 'kubernetes' },
  spec,
});

describe('convertServiceCIDR', () => {
  it.each([
    [
      'dual-stack, canonical and sorted',
      { cidrs: ['2001:db8:5e:0::/64', '198.19.0.0/16'] },
      ['198.19.0.0/16', '2001:db8:5e::/64'],
    ],
    ['no cidrs', {}, []],
  ])('%s', (_name, spec, cidrs) => {
    expect(convertServiceCIDR(cidr(spec))).toEqual({ ok: true, value: { name: 'kubernetes', cidrs } });
  });

  it('rejects a value that is not a CIDR, naming the field', () => {
    const result = convertServiceCIDR(cidr({ cidrs: ['198.19.0.0/33'] }));
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).toContain('spec.cidrs[0]');
  });
});
