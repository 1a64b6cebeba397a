import { describe, expect, it } from 'vitest';
import type { ModelEvent, ObjectKind } from '../../model/types.js';
import { patched, rawNode, rawService, rawSlice } from '../convert/test-objects.js';
import { endpointSliceAdapter, nodeAdapter, serviceAdapter, type KindAdapter } from './kinds.js';
import { ListedObject } from './listed-object.js';
import { ObjectTracker } from './object-tracker.js';

/** What a tracker emits and reports for a sequence of upserts, then the deletion of each. */
function track(adapter: KindAdapter, objects: readonly unknown[]) {
  const reports: Array<{ kind: ObjectKind; where: string }> = [];
  const tracker = new ObjectTracker(adapter, (kind, where) => reports.push({ kind, where }));
  const events: (ModelEvent | undefined)[] = [];
  for (const obj of objects) events.push(tracker.upserted(obj));
  for (const obj of objects) events.push(tracker.deleted(obj));
  return { events, reports };
}

const invalidService = patched(rawService, 'spec.ports.0.port', 'eighty');

describe('ListedObject', () => {
  it.each<[string, KindAdapter, readonly unknown[]]>([
    ['a Service', serviceAdapter, [rawService]],
    ['a Service, then an invalid version', serviceAdapter, [rawService, invalidService]],
    ['an invalid Service', serviceAdapter, [invalidService]],
    ['a Service turning ExternalName', serviceAdapter, [rawService, patched(rawService, 'spec.type', 'ExternalName')]],
    ['a Service without metadata', serviceAdapter, [{ ...rawService, metadata: undefined }]],
    ['a Service with null metadata', serviceAdapter, [{ ...rawService, metadata: null }]],
    ['an EndpointSlice with a trigger time', endpointSliceAdapter, [rawSlice]],
    [
      'an EndpointSlice losing its service name',
      endpointSliceAdapter,
      [rawSlice, patched(rawSlice, 'metadata.labels', {})],
    ],
    ['Nodes', nodeAdapter, [rawNode, patched(rawNode, 'metadata.name', 'node-b')]],
  ])('converts %s as the raw object does, reporting the same problems', (_name, adapter, objects) => {
    const raw = track(adapter, objects);
    const listed = track(
      adapter,
      objects.map((obj) => new ListedObject(structuredClone(obj) as ListedObjectInput, adapter)),
    );
    expect(listed).toEqual(raw);
    // Not vacuous: every case converts or reports something.
    expect(raw.events.some((e) => e !== undefined) || raw.reports.length > 0).toBe(true);
  });

  it('keeps only the identity of the raw object', () => {
    const raw = patched(rawSlice, 'metadata.resourceVersion', '42');
    const listed = new ListedObject(raw as ListedObjectInput, endpointSliceAdapter);
    expect(Object.keys(listed).sort()).toEqual(['metadata', 'upsert']);
    expect(listed.metadata).toEqual({ namespace: 'shop', name: 'web-abc12', resourceVersion: '42' });
  });
});

type ListedObjectInput = ConstructorParameters<typeof ListedObject>[0];
