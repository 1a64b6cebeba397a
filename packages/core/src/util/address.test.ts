import { describe, expect, it } from 'vitest';
import { formatListenAddress, isLoopbackHost, parseListenAddress } from './address.js';

describe('parseListenAddress', () => {
  it.each([
    ['unix:///run/kpng/kpng.sock', { kind: 'unix', path: '/run/kpng/kpng.sock' }],
    ['127.0.0.1:10249', { kind: 'tcp', host: '127.0.0.1', port: 10249 }],
    ['[::1]:10249', { kind: 'tcp', host: '::1', port: 10249 }],
    [':10256', { kind: 'tcp', host: '0.0.0.0', port: 10256 }],
  ])('%s', (text, want) => {
    const got = parseListenAddress(text);
    expect(got).toEqual(want);
    if (text !== ':10256') expect(formatListenAddress(got)).toBe(text);
  });

  it.each(['unix://relative.sock', '127.0.0.1', '127.0.0.1:99999', 'host:port', '::1:80'])('rejects %s', (text) => {
    expect(() => parseListenAddress(text)).toThrow(/invalid address/);
  });

  it('knows loopback hosts', () => {
    expect(['127.0.0.1', '127.3.2.1', '::1', 'localhost'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '198.18.0.1', '::'].some(isLoopbackHost)).toBe(false);
  });
});
