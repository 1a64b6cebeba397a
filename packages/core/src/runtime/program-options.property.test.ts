import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostileArgv } from '@kpng/lab';
import { logBackend } from './log-backend.js';
import { parseProgramFlags, UsageError } from './program-options.js';

/**
 * kpng's command line under arbitrary argv: parsing returns options or throws a UsageError (a clear
 * message, exit 2 in the programs), never another exception, and terminates (a hang times the test out).
 */

const RUNS = 1_000;

const FLAGS = [
  'source',
  'kubeconfig',
  'master',
  'file',
  'api',
  'connect',
  'node-name',
  'hostname-override',
  'service-proxy-name',
  'netns',
  'listen',
  'global-listen',
  'metrics-bind-address',
  'healthz-bind-address',
  'min-sync-period',
  'sync-period',
  'full-sync-period',
  'dry-run',
  'cleanup',
  'output',
  'v',
  'help',
  'version',
  'backend',
  'log-level',
  'nope',
];
const argv = hostileArgv(
  FLAGS,
  [
    'unix://',
    'unix:///x',
    '127.0.0.1:0',
    '[::1]:99999',
    '0.0.0.0:10249',
    'tcp://1.2.3.4:5',
    ':',
    'none',
    'kube',
    'file',
    'api',
    'connect',
    'json',
    'yaml',
    'summary',
  ],
  ['-v', '-o', '-h', '-vv', '-v=3', 'run'],
);

describe('parseProgramFlags under arbitrary argv', () => {
  it.each([
    { name: 'kpng (selects a backend)', spec: { program: 'kpng', selectsBackend: true } },
    { name: 'a backend program (its own flags too)', spec: { program: 'kpng-log', backend: logBackend } },
  ])(`gives options or a UsageError for $name (${RUNS} cases)`, ({ spec }) => {
    let cases = 0;
    let refused = 0;
    fc.assert(
      fc.property(argv, fc.option(fc.string({ maxLength: 20 }), { nil: undefined }), (args, nodeName) => {
        cases++;
        try {
          const parsed = parseProgramFlags(args, nodeName === undefined ? {} : { NODE_NAME: nodeName }, spec);
          expect(parsed.options).toBeTypeOf('object');
        } catch (e) {
          refused++;
          expect(e, `argv ${JSON.stringify(args)}`).toBeInstanceOf(UsageError);
          expect((e as Error).message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: RUNS },
    );
    console.log(`property kpng-argv (${spec.program}): ${cases} cases, ${refused} refused with a UsageError`);
  });
});
