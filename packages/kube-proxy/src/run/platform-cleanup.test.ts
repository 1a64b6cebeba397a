import type { Backend, SyncRequest } from '@kpng/core';
import { describe, expect, it } from 'vitest';
import { cleaningAfterFirstSync } from './platform-cleanup.js';

function fakeBackend(fail: () => boolean): Backend & { readonly order: string[] } {
  const order: string[] = [];
  return {
    name: 'fake',
    families: ['IPv4'],
    order,
    async sync() {
      order.push('sync');
      if (fail()) throw new Error('sync failed');
    },
    async cleanup() {},
  };
}

const req = {} as SyncRequest;

describe('cleaningAfterFirstSync', () => {
  it('removes the leftovers once, after the first successful sync, inside it', async () => {
    let failing = true;
    const inner = fakeBackend(() => failing);
    const backend = cleaningAfterFirstSync(inner, async () => void inner.order.push('leftovers'));
    await expect(backend.sync(req)).rejects.toThrow('sync failed');
    expect(inner.order).toEqual(['sync']); // the old rules still serve: nothing removed
    failing = false;
    await backend.sync(req);
    await backend.sync(req);
    expect(inner.order).toEqual(['sync', 'sync', 'leftovers', 'sync']);
  });

  it("keeps the backend's nodePortAddresses declaration (the sync stage resolves them only for a backend that declares them)", () => {
    const nodePorts = { addresses: [], netns: 'lab', listEveryAddressExcept: 'kube-ipvs0' };
    expect(cleaningAfterFirstSync({ ...fakeBackend(() => false), nodePorts }, async () => {}).nodePorts).toBe(
      nodePorts,
    );
    expect(
      'nodePorts' in
        cleaningAfterFirstSync(
          fakeBackend(() => false),
          async () => {},
        ),
    ).toBe(false);
  });
});
