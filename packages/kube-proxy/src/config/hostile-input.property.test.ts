import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { hostileArgv } from '@kpng/lab';
import { FlagError, parseFlags } from '../flags/parse.js';
import { FLAGS } from '../flags/table.js';
import { ConfigDecodeError, decodeConfiguration } from './decode.js';
import { withDefaults } from './defaults.js';
import { validateConfiguration } from './validate.js';

/**
 * The compat kube-proxy's command line and --config file under arbitrary input (issue 25): flags
 * parse or fail with a FlagError; a file decodes or fails with a ConfigDecodeError, and what decodes
 * validates into field errors without throwing. Never another exception; a hang times the test out.
 */

const FLAG_RUNS = 1_000;
const FILE_RUNS = 300;

const names = FLAGS.map((f) => f.name);
const argv = hostileArgv(
  names,
  [
    'true',
    'false',
    'maybe',
    '0.0.0.0:10249',
    '[::1]:99999',
    '198.18.0.0/16,2001:db8::/48',
    'a=b,c',
    'Gate=true,Other=maybe',
    'nftables',
    'ipvs',
    'kernelspace',
    'json',
  ],
  ['-v', '-v2', '-v=x', '-h', '-hv', '--feature-gates'],
);

const HEAD = 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n';
const FIELDS = [
  'mode',
  'clusterCIDR',
  'bindAddress',
  'healthzBindAddress',
  'metricsBindAddress',
  'bindAddressHardFail',
  'nodePortAddresses',
  'featureGates',
  'hostnameOverride',
  'oomScoreAdj',
  'configSyncPeriod',
  'portRange',
  'detectLocalMode',
  'detectLocal',
  'clientConnection',
  'iptables',
  'ipvs',
  'nftables',
  'conntrack',
  'winkernel',
  'logging',
  'enableProfiling',
  'showHiddenMetricsForVersion',
  'kind',
  'apiVersion',
  'unknownField',
];
const leaf = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('1m30s', '-1s', '0s', 'nftables', '198.18.0.0/16', '::1', '10249', '1e309'),
);
const configObject = fc.dictionary(
  fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 10 })),
  fc.oneof(leaf, fc.array(leaf, { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 12 }), leaf, { maxKeys: 4 })),
  { maxKeys: 10 },
);
const hostileYaml = fc.constantFrom(
  'a: &a [*a, *a]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
  '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
  `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
  'mode: !!binary aGVsbG8=',
  'mode: !!js/function "function(){}"',
  'mode: !custom x',
  '---\nmode: a\n---\nmode: b',
  'mode: nftables\nmode: iptables',
  '{"mode": "nftables", "mode": "ipvs"}',
  '\ufeffmode: nftables',
  'mode: "\\ud800"',
  '? [a, b]\n: c',
  `clusterCIDR: ${'198.18.0.0/16,'.repeat(5_000)}`,
  `nodePortAddresses: [${Array.from({ length: 5_000 }, (_, i) => `"198.18.${i >> 8}.${i & 255}/32"`).join(',')}]`,
);
const file = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.json().map((j) => j),
  configObject.map((o) => HEAD + stringify(o)),
  configObject.map((o) =>
    JSON.stringify({ apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration', ...o }),
  ),
  hostileYaml.map((y) => HEAD + y),
  hostileYaml,
);

describe('kube-proxy under arbitrary flags and config files', () => {
  it(`parses argv or refuses it with a FlagError (${FLAG_RUNS} cases)`, () => {
    let cases = 0;
    let refused = 0;
    fc.assert(
      fc.property(argv, (argv) => {
        cases++;
        try {
          parseFlags(argv);
        } catch (e) {
          refused++;
          expect(e, `argv ${JSON.stringify(argv)}`).toBeInstanceOf(FlagError);
        }
      }),
      { numRuns: FLAG_RUNS },
    );
    console.log(`property kube-proxy-argv: ${cases} cases, ${refused} refused with a FlagError`);
  });

  it(`decodes a file or refuses it with a ConfigDecodeError; what decodes validates (${FILE_RUNS} cases)`, () => {
    let cases = 0;
    let refused = 0;
    fc.assert(
      fc.property(file, fc.boolean(), (text, strict) => {
        cases++;
        let decoded;
        try {
          decoded = decodeConfiguration(text, { strict });
        } catch (e) {
          refused++;
          expect(e, `file ${JSON.stringify(text.slice(0, 300))}`).toBeInstanceOf(ConfigDecodeError);
          return;
        }
        const errors = validateConfiguration(withDefaults(decoded.config), {
          availableModes: ['iptables', 'nftables', 'ipvs'],
        });
        expect(Array.isArray(errors)).toBe(true);
      }),
      { numRuns: FILE_RUNS },
    );
    console.log(`property kube-proxy-config-file: ${cases} cases, ${refused} refused with a ConfigDecodeError`);
  });
});
