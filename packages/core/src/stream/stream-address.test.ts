import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '../util/errors.js';
import { DEFAULT_LOCAL_ADDRESS, parseServeAddress } from './stream-address.js';

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
    'refuses non-loopback %s by default',
    (address) => {
      expect(() => parseServeAddress(address, false)).toThrow(
        expect.objectContaining({ code: ErrorCodes.InvalidConfig }),
      );
    },
  );

  it('accepts a non-loopback address when remote clients are allowed (central core)', () => {
    expect(parseServeAddress('10.0.0.1:12090', true)).toEqual({ kind: 'tcp', host: '10.0.0.1', port: 12090 });
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
