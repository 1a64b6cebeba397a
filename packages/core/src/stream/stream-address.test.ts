import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '../util/errors.js';
import { DEFAULT_LOCAL_ADDRESS, parseDialAddress, parseServeAddress } from './stream-address.js';

describe('parseServeAddress', () => {
  it.each([
    [DEFAULT_LOCAL_ADDRESS, { kind: 'unix', path: '/run/kpng/kpng.sock' }],
    ['127.0.0.1:12090', { kind: 'tcp', host: '127.0.0.1', port: 12090 }],
    ['127.3.4.5:0', { kind: 'tcp', host: '127.3.4.5', port: 0 }],
    ['[::1]:12090', { kind: 'tcp', host: '::1', port: 12090 }],
  ])('accepts %s', (address, parsed) => {
    expect(parseServeAddress(address, false)).toEqual(parsed);
  });

  it.each(['0.0.0.0:12090', ':12090', '10.0.0.1:12090', '[::]:12090', '[2001:db8::1]:1'])(
    'refuses non-loopback %s without TLS',
    (address) => {
      expect(() => parseServeAddress(address, false)).toThrow(
        expect.objectContaining({ code: ErrorCodes.InvalidConfig, message: expect.stringMatching(/without TLS/) }),
      );
    },
  );

  it.each([
    ['10.0.0.1:12090', { kind: 'tcp', host: '10.0.0.1', port: 12090 }],
    ['0.0.0.0:12090', { kind: 'tcp', host: '0.0.0.0', port: 12090 }],
    ['127.0.0.1:0', { kind: 'tcp', host: '127.0.0.1', port: 0 }],
  ])('accepts %s with TLS (central core)', (address, parsed) => {
    expect(parseServeAddress(address, true)).toEqual(parsed);
  });

  it('refuses TLS on a unix socket', () => {
    expect(() => parseServeAddress('unix:///run/kpng/g.sock', true)).toThrow(/TLS needs a TCP address/);
  });

  it.each(['unix://relative.sock', 'nonsense', '127.0.0.1:99999'])(
    'reports a malformed address %s as invalid config',
    (address) => {
      expect(() => parseServeAddress(address, true)).toThrow(
        expect.objectContaining({ code: ErrorCodes.InvalidConfig }),
      );
    },
  );
});

describe('parseDialAddress', () => {
  it.each([
    ['unix:///run/kpng/kpng.sock', { kind: 'unix', path: '/run/kpng/kpng.sock' }],
    ['127.0.0.1:12090', { kind: 'tcp', host: '127.0.0.1', port: 12090 }],
    ['[::1]:12090', { kind: 'tcp', host: '::1', port: 12090 }],
    ['[2001:db8::1]:1', { kind: 'tcp', host: '2001:db8::1', port: 1 }],
    ['kpng-central.kube-system.svc:12090', { kind: 'tcp', host: 'kpng-central.kube-system.svc', port: 12090 }],
    ['localhost:65535', { kind: 'tcp', host: 'localhost', port: 65535 }],
  ])('accepts %s', (address, parsed) => {
    expect(parseDialAddress(address)).toEqual(parsed);
  });

  it.each([
    ['', /expected host:port/],
    ['nonsense', /expected host:port/],
    ['kpng-central', /expected host:port/],
    ['12090', /expected host:port/],
    [':12090', /"" is not an IP address or DNS name/],
    ['host:', /expected host:port/],
    ['host:99999', /expected host:port/],
    ['host:0', /port 0 cannot be dialled/],
    ['host:-1', /expected host:port/],
    ['http://host:12090', /expected host:port/],
    ['dns:///host:12090', /expected host:port/],
    ['unix://relative.sock', /must be absolute/],
    ['unix:relative.sock', /expected host:port/],
    ['bad host:12090', /"bad host" is not an IP address or DNS name/],
    ['under_score.svc:12090', /is not an IP address or DNS name/],
    ['-lead.svc:12090', /is not an IP address or DNS name/],
    ['999.1.1.1:12090', /"999.1.1.1" is not an IP address or DNS name/],
    ['[not-v6]:12090', /expected host:port/],
    ['[10.0.0.1]:12090', /"10.0.0.1" is not an IP address or DNS name/],
    ['::1:12090', /expected host:port/],
  ])('refuses %j as invalid config, quoting it', (address, message) => {
    expect(() => parseDialAddress(address)).toThrow(
      expect.objectContaining({ code: ErrorCodes.InvalidConfig, message: expect.stringMatching(message) }),
    );
    expect(() => parseDialAddress(address)).toThrow(JSON.stringify(address));
  });
});
