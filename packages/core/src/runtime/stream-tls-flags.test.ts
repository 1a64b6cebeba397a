import { describe, expect, it } from 'vitest';
import { DEFAULT_SOCKET, parseProgramFlags, UsageError, type ProgramFlagsSpec } from './program-options.js';

const KPNG: ProgramFlagsSpec = { program: 'kpng', selectsBackend: true, listenDefault: DEFAULT_SOCKET };
const parse = (argv: string[]) => parseProgramFlags(argv, {}, KPNG).options;
const SERVE_TLS = ['--global-tls-cert=s.crt', '--global-tls-key=s.key', '--global-tls-client-ca=ca.crt'];
const DIAL_TLS = ['--api-tls-ca=ca.crt', '--api-tls-cert=c.crt', '--api-tls-key=c.key'];

describe('TLS flags of the global stream', () => {
  it.each([
    ['loopback serving', ['--global-listen=127.0.0.1:12090']],
    ['IPv6 loopback serving', ['--global-listen=[::1]:12090']],
    ['unix socket serving', ['--global-listen=unix:///run/kpng/global.sock']],
    ['loopback dialling', ['--api=127.0.0.1:12090']],
    ['unix socket dialling', ['--api=unix:///run/kpng/global.sock']],
  ])('%s needs no TLS', (_, argv) => {
    const o = parse(argv);
    expect([o.globalTls, o.apiTls]).toEqual([undefined, undefined]);
  });

  it('names each file by its flag, on either end (TLS may be forced on loopback too)', () => {
    expect(parse(['--global-listen=0.0.0.0:12090', ...SERVE_TLS]).globalTls).toEqual({
      cert: { path: 's.crt', name: '--global-tls-cert' },
      key: { path: 's.key', name: '--global-tls-key' },
      ca: { path: 'ca.crt', name: '--global-tls-client-ca' },
    });
    expect(parse(['--api=127.0.0.1:12090', ...DIAL_TLS]).apiTls).toEqual({
      ca: { path: 'ca.crt', name: '--api-tls-ca' },
      cert: { path: 'c.crt', name: '--api-tls-cert' },
      key: { path: 'c.key', name: '--api-tls-key' },
    });
  });

  const NEEDS_SERVE = /--global-tls-cert, --global-tls-key, --global-tls-client-ca/;
  const NEEDS_DIAL = /--api-tls-ca, --api-tls-cert, --api-tls-key/;
  it.each<[string[], RegExp[]]>([
    [['--global-listen=0.0.0.0:12090'], [/^--global-listen: 0\.0\.0\.0:12090 is not loopback/, NEEDS_SERVE]],
    [['--global-listen=:12090'], [/^--global-listen: 0\.0\.0\.0:12090 is not loopback/, NEEDS_SERVE]],
    [['--global-listen=[::]:12090'], [/^--global-listen: \[::\]:12090 is not loopback/, NEEDS_SERVE]],
    [['--global-listen=10.0.0.1:12090'], [/^--global-listen: 10\.0\.0\.1:12090 is not loopback/]],
    [
      ['--global-listen=10.0.0.1:1', '--global-tls-cert=s.crt'],
      [/go together: missing --global-tls-key, --global-tls-client-ca$/],
    ],
    [SERVE_TLS, [/^--global-tls-cert needs --global-listen$/]],
    [['--global-listen=none', '--global-tls-key=k'], [/^--global-tls-key needs --global-listen$/]],
    [['--global-listen=unix:///g.sock', ...SERVE_TLS], [/TLS needs a TCP address/]],
    [
      ['--api=kpng-central.kube-system.svc:12090'],
      [/^--api: kpng-central\.kube-system\.svc:12090 is not loopback/, NEEDS_DIAL],
    ],
    [['--api=[2001:db8::1]:12090'], [/^--api: \[2001:db8::1\]:12090 is not loopback/, NEEDS_DIAL]],
    [['--api=10.0.0.1:12090', '--api-tls-ca=ca.crt'], [/go together: missing --api-tls-cert, --api-tls-key$/]],
    [['--file=x.yaml', '--api-tls-ca=ca.crt'], [/^--api-tls-ca needs --api$/]],
    [['--api=unix:///g.sock', ...DIAL_TLS], [/TLS needs a TCP address/]],
  ])('%j is a usage error naming the flags', (argv, messages) => {
    expect(() => parse(argv)).toThrow(UsageError);
    for (const m of messages) expect(() => parse(argv)).toThrow(m);
  });
});
