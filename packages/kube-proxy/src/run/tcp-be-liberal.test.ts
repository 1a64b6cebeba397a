import { RecordingLogger } from '@kpng/core/testing';
import { describe, expect, it } from 'vitest';
import { kernelTcpBeLiberal, TCP_BE_LIBERAL } from './tcp-be-liberal.js';

describe('kernelTcpBeLiberal', () => {
  it.each([
    [1, true],
    [2, true],
    [0, false],
    [Number.NaN, false],
  ])('the kernel says %s: %s', async (value, liberal) => {
    const log = new RecordingLogger();
    const read = async (name: string) => (name === TCP_BE_LIBERAL ? value : Promise.reject(new Error(name)));
    expect(await kernelTcpBeLiberal({ read }, log)).toBe(liberal);
    expect(log.at('info').map((r) => r.msg)).toEqual(
      liberal ? ['nf_conntrack_tcp_be_liberal set, not installing DROP rules for INVALID packets'] : [],
    );
  });

  it('an unreadable sysctl (no conntrack module) is not liberal', async () => {
    const read = async () => Promise.reject(new Error('ENOENT'));
    expect(await kernelTcpBeLiberal({ read }, new RecordingLogger())).toBe(false);
  });
});
