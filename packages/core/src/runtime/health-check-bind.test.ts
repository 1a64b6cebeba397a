import { describe, expect, it } from 'vitest';
import { ALL_ADDRESSES } from '../health/health-check-addresses.js';
import { programHealthCheckAddresses } from './health-check-bind.js';

describe('programHealthCheckAddresses', () => {
  it.each([
    ['on a node (no --netns): the servers default, every address', undefined, undefined],
    [
      "programming another namespace (--netns): loopback of the program's own namespace",
      'kpng-t-1-node',
      ['127.0.0.1'],
    ],
  ])('%s', (_name, netns, expected) => {
    expect(programHealthCheckAddresses(netns)).toEqual(expected);
    if (netns !== undefined) expect(programHealthCheckAddresses(netns)).not.toEqual(ALL_ADDRESSES);
  });
});
