import { describe, expect, it } from 'vitest';
import type { ModelEvent, ObjectKind } from '../../model/types.js';
import { patched, rawNode, rawService, rawSlice } from '../convert/test-objects.js';
import { endpointSliceAdapter, nodeAdapter, serviceAdapter, type KindAdapter } from './kinds.js';
import { ObjectTracker } from './object-tracker.js';

type Step = readonly ['upsert' | 'delete', unknown];

function run(adapter: KindAdapter, steps: readonly Step[]) {
  const reports: Array<{ kind: ObjectKind; where: string }> = [];
  const tracker = new ObjectTracker(adapter, (kind, where) => reports.push({ kind, where }));
  const events = steps.map(([op, obj]) => (op === 'upsert' ? tracker.upserted(obj) : tracker.deleted(obj)));
  const summary = events.map((e: ModelEvent | undefined) => (e ? `${e.op} ${e.key}` : '-'));
  return { summary, reports, events, tracker };
}

const invalidService = patched(rawService, 'spec.ports.0.port', 'eighty');
const externalName = patched(rawService, 'spec.type', 'ExternalName');
const headless = patched(patched(rawService, 'spec.clusterIP', 'None'), 'spec.clusterIPs', ['None']);
const port81 = patched(rawService, 'spec.ports.0.port', 81);

describe('ObjectTracker', () => {
  it.each<[string, readonly Step[], readonly string[]]>([
    [
      'add then delete',
      [
        ['upsert', rawService],
        ['delete', rawService],
      ],
      ['upsert shop/web', 'delete shop/web'],
    ],
    [
      'an invalid update keeps the last good version',
      [
        ['upsert', rawService],
        ['upsert', invalidService],
        ['delete', invalidService],
      ],
      ['upsert shop/web', '-', 'delete shop/web'],
    ],
    [
      'an invalid new object is skipped, and so is its deletion',
      [
        ['upsert', invalidService],
        ['delete', invalidService],
      ],
      ['-', '-'],
    ],
    ['the deletion of a never-seen object is ignored', [['delete', rawService]], ['-']],
    [
      'an ignored Service is not in the model',
      [
        ['upsert', externalName],
        ['delete', externalName],
      ],
      ['-', '-'],
    ],
    [
      'a Service turning ExternalName leaves the model',
      [
        ['upsert', rawService],
        ['upsert', externalName],
        ['delete', externalName],
      ],
      ['upsert shop/web', 'delete shop/web', '-'],
    ],
    [
      'a Service turning headless and back',
      [
        ['upsert', rawService],
        ['upsert', headless],
        ['upsert', port81],
      ],
      ['upsert shop/web', 'delete shop/web', 'upsert shop/web'],
    ],
  ])('Service: %s', (_name, steps, want) => {
    expect(run(serviceAdapter, steps).summary).toEqual(want);
  });

  it('reports invalid objects with their kind and key', () => {
    expect(run(serviceAdapter, [['upsert', invalidService]]).reports).toEqual([{ kind: 'Service', where: 'shop/web' }]);
  });

  it('converts EndpointSlices with their trigger time, and ignores slices without a service name', () => {
    const unlabelled = patched(rawSlice, 'metadata.labels', {});
    const { summary, events } = run(endpointSliceAdapter, [
      ['upsert', rawSlice],
      ['upsert', unlabelled],
      ['upsert', unlabelled],
    ]);
    expect(summary).toEqual(['upsert shop/web-abc12', 'delete shop/web-abc12', '-']);
    expect(events[0]).toMatchObject({ kind: 'EndpointSlice', triggerTime: Date.parse('2025-03-01T10:00:00Z') });
  });

  it('converts Nodes by name', () => {
    const { summary, tracker } = run(nodeAdapter, [
      ['upsert', rawNode],
      ['upsert', patched(rawNode, 'metadata.name', 'node-b')],
      ['delete', rawNode],
    ]);
    expect(summary).toEqual(['upsert node-a', 'upsert node-b', 'delete node-a']);
    expect(tracker.size).toBe(1);
  });
});
